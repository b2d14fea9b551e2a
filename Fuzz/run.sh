#!/usr/bin/env bash
# Builds the libFuzzer harnesses and runs each reader for a number of executions (default 1,000,000).
# Seeds come from ../shared/corpus when it is there (read in place, never copied into the repo).
# usage: Fuzz/run.sh [runs] [harness…]     e.g. Fuzz/run.sh 200000 FuzzXML
set -euo pipefail
cd "$(dirname "$0")"
runs="${1:-1000000}"
shift || true
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=(FuzzXML FuzzBinary FuzzOpenStep FuzzJSON)

build_log="$(mktemp)"
if ! swift build -c release --scratch-path .build -Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld \
    >"$build_log" 2>&1; then
    tail -n 30 "$build_log" >&2
    echo "Fuzz: the harnesses did not build" >&2
    exit 1
fi
rm -f "$build_log"
bin="$(swift build -c release --scratch-path .build --show-bin-path)"
corpus_dir="../../shared/corpus"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

for harness in "${harnesses[@]}"; do
    seeds="$work/$harness-seeds"
    mkdir -p "$seeds" "$work/$harness-found"
    if [ -d "$corpus_dir" ]; then
        case "$harness" in
            FuzzXML) cp "$corpus_dir"/xml/*.plist "$seeds"/ 2>/dev/null || true ;;
            FuzzBinary) cp "$corpus_dir"/binary/* "$seeds"/ 2>/dev/null || true; rm -f "$seeds"/*.json ;;
            FuzzOpenStep) cp "$corpus_dir"/openstep/* "$seeds"/ 2>/dev/null || true; rm -f "$seeds"/*.json ;;
            FuzzJSON) cp "$corpus_dir"/xml/*.expected.json "$seeds"/ 2>/dev/null || true ;;
        esac
        cp "$corpus_dir"/malformed/* "$seeds"/ 2>/dev/null || true
    fi
    echo "== $harness: $runs runs"
    "$bin/$harness" -runs="$runs" -max_len=65536 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$work/" "$work/$harness-found" "$seeds" 2>&1 \
        | grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|Done|==[0-9]+==ERROR|SUMMARY)' || true
    if ls "$work"/crash-* "$work"/timeout-* "$work"/oom-* >/dev/null 2>&1; then
        mkdir -p artifacts && cp "$work"/crash-* "$work"/timeout-* "$work"/oom-* artifacts/ 2>/dev/null || true
        echo "$harness found a failing input; copied to Fuzz/artifacts/" >&2
        exit 1
    fi
done
