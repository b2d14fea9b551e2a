#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Counts the instructions of the hot paths with callgrind and compares them with the committed thresholds
# (Benchmarks/Thresholds/instructions.tsv): a path that grows by more than 10 % fails, naming the path and both
# counts. Instruction counts do not move with the machine's load, so this is safe to run beside other work.
#
# usage: scripts/instruction-counts.sh [--update] [BIN_DIR]
#   --update   rewrite the thresholds from this run (after an intended change; commit the file)
#   BIN_DIR    the release executables (default: what `make build` produces)
#
# Paths: decode and encode of the shared ~1 MB file (../shared/bench, generated), `defaults read` of one key of
# that 10,000-key domain on the files, `defaults read` of one key and `defaults write` of a changed value (the file
# replaced) in a 50-key domain, and the instructions prefsd spends per `get` request; and how many 64 KiB regions of
# code `defaults read` of one key of the 50-key domain runs.
set -euo pipefail
cd "$(dirname "$0")/.."

update=0
if [ "${1:-}" = "--update" ]; then update=1; shift; fi
thresholds=Benchmarks/Thresholds/instructions.tsv
tolerance_percent=10

generator=../shared/bench/gen_plist.py
if [ ! -f "$generator" ]; then
    echo "instruction counts: skipped, $generator is absent (it sits beside the repository in CI)"
    exit 0
fi
command -v valgrind >/dev/null || { echo "instruction counts: valgrind is missing (scripts/install-deps.sh)" >&2; exit 1; }

bin="${1:-}"
# The executables as they ship, with the release script's compiler flags.
if [ -z "$bin" ]; then bin="$(scripts/build-release.sh)"; fi

# shellcheck source=scripts/valgrind-copies.sh
. scripts/valgrind-copies.sh
python3 "$generator" "$work" >/dev/null 2>&1

# Instructions of one command, all threads.
count() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null \
        | sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p'
}

# Swift seeds its hashing per process; a fixed seed makes dictionary probes, and so the counts, repeatable.
export SWIFT_DETERMINISTIC_HASHING=1
export PREFERENCES_HOME="$work/prefs" PREFERENCES_SYSTEM_DIR="$work/system" PREFERENCES_DOMAINS_DIR="$work/domains"
export PREFSD_SOCKET="$work/prefsd.socket" HOME="$work" XDG_CONFIG_HOME="$work/config"
mkdir -p "$PREFERENCES_HOME"
cp "$work/big.xml" "$PREFERENCES_HOME/com.example.Bench.plist"
key="$(python3 -c 'import plistlib,sys; print(sorted(plistlib.load(open(sys.argv[1],"rb")))[5000])' "$work/big.xml")"

declare -A measured
measured[plutil-lint-xml]=$(count "$bin/plutil" -lint "$work/big.xml")
measured[plutil-lint-binary]=$(count "$bin/plutil" -lint "$work/big.bin")
measured[plutil-convert-xml-to-binary]=$(count "$bin/plutil" -convert binary1 -o "$work/out.bin" "$work/big.xml")
measured[plutil-convert-binary-to-xml]=$(count "$bin/plutil" -convert xml1 -o "$work/out.xml" "$work/big.bin")
measured[defaults-read-key-files]=$(PREFERENCES_DAEMON=off count "$bin/defaults" read com.example.Bench "$key")

# prefsd per request: the daemon under callgrind serves 0 and then 2,000 `get`s; the difference over 2,000.
daemon_count() {
    local requests="$1" log="$work/prefsd-$1.log"
    rm -f "$PREFSD_SOCKET"
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin/prefsd" >/dev/null 2>"$log" &
    daemon_pid=$!
    python3 - "$PREFSD_SOCKET" "$requests" <<'EOF'
import plistlib, socket, struct, sys, time
path, requests = sys.argv[1], int(sys.argv[2])
deadline = time.time() + 120
while True:
    try:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); sock.connect(path); break
    except OSError:
        if time.time() > deadline: sys.exit("prefsd did not listen within 120 s")
        time.sleep(0.1)
def read_exactly(count):
    data = b""
    while len(data) < count:
        chunk = sock.recv(count - len(data))
        if not chunk: sys.exit("prefsd closed the connection")
        data += chunk
    return data
def call(request):
    payload = plistlib.dumps(request, fmt=plistlib.FMT_BINARY)
    sock.sendall(struct.pack(">I", len(payload)) + payload)
    reply = plistlib.loads(read_exactly(struct.unpack(">I", read_exactly(4))[0]))
    if "error" in reply: sys.exit(f"prefsd answered {reply['error']}")
    return reply
call({"id": 1, "op": "hello", "version": 1, "client": "instruction-counts"})
call({"id": 2, "op": "set", "domain": "com.example.Count", "key": "k", "value": 1})
for index in range(requests):
    call({"id": 3 + index, "op": "get", "domain": "com.example.Count", "key": "k"})
sock.close()
EOF
    kill -TERM "$daemon_pid"
    wait "$daemon_pid" || true
    daemon_pid=""
    sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p' "$log"
}
idle=$(daemon_count 0)
busy=$(daemon_count 2000)
measured[prefsd-get-request]=$(( (busy - idle) / 2000 ))

# The 64 KiB regions of code that hold the functions `defaults read D k` of a 50-key domain runs: the kernel maps a
# file's pages 64 KiB around each fault, so this is how many page faults the code costs a short command, which
# scripts/symbol-order.txt keeps low (docs/DEFAULTS.md, "The pages a command touches"); unordered, about 110. The
# tolerance is wider: code that a change adds to the path lands outside the ordered layout until the list is renewed.
for i in $(seq 1 50); do PREFERENCES_DAEMON=off "$bin/defaults" write com.example.Small "Key$i" "value$i"; done
# A write that replaces the file of that 50-key domain (the value differs from the stored one): read, update, XML
# encode, the durable replacement.
measured[defaults-write-changed-value]=$(PREFERENCES_DAEMON=off count "$bin/defaults" write com.example.Small Key7 dark)
# A one-shot read of one key of that domain: mostly the process's start, the argument parsing and the XML parse.
measured[defaults-read-key-small]=$(PREFERENCES_DAEMON=off count "$bin/defaults" read com.example.Small Key7)
valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/read.callgrind" \
    "$bin/defaults" read com.example.Small Key7 >/dev/null 2>&1
scripts/callgrind-functions.py "$work/read.callgrind" >"$work/read.functions"
nm --print-size --defined-only "$bin/defaults" >"$work/defaults.symbols"
measured[defaults-read-key-code-regions]=$(python3 - "$work/read.functions" "$work/defaults.symbols" <<'REGIONS'
import sys
ran = set(open(sys.argv[1]).read().split())
regions = set()
for line in open(sys.argv[2]):
    fields = line.split()
    if len(fields) == 4 and fields[2] in "tTwW" and fields[3] in ran:
        start, size = int(fields[0], 16), max(int(fields[1], 16), 1)
        regions.update(range(start >> 16, ((start + size - 1) >> 16) + 1))
print(len(regions))
REGIONS
)

names=(plutil-lint-xml plutil-lint-binary plutil-convert-xml-to-binary plutil-convert-binary-to-xml
    defaults-read-key-files defaults-read-key-small defaults-write-changed-value prefsd-get-request
    defaults-read-key-code-regions)
declare -A tolerance=([defaults-read-key-code-regions]=25)

if [ "$update" = 1 ]; then
    mkdir -p "$(dirname "$thresholds")"
    {
        echo "# Instructions per path (callgrind), and the 64 KiB regions of code one defaults read runs, written"
        echo "# by scripts/instruction-counts.sh --update. make test fails when a path takes more than"
        echo "# ${tolerance_percent} % more than this (the regions: ${tolerance[defaults-read-key-code-regions]} %)."
        for name in "${names[@]}"; do printf '%s\t%s\n' "$name" "${measured[$name]}"; done
    } >"$thresholds"
    echo "instruction counts: thresholds written to $thresholds"
    for name in "${names[@]}"; do printf '  %-32s %12s\n' "$name" "${measured[$name]}"; done
    exit 0
fi

[ -f "$thresholds" ] || { echo "instruction counts: $thresholds is missing (run with --update)" >&2; exit 1; }
failed=0
for name in "${names[@]}"; do
    expected="$(awk -F '\t' -v name="$name" '$1 == name { print $2 }' "$thresholds")"
    actual="${measured[$name]}"
    if [ -z "$expected" ]; then
        echo "instruction counts: $name has no threshold in $thresholds (run with --update)" >&2
        failed=1
        continue
    fi
    limit=$(( expected + expected * ${tolerance[$name]:-$tolerance_percent} / 100 ))
    change=$(awk -v a="$actual" -v e="$expected" 'BEGIN { printf "%+.1f", (a - e) * 100 / e }')
    if [ "$actual" -gt "$limit" ]; then
        echo "instruction counts: $name grew by $change %: $actual, threshold $expected" >&2
        failed=1
    else
        printf 'instruction counts: %-32s %12s (threshold %s, %s %%)\n' "$name" "$actual" "$expected" "$change"
    fi
done
exit "$failed"
