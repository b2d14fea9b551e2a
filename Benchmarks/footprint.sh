#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What the installed tools weigh: each executable's size stripped (as the package installs it) and the shared
# libraries it loads, and prefsd's resident memory idle and after 200 domains, measured beside dconf-service's in
# the same run (dconf-service on a private D-Bus session bus, both on private stores). `make bench` runs it.
#
#   Benchmarks/footprint.sh [BIN_DIR]      (default: the release build, scripts/build-release.sh)
#
# Targets (issue 26, docs/PACKAGING.md): defaults <= 8 MB, plutil <= 8 MB, prefsd <= 15 MB stripped; prefsd's
# resident memory <= 12 MB idle and after 200 domains. Resident memory is VmRSS, which counts the pages of the
# executable and of the shared libraries that the process has mapped (they are shared with other processes and
# stay in the page cache): the anonymous part (heap, stacks: the process's own) is printed beside it.
# Needs: strip, readelf, dconf-cli, dbus (scripts/install-deps.sh --bench installs them).
set -euo pipefail
cd "$(dirname "$0")/.."

for tool in strip readelf awk dconf dbus-run-session; do
    command -v "$tool" >/dev/null || { echo "error: $tool is missing; run scripts/install-deps.sh --bench" >&2; exit 1; }
done
bin="${1:-$(scripts/build-release.sh)}"
work="$(mktemp -d "${TMPDIR:-/tmp}/footprint.XXXXXX")"
cleanup() {
    [ -n "${prefsd_pid:-}" ] && kill -TERM "$prefsd_pid" 2>/dev/null && wait "$prefsd_pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

echo "== executables, stripped (strip --strip-unneeded, as dh_strip), and the libraries each loads"
printf '%-16s %10s  %s\n' executable "MB" "NEEDED"
total=0
for tool in defaults plutil prefsd defaults-fleet; do
    [ -x "$bin/$tool" ] || continue
    if [ -L "$bin/$tool" ]; then
        # plutil and defaults-fleet: defaults and prefsd run by another name (scripts/build-release.sh).
        printf '%-16s %10s  %s\n' "$tool" "link" "-> $(readlink "$bin/$tool")"
        continue
    fi
    strip --strip-unneeded -o "$work/$tool" "$bin/$tool"
    size=$(stat -c %s "$work/$tool")
    needed=$(readelf -d "$work/$tool" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | tr '\n' ' ')
    printf '%-16s %10.2f  %s\n' "$tool" "$(awk -v bytes="$size" 'BEGIN{print bytes / 1000000}')" "${needed:-(static)}"
    total=$((total + size))
done
printf '%-16s %10.2f\n' "all of them" "$(awk -v bytes="$total" 'BEGIN{print bytes / 1000000}')"

# Resident memory of a process: VmRSS, and its anonymous part (heap, stacks).
memory() {
    awk '/^VmRSS:/{rss = $2} /^RssAnon:/{anon = $2} END{printf "%6.1f MB (anonymous %5.1f MB)", rss / 1024, anon / 1024}' \
        "/proc/$1/status"
}

echo "== resident memory, idle and after 200 domains"
mkdir -p "$work/prefs" "$work/runtime/prefsd" "$work/home"
chmod 700 "$work/runtime" "$work/runtime/prefsd"
export PREFERENCES_HOME="$work/prefs" PREFERENCES_SYSTEM_DIR="$work/system" PREFERENCES_DOMAINS_DIR="$work/domains"
export XDG_RUNTIME_DIR="$work/runtime" PREFSD_SOCKET="$work/runtime/prefsd/socket" HOME="$work/home"
export XDG_CONFIG_HOME="$work/home/.config" PREFERENCES_DAEMON=on
"$bin/prefsd" 2>"$work/prefsd.log" &
prefsd_pid=$!
for _ in $(seq 200); do [ -S "$PREFSD_SOCKET" ] && break; sleep 0.05; done
[ -S "$PREFSD_SOCKET" ] || { echo "error: prefsd did not start:" >&2; cat "$work/prefsd.log" >&2; exit 1; }
"$bin/defaults" write com.example.Footprint Started -bool true
sleep 1
echo "prefsd idle:                 $(memory "$prefsd_pid")"
for i in $(seq 1 200); do "$bin/defaults" write "com.example.Footprint$i" Key "value $i" -- Count -int "$i"; done
sleep 1
echo "prefsd after 200 domains:    $(memory "$prefsd_pid")"

# dconf-service, started by the private bus on the first write; its process is found by its parent, the bus.
cat >"$work/dconf.sh" <<'SCRIPT'
set -euo pipefail
memory() {
    awk '/^VmRSS:/{rss = $2} /^RssAnon:/{anon = $2} END{printf "%6.1f MB (anonymous %5.1f MB)", rss / 1024, anon / 1024}' \
        "/proc/$1/status"
}
dconf write /com/example/footprint/started true
service=$(pgrep -n -x dconf-service)
sleep 1
echo "dconf-service idle:          $(memory "$service")"
for i in $(seq 1 200); do dconf write "/com/example/footprint$i/key" "'value $i'"; done
sleep 1
echo "dconf-service after 200:     $(memory "$service")"
SCRIPT
dbus-run-session -- bash "$work/dconf.sh" 2> >(grep -v -e "fd limit" -e "Activating service" -e "Successfully activated" >&2)
