#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the libFuzzer harnesses and runs each one for a number of executions (default 1,000,000); `make fuzz` runs
# them all, `make fuzz-smoke` (part of `make test`) runs each one briefly.
# Readers are seeded from ../shared/corpus when it is there (read in place, never copied into the repo); the other
# harnesses write their own seeds (`--write-seeds`). See docs/FUZZING.md.
# usage: Fuzz/run.sh [runs] [harness…]     e.g. Fuzz/run.sh 200000 FuzzXML
# FUZZ_SEED=n makes libFuzzer's choices repeatable (the smoke run uses 1); unset, each run picks its own.
# FUZZ_CONFIGURATION is the build configuration: release (the default, for long runs: several times the executions
# a second) or debug (the smoke run: it compiles in a fraction of the time, and a smoke run is too short to care).
# FUZZ_MAX_LEN (default 65536) bounds an input's bytes; FUZZ_TIMEOUT (default 10) is the wall-clock seconds after
# which one input counts as a hang: raise it under `nice` on a busy machine, where a starved run is not a hang.
set -euo pipefail
cd "$(dirname "$0")"
runs="${1:-1000000}"
shift || true
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=(FuzzXML FuzzBinary FuzzOpenStep FuzzJSON FuzzWire FuzzDefaults FuzzKeyPath)

# The main package declares its PrefsFuzzTargets product, which the harnesses need, only with this set: it is
# not for users (Package.swift).
export PREFERENCES_FUZZ_PRODUCTS=1
configuration="${FUZZ_CONFIGURATION:-release}"
case "$configuration" in
    release) sanitizing=(-Xswiftc -sanitize=fuzzer,address) ;;
    debug)
        # A debug build renames the executable's `main` and defines `main` only at link time, so the linker takes
        # libFuzzer's own `main` from the archive `-sanitize=fuzzer` adds, which wants `LLVMFuzzerTestOneInput`.
        # The same instrumentation, with the libFuzzer that has no `main`, avoids that.
        no_main="$(dirname "$(dirname "$(readlink -f "$(command -v swiftc)")")")/lib/clang"
        no_main="$(ls "$no_main"/*/lib/linux/libclang_rt.fuzzer_no_main-x86_64.a 2>/dev/null | head -n 1)"
        [ -n "$no_main" ] || { echo "Fuzz: libclang_rt.fuzzer_no_main is not in the Swift toolchain" >&2; exit 1; }
        sanitizing=(-Xswiftc -sanitize=address -Xswiftc -sanitize-coverage=edge,trace-cmp,inline-8bit-counters,pc-table
            -Xlinker "$no_main" -Xlinker -lstdc++)
        ;;
    *) echo "Fuzz: FUZZ_CONFIGURATION is release or debug, not $configuration" >&2; exit 1 ;;
esac
build_log="$(mktemp)"
if ! swift build -c "$configuration" --scratch-path .build "${sanitizing[@]}" -Xswiftc -use-ld=lld \
    >"$build_log" 2>&1; then
    tail -n 30 "$build_log" >&2
    echo "Fuzz: the harnesses did not build" >&2
    exit 1
fi
rm -f "$build_log"
bin="$(swift build -c "$configuration" --scratch-path .build --show-bin-path)"
corpus_dir="../../shared/corpus"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# The Swift runtime's backtracer would read the crashed stack under AddressSanitizer, which reports that read
# instead of the crash; libFuzzer prints the stack itself.
export SWIFT_BACKTRACE=enable=no

for harness in "${harnesses[@]}"; do
    seeds="$work/$harness-seeds"
    mkdir -p "$seeds" "$work/$harness-found"
    case "$harness" in
        FuzzXML | FuzzBinary | FuzzOpenStep | FuzzJSON)
            if [ -d "$corpus_dir" ]; then
                case "$harness" in
                    FuzzXML) cp "$corpus_dir"/xml/*.plist "$seeds"/ 2>/dev/null || true ;;
                    FuzzBinary) cp "$corpus_dir"/binary/* "$seeds"/ 2>/dev/null || true; rm -f "$seeds"/*.json ;;
                    FuzzOpenStep) cp "$corpus_dir"/openstep/* "$seeds"/ 2>/dev/null || true; rm -f "$seeds"/*.json ;;
                    FuzzJSON) cp "$corpus_dir"/xml/*.expected.json "$seeds"/ 2>/dev/null || true ;;
                esac
                cp "$corpus_dir"/malformed/* "$seeds"/ 2>/dev/null || true
            fi
            ;;
        *) "$bin/$harness" --write-seeds "$seeds" ;;
    esac
    echo "== $harness: $runs runs"
    log="$work/$harness.log"
    status=0
    "$bin/$harness" -runs="$runs" -seed="${FUZZ_SEED:-0}" -max_len="${FUZZ_MAX_LEN:-65536}" \
        -timeout="${FUZZ_TIMEOUT:-10}" -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$work/" "$work/$harness-found" "$seeds" >"$log" 2>&1 || status=$?
    grep -E '^(#[0-9]+[[:space:]]+DONE|stat::number_of_executed_units|stat::peak_rss_mb|Done)' "$log" || true
    if [ "$status" -ne 0 ]; then
        grep -E 'Fatal error|==[0-9]+==ERROR|SUMMARY|deadly signal|Test unit written' "$log" >&2 || tail -n 20 "$log" >&2
        if ls "$work"/crash-* "$work"/timeout-* "$work"/oom-* >/dev/null 2>&1; then
            mkdir -p artifacts && cp "$work"/crash-* "$work"/timeout-* "$work"/oom-* artifacts/ 2>/dev/null || true
            echo "$harness found a failing input; copied to Fuzz/artifacts/" >&2
        else
            echo "$harness failed with exit status $status" >&2
        fi
        exit 1
    fi
done
