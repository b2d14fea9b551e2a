#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The GSettings backend "preferences" (docs/GSETTINGS.md) against dconf's, in one run, each on a private store: ours
# through a prefsd on a temporary home, dconf through dconf-service on a private D-Bus session bus.
#
#   [ROUNDS=3] [SAMPLES=200] Benchmarks/gsettings.sh [BIN_DIR]
#   (BIN_DIR: the prefsd to use; default the release build, scripts/build-release.sh)
#
# Measures:
# - the start of `gsettings get org.gnome.desktop.interface gtk-theme` (a user value in both stores) with hyperfine
#   (-N, warm-up), in ROUNDS alternating rounds, beside the same command on GLib's memory backend (the floor: GLib's
#   start and the schema, no store); the ratio is the median over the rounds of ours / dconf's medians in a round;
# - its peak resident memory (GNU time's %M, the median of 20 runs);
# - notification latency: clients/gsettings/tests/gsettings-latency writes SAMPLES values of cursor-size through
#   GSettings, one at a time, each timed from the write to the line another process's `gsettings monitor` prints
#   for it; p50 and p99.
# Needs: hyperfine, dbus, dconf-service, dconf-gsettings-backend, GNU time, gsettings-desktop-schemas, python3.
set -euo pipefail
cd "$(dirname "$0")/.."
repository="$(pwd)"

for tool in hyperfine dbus-run-session gsettings python3 /usr/bin/time; do
    command -v "$tool" >/dev/null || { echo "error: $tool is missing" >&2; exit 1; }
done
bin="$(cd "${1:-$(scripts/build-release.sh)}" && pwd)"
[ -x "$bin/prefsd" ] || { echo "error: $bin/prefsd is missing" >&2; exit 1; }
# PREFERENCES_C_BUILD_DIR: where libpreferences and the module are built (make test gives the release lane its own).
build="${PREFERENCES_C_BUILD_DIR:-$repository/.build/c}"
# Absolute: the Makefiles run in their own directories.
case "$build" in /*) ;; *) build="$repository/$build" ;; esac
make -s -C clients/c BUILD_DIR="$build"
make -s -C clients/gsettings BUILD_DIR="$build" tests

work="$(mktemp -d "${TMPDIR:-/tmp}/gsettings-bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/prefs" "$work/system" "$work/home" "$work/domains"
install -d -m 0700 "$work/runtime"
# prefsd copied, so that a build replacing the executable during the run changes nothing.
cp "$bin/prefsd" "$work/prefsd"
unset NOTIFY_SOCKET WATCHDOG_USEC WATCHDOG_PID LISTEN_FDS LISTEN_PID LISTEN_FDNAMES JOURNAL_STREAM GSETTINGS_BACKEND
unset GIO_EXTRA_MODULES GSETTINGS_SCHEMA_DIR
export PREFERENCES_HOME="$work/prefs" PREFERENCES_SYSTEM_DIR="$work/system" PREFERENCES_DOMAINS_DIR="$work/domains"
export PREFSD_SOCKET="$work/run/socket" HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config"
export XDG_RUNTIME_DIR="$work/runtime" WORK="$work" MODULES="$build/gio-modules"
export LATENCY="$build/gsettings/gsettings-latency"
export LD_LIBRARY_PATH="$build${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export ROUNDS="${ROUNDS:-3}" SAMPLES="${SAMPLES:-200}"

# Runs inside the private session bus; dconf-service is started by the bus on dconf's first write.
cat > "$work/run.sh" <<'SCRIPT'
set -euo pipefail
"$WORK/prefsd" 2> "$WORK/prefsd.log" &
prefsd_pid=$!
trap 'kill -TERM "$prefsd_pid" 2>/dev/null; wait "$prefsd_pid" 2>/dev/null || true' EXIT
for _ in $(seq 200); do [ -S "$PREFSD_SOCKET" ] && break; sleep 0.05; done
ours=(env GIO_EXTRA_MODULES="$MODULES" GSETTINGS_BACKEND=preferences)
dconf=(env GSETTINGS_BACKEND=dconf)
memory=(env GSETTINGS_BACKEND=memory)
get=(gsettings get org.gnome.desktop.interface gtk-theme)
"${ours[@]}" gsettings set org.gnome.desktop.interface gtk-theme "'Bench'"
"${dconf[@]}" gsettings set org.gnome.desktop.interface gtk-theme "'Bench'"
[ "$("${ours[@]}" "${get[@]}")" == "'Bench'" ] && [ "$("${dconf[@]}" "${get[@]}")" == "'Bench'" ] \
    || { echo "error: the stores do not hold the benchmark's value" >&2; exit 1; }

for round in $(seq 1 "$ROUNDS"); do
    hyperfine -N --warmup 10 --runs 100 --style basic --export-json "$WORK/start.$round.json" \
        -n "preferences" "${ours[*]} ${get[*]}" \
        -n "dconf" "${dconf[*]} ${get[*]}" \
        -n "memory (floor)" "${memory[*]} ${get[*]}" >&2
done

rss() { # the median peak RSS in KiB of 20 runs
    for _ in $(seq 20); do /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; done | sort -n | sed -n 10p
}
echo "rss preferences $(rss "${ours[@]}" "${get[@]}")" > "$WORK/rss"
echo "rss dconf $(rss "${dconf[@]}" "${get[@]}")" >> "$WORK/rss"
echo "rss memory $(rss "${memory[@]}" "${get[@]}")" >> "$WORK/rss"

"${ours[@]}" "$LATENCY" org.gnome.desktop.interface cursor-size "$SAMPLES" > "$WORK/latency.preferences"
"${dconf[@]}" "$LATENCY" org.gnome.desktop.interface cursor-size "$SAMPLES" > "$WORK/latency.dconf"
SCRIPT
dbus-run-session -- bash "$work/run.sh" 2> >(grep -v "dbus-daemon" >&2)

python3 - "$work" "$ROUNDS" "$(nproc)" <<'EOF'
import json, statistics, sys
work, rounds, cpus = sys.argv[1], int(sys.argv[2]), sys.argv[3]
per_round = [{r["command"]: r for r in json.load(open(f"{work}/start.{n}.json"))["results"]}
             for n in range(1, rounds + 1)]
def pooled(name):
    times = [t for r in per_round for t in r[name]["times"]]
    return statistics.median(times) * 1000, statistics.mean(times) * 1000
ratios = [r["preferences"]["median"] / r["dconf"]["median"] for r in per_round]
rss = {line.split()[1]: int(line.split()[2]) for line in open(f"{work}/rss")}
def latency(name):
    fields = dict(item.split("=") for item in open(f"{work}/latency.{name}").read().split())
    return {key: int(value) for key, value in fields.items()}
ours, theirs = latency("preferences"), latency("dconf")
print()
print(f"GSettings backends, one run ({rounds} alternating hyperfine rounds of 100 runs each, {cpus} CPUs)")
print()
print("| | preferences | dconf | memory (floor) |")
print("|---|---|---|---|")
medians = {name: pooled(name) for name in ("preferences", "dconf", "memory (floor)")}
print("| `gsettings get` start, median (mean) ms | " +
      " | ".join(f"{m:.2f} ({a:.2f})" for m, a in medians.values()) + " |")
print(f"| ratio preferences / dconf (median of rounds, range) | {statistics.median(ratios):.2f} "
      f"({min(ratios):.2f}–{max(ratios):.2f}) | | |")
print(f"| `gsettings get` peak RSS, KiB (median of 20) | {rss['preferences']} | {rss['dconf']} | {rss['memory']} |")
print(f"| notification latency p50, µs ({ours['samples']} / {theirs['samples']} writes) | {ours['p50_us']} | "
      f"{theirs['p50_us']} | |")
print(f"| notification latency p99, µs | {ours['p99_us']} | {theirs['p99_us']} | |")
print(f"| notification latency mean / max, µs | {ours['mean_us']} / {ours['max_us']} | "
      f"{theirs['mean_us']} / {theirs['max_us']} | |")
EOF
