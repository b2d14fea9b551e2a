#!/usr/bin/env bash
# Python plistlib on the shared ~1 MB input, the peer figure beside the Benchmarks package's run.
set -euo pipefail
cd "$(dirname "$0")/.."
generator=../shared/bench/gen_plist.py
if [ ! -f "$generator" ]; then
    echo "plistlib peer: ../shared/bench/gen_plist.py not found, skipped"
    exit 0
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 "$generator" "$work" >/dev/null
python3 scripts/bench-plistlib.py "$work"
