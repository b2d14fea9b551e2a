#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Whole-process benchmark: `defaults read`/`write` against `dconf read`/`write` (Debian dconf-cli), measured in one
# run with hyperfine, each tool on its own private store: defaults on files in a temporary PREFERENCES_HOME, dconf
# through dconf-service on a private D-Bus session bus.
#
#   [ROUNDS=5] Benchmarks/cli-defaults.sh [hyperfine options for each round, e.g. --runs 60]
#
# Each comparison runs in ROUNDS alternating rounds (all its commands in each), and each ratio is the median over the
# rounds of the ratio in one round, so that load which comes and goes on the machine falls on every command alike.
#
# Targets (docs/BENCHMARKS.md): `defaults read D k` <= 0.5 x `dconf read /D/k` and <= 1.3 x the start of an empty
# Swift executable linked as defaults is (the floor, built here and measured in the same hyperfine run), on the files
# and through a running prefsd; `defaults write D k v` with a value that differs from the stored one (each run is
# prepared by writing another value first, so that every measured write replaces the file: two `fsync`s) <= 0.3 x
# `dconf write /D/k v`, with a floor beside it: an empty executable linked the same way that makes only the durable
# replacement of a file of the domain's size (temp file, write, `fsync`, `rename`, `fsync` of the directory); the
# atomic `defaults write D list -array-add v` <= 0.5 x `dconf write` of the whole array (dconf has no append). Judged
# on the medians, which other load on the machine disturbs least; the means are printed too. A write of the value
# already stored (no file written) is measured too.
# Needs: swift, hyperfine, dconf-cli, dbus, python3 (scripts/install-deps.sh --bench installs them).
set -euo pipefail
cd "$(dirname "$0")/.."

for tool in swift hyperfine dconf dbus-run-session python3; do
    command -v "$tool" >/dev/null || { echo "error: $tool is missing; run scripts/install-deps.sh --bench" >&2; exit 1; }
done

# The executables users get (scripts/build-release.sh: the Swift runtime static, the C libraries shared).
bin="$(scripts/build-release.sh)"
defaults="$bin/defaults"

work="$(mktemp -d "${TMPDIR:-/tmp}/cli-defaults.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/home" "$work/runtime"
chmod 700 "$work/runtime"
export PREFERENCES_HOME="$work/prefs" PREFERENCES_SYSTEM_DIR="$work/system" PREFERENCES_DOMAINS_DIR="$work/domains"
export PREFSD_SOCKET="$work/prefsd.socket" HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config"
export XDG_RUNTIME_DIR="$work/runtime" DEFAULTS="$defaults" PREFSD="$bin/prefsd" WORK="$work" HYPERFINE_OPTIONS="$*"
export ROUNDS="${ROUNDS:-5}"

# The floor: a Swift program that does nothing, linked as defaults is (the Swift runtime static, libc and libm shared,
# libstdc++ only on demand, and the same start-up flags as scripts/build-release.sh).
mapfile -t floor_flags < <(scripts/cxx-runtime.sh swiftc-flags "$work/link")
echo "" > "$work/empty.swift"
swiftc "${floor_flags[@]}" "$work/empty.swift" -o "$work/empty"
export EMPTY="$work/empty"
# The floor of a changed value's write: the same start, then only the durable replacement the store makes.
cat > "$work/replace.swift" <<'SWIFT'
import Glibc

// replace PATH BYTES: replaces PATH durably with BYTES spaces.
let path = CommandLine.arguments[1]
let count = Int(CommandLine.arguments[2])!
let temporary = path + ".tmp"
let directory = String(path[..<path.lastIndex(of: "/")!])
let bytes = [UInt8](repeating: 0x20, count: count)
let file = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
guard file >= 0, write(file, bytes, count) == count, fsync(file) == 0, close(file) == 0,
    rename(temporary, path) == 0
else { perror(path); exit(1) }
let parent = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
guard parent >= 0, fsync(parent) == 0, close(parent) == 0 else { perror(directory); exit(1) }
SWIFT
swiftc "${floor_flags[@]}" "$work/replace.swift" -o "$work/replace"
mkdir -p "$work/floor"
export REPLACE="$work/replace" FLOOR_FILE="$work/floor/com.example.Bench.plist"

# Runs inside the private session bus; dconf-service is started by the bus on the first write.
cat > "$work/run.sh" <<'SCRIPT'
set -euo pipefail
# The same 50 string keys in each store, so that both read and rewrite a realistic small domain.
for i in $(seq 1 50); do
    "$DEFAULTS" write com.example.Bench "Key$i" "value$i"
    dconf write "/com/example/bench/key$i" "'value$i'"
done
read -r -a extra <<< "$HYPERFINE_OPTIONS"
options=(-N --warmup 5 --style basic "${extra[@]}")
# One comparison, in $ROUNDS alternating rounds (hyperfine runs each command's runs in a block, so load that comes
# and goes on the machine would otherwise fall on one command and not the others): NAME.ROUND.json each.
measure() {
    local name="$1"
    shift
    for round in $(seq 1 "$ROUNDS"); do
        hyperfine "${options[@]}" --export-json "$WORK/$name.$round.json" "$@"
    done
}
measure read \
    -n "defaults read" "$DEFAULTS read com.example.Bench Key7" \
    -n "dconf read" "dconf read /com/example/bench/key7" \
    -n "empty Swift executable" "$EMPTY"
# The same read through a running prefsd: the connection and its hello on top.
"$PREFSD" 2> "$WORK/prefsd.log" &
prefsd_pid=$!
for _ in $(seq 100); do [ -S "$PREFSD_SOCKET" ] && break; sleep 0.05; done
measure read-daemon \
    -n "defaults read (through prefsd)" "$DEFAULTS read com.example.Bench Key7" \
    -n "dconf read" "dconf read /com/example/bench/key7" \
    -n "empty Swift executable" "$EMPTY"
kill -TERM "$prefsd_pid"
wait "$prefsd_pid" || true
measure write \
    -n "defaults write" "$DEFAULTS write com.example.Bench Key7 dark" \
    -n "dconf write" "dconf write /com/example/bench/key7 \"'dark'\""
measure append \
    --prepare "$DEFAULTS write com.example.Bench List -array v0" \
    -n "defaults write -array-add" "$DEFAULTS write com.example.Bench List -array-add v1" \
    --prepare "dconf write /com/example/bench/list \"['v0']\"" \
    -n "dconf write (array)" "dconf write /com/example/bench/list \"['v0', 'v1']\""
size="$(stat -c %s "$PREFERENCES_HOME/com.example.Bench.plist")"
measure change \
    --prepare "$DEFAULTS write com.example.Bench Key7 light" \
    -n "defaults write (changed value)" "$DEFAULTS write com.example.Bench Key7 dark" \
    --prepare "dconf write /com/example/bench/key7 \"'light'\"" \
    -n "dconf write (changed value)" "dconf write /com/example/bench/key7 \"'dark'\"" \
    --prepare "$REPLACE $FLOOR_FILE $size" \
    -n "durable replacement alone" "$REPLACE $FLOOR_FILE $size"
SCRIPT
dbus-run-session -- bash "$work/run.sh" 2> >(grep -v "dbus-daemon" >&2)

python3 - "$work" "$ROUNDS" <<'EOF'
import json, statistics, sys
work, rounds = sys.argv[1], int(sys.argv[2])
def results(name):
    """Each command's results in every round: [[round 1, round 2, …] for each command]."""
    per_round = [json.load(open(f"{work}/{name}.{n}.json"))["results"] for n in range(1, rounds + 1)]
    return [list(command) for command in zip(*per_round)]
def pooled(command):
    times = [t for r in command for t in r["times"]]
    cpu = statistics.mean(r["user"] + r["system"] for r in command)
    return statistics.mean(times), statistics.pstdev(times), statistics.median(times), min(times), cpu
def cell(command):
    mean, stddev, median, fastest, cpu = pooled(command)
    return f"{mean * 1000:.2f} ± {stddev * 1000:.2f} | {median * 1000:.2f} | {fastest * 1000:.2f} | {cpu * 1000:.2f}"
def ratio(ours, theirs):
    """The median over the rounds of the ratio of the two commands' medians in the same round, and its range."""
    ratios = [a["median"] / b["median"] for a, b in zip(ours, theirs)]
    return statistics.median(ratios), min(ratios), max(ratios)
print()
print(f"Times in ms over {rounds} alternating rounds: mean ± σ | median | min | CPU (user + system). The ratio is")
print("defaults / dconf (or / the floor): the median over the rounds of the ratio of the two medians in the same round")
print("(robust to other load on the machine), with its range.")
print()
print("| operation | tool | mean ± σ | median | min | CPU | ratio (median of rounds, range) | target |")
print("|---|---|---|---|---|---|---|---|")
def verdict(value, target):
    return "" if target is None else ("met" if value <= target else "missed") + f" (<= {target})"
for name, label, target, floor_label, floor_target in [
        ("read", "read D k, files", 0.5, "empty Swift executable linked as defaults (floor)", 1.3),
        ("read-daemon", "read D k, through prefsd", 0.5, "empty Swift executable linked as defaults (floor)", 1.3),
        ("change", "write D k v, changed value (two fsyncs)", 0.3,
         "the same start and the durable replacement alone (floor)", None),
        ("write", "write D k v, the value already stored (no file written)", None, None, None),
        ("append", "write D list -array-add v (dconf: write the whole array)", 0.5, None, None)]:
    ours, theirs, *floor = results(name)
    median, low, high = ratio(ours, theirs)
    print(f"| {label} | defaults | {cell(ours)} | {median:.2f} ({low:.2f}–{high:.2f}) | {verdict(median, target)} |")
    print(f"| | dconf | {cell(theirs)} | | |")
    if floor:
        over, low, high = ratio(ours, floor[0])
        print(f"| | {floor_label} | {cell(floor[0])} | {over:.2f} ({low:.2f}–{high:.2f}) (defaults / floor) "
              f"| {verdict(over, floor_target)} |")
EOF
