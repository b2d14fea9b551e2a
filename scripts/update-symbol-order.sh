#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Rewrites scripts/symbol-order.txt: the functions the release executables run for their common commands, in the
# order callgrind first meets them, then the data objects those commands load or store. The release build
# (scripts/build-release.sh) hands the list to the linker, which lays them out together, so that a command touches a
# few dozen pages of code instead of a hundred scattered over 19 MB, and fewer zero-filled pages (docs/DEFAULTS.md,
# "The pages a command touches").
#
# usage: scripts/update-symbol-order.sh [BIN_DIR]
#   BIN_DIR    the release executables (default: what `make build` produces)
#
# Run it after a change that renames or adds much of what `defaults read`/`write` run, and commit the file. A stale
# list costs speed only: the linker skips names it does not find, and the functions missing from it keep their usual
# place.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "symbol order: valgrind is missing (scripts/install-deps.sh)" >&2; exit 1; }

bin="${1:-$(scripts/build-release.sh)}"
out=scripts/symbol-order.txt
# shellcheck source=scripts/valgrind-copies.sh
. scripts/valgrind-copies.sh

# The user's own paths, as a user runs the commands (no PREFERENCES_* or PREFSD_SOCKET overrides), inside the work
# directory; the system layers are read where they are.
export HOME="$work/home" XDG_RUNTIME_DIR="$work/runtime"
unset XDG_CONFIG_HOME PREFERENCES_HOME PREFERENCES_SYSTEM_DIR PREFERENCES_DOMAINS_DIR PREFSD_SOCKET PREFERENCES_DAEMON
mkdir -p "$HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"
for i in $(seq 1 50); do "$bin/defaults" write com.example.Order "Key$i" "value$i"; done
domain_file="$HOME/.config/preferences/com.example.Order.plist"
[ -f "$domain_file" ] || { echo "symbol order: $domain_file was not written" >&2; exit 1; }

profiles=()
traces=()
# under_valgrind VALGRIND_OPTION... -- [NAME=value...] COMMAND...: the assignments go into the command's environment.
under_valgrind() {
    local options=() variables=()
    while [ "$1" != "--" ]; do options+=("$1"); shift; done
    shift
    while [[ "$1" == *=* ]]; do variables+=("$1"); shift; done
    env "${variables[@]}" valgrind "${options[@]}" "$@" >/dev/null 2>&1
}
# Callgrind names every function run, in the order it meets them.
profile() {
    local file="$work/callgrind.${#profiles[@]}"
    under_valgrind --tool=callgrind --demangle=no --callgrind-out-file="$file" -- "$@"
    profiles+=("$file")
}
# Lackey lists every load and store: the data a command touches (metadata caches, the runtime's and libc's state).
trace_data() {
    local file="$work/lackey.${#traces[@]}"
    under_valgrind --tool=lackey --trace-mem=yes --log-file="$file" -- "$@"
    traces+=("$file")
}

# Most common first: the read of one key on the files (no prefsd runs), then the other verbs, the same through
# prefsd, plutil.
profile "$bin/defaults" read com.example.Order Key7
trace_data "$bin/defaults" read com.example.Order Key7
# The same with the locations set in the environment, as tests, containers and the benchmarks run it.
overrides=(PREFERENCES_HOME="$HOME/.config/preferences" PREFSD_SOCKET="$work/none.socket")
profile "${overrides[@]}" "$bin/defaults" read com.example.Order Key7
trace_data "${overrides[@]}" "$bin/defaults" read com.example.Order Key7
profile "$bin/defaults" read com.example.Order
profile "$bin/defaults" write com.example.Order Key7 dark
trace_data "$bin/defaults" write com.example.Order Key7 light
profile "$bin/defaults" write com.example.Order Key7 -int 3
"$bin/prefsd" 2>"$work/prefsd.log" &
daemon_pid=$!
socket="$XDG_RUNTIME_DIR/prefsd/socket"
for _ in $(seq 100); do [ -S "$socket" ] && break; sleep 0.05; done
[ -S "$socket" ] || { echo "symbol order: prefsd did not start" >&2; cat "$work/prefsd.log" >&2; exit 1; }
profile "$bin/defaults" read com.example.Order Key7
trace_data "$bin/defaults" read com.example.Order Key7
profile "$bin/defaults" write com.example.Order Key7 light
kill -TERM "$daemon_pid"
wait "$daemon_pid" || true
daemon_pid=""
profile "$bin/plutil" -lint "$domain_file"
profile "$bin/plutil" -p "$domain_file"
profile "$bin/plutil" -convert binary1 -o "$work/order.bin" "$domain_file"
# Last, prefsd itself: its start, a client's reads, writes and subscription, and its stop. Laid out together, the code
# it runs idle and serving touches fewer pages, which its resident memory counts (docs/PACKAGING.md, "Linking").
daemon_profile="$work/callgrind.daemon"
valgrind --tool=callgrind --demangle=no --callgrind-out-file="$daemon_profile" "$bin/prefsd" 2>"$work/prefsd.log" &
daemon_pid=$!
for _ in $(seq 600); do [ -S "$socket" ] && break; sleep 0.05; done
[ -S "$socket" ] || { echo "symbol order: prefsd did not start under valgrind" >&2; cat "$work/prefsd.log" >&2; exit 1; }
"$bin/defaults" read com.example.Order Key7 >/dev/null
"$bin/defaults" write com.example.Order Key7 -int 4
"$bin/defaults" read com.example.Order >/dev/null
timeout -s INT 2 "$bin/defaults" watch com.example.Order >/dev/null 2>&1 || true
kill -TERM "$daemon_pid"
wait "$daemon_pid" || true
daemon_pid=""
profiles+=("$daemon_profile")

scripts/callgrind-functions.py "${profiles[@]}" >"$work/functions"
nm --numeric-sort --print-size --defined-only "$bin/defaults" >"$work/defaults.symbols"
python3 - "$out" "$work/functions" "$work/defaults.symbols" "${traces[@]}" <<'PYTHON'
import bisect, re, sys
out, functions_path, symbols_path, traces = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
# The static start-up, which callgrind names "(below main)" or not at all, then the functions.
order = ["_start", "__libc_start_main_impl", "__libc_start_call_main"]
seen = set(order)
def add(name):
    if name not in seen:
        seen.add(name)
        order.append(name)
for name in open(functions_path).read().split():
    add(name)
# Data objects (nm types b, d, r, v: zero-filled, written, read-only, weak), by the first load or store in them.
objects = []
for line in open(symbols_path):
    fields = line.split()
    if len(fields) == 4 and fields[2] in "bBdDrRvV":
        objects.append((int(fields[0], 16), max(int(fields[1], 16), 1), fields[3]))
starts = [start for start, _, _ in objects]
access = re.compile(r"^ [LSM] ([0-9a-f]+),")
for path in traces:
    for line in open(path, errors="replace"):
        match = access.match(line)
        if not match:
            continue
        address = int(match.group(1), 16)
        index = bisect.bisect_right(starts, address) - 1
        if index >= 0 and address < objects[index][0] + objects[index][1]:
            add(objects[index][2])
with open(out, "w") as file:
    file.write("\n".join(order) + "\n")
print(f"{out}: {len(order)} symbols")
PYTHON
