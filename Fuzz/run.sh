#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the libFuzzer harnesses and runs each one for a number of executions (default 1,000,000); `make fuzz` runs
# them all, `make fuzz-smoke` (part of `make test`) runs each one briefly.
# Every harness is seeded from its kept corpus, Fuzz/Corpus/<harness> (read in place; libFuzzer writes only to the
# first corpus directory, a temporary one). Readers are also seeded from ../shared/corpus when it is there (read in
# place, never copied into the repo); the other harnesses also write their own seeds (`--write-seeds`). See
# docs/FUZZING.md.
# usage: Fuzz/run.sh [runs] [harness…]     e.g. Fuzz/run.sh 200000 FuzzXML
# FUZZ_SEED=n makes libFuzzer's choices repeatable (the smoke run uses 1); unset, each run picks its own.
# FUZZ_CONFIGURATION is the build configuration: release (the default, for long runs: several times the executions
# a second) or debug (the smoke run: it compiles in a fraction of the time, and a smoke run is too short to care).
# FUZZ_MAX_LEN (default 4096) bounds an input's bytes; FUZZ_TIMEOUT (default 10) is the wall-clock seconds after
# which one input counts as a hang: raise it under `nice` on a busy machine, where a starved run is not a hang.
# FUZZ_TRACE_CMP=1 adds comparison tracing (`trace-cmp`) and libFuzzer's value profile; off, a run is about half
# again as fast (docs/FUZZING.md, "Speed").
# FUZZ_MERGE=1 minimises the kept corpus with what the run found (`-merge=1`, inputs of at most FUZZ_CORPUS_MAX_LEN
# bytes, default 1024) and replaces Fuzz/Corpus/<harness>.
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
    release | debug) ;;
    *) echo "Fuzz: FUZZ_CONFIGURATION is release or debug, not $configuration" >&2; exit 1 ;;
esac
# `-sanitize=fuzzer` would also turn on `trace-cmp`, whose 1- and 2-byte callbacks feed only the value profile
# (off by default) and took a third of an execution in the readers' byte-by-byte scanning. So both configurations
# ask for the coverage themselves and link the libFuzzer without `main`: a debug build defines `main` only at link
# time, so the `main` of the archive `-sanitize=fuzzer` adds would be taken, and it wants `LLVMFuzzerTestOneInput`.
coverage=edge,inline-8bit-counters,pc-table
value_profile=()
if [ "${FUZZ_TRACE_CMP:-0}" = 1 ]; then
    coverage="$coverage,trace-cmp"
    value_profile=(-use_value_profile=1)
fi
no_main="$(dirname "$(dirname "$(readlink -f "$(command -v swiftc)")")")/lib/clang"
no_main="$(ls "$no_main"/*/lib/linux/libclang_rt.fuzzer_no_main-x86_64.a 2>/dev/null | head -n 1)"
[ -n "$no_main" ] || { echo "Fuzz: libclang_rt.fuzzer_no_main is not in the Swift toolchain" >&2; exit 1; }
# The scratch path names the instrumentation, so that switching FUZZ_TRACE_CMP does not rebuild the other one.
scratch=".build"
[ "${FUZZ_TRACE_CMP:-0}" = 1 ] && scratch=".build-trace-cmp"
sanitizing=(-Xswiftc -sanitize=address -Xswiftc "-sanitize-coverage=$coverage" -Xlinker "$no_main" -Xlinker -lstdc++)
build_log="$(mktemp)"
if ! swift build -c "$configuration" --scratch-path "$scratch" "${sanitizing[@]}" -Xswiftc -use-ld=lld \
    >"$build_log" 2>&1; then
    tail -n 30 "$build_log" >&2
    echo "Fuzz: the harnesses did not build" >&2
    exit 1
fi
rm -f "$build_log"
bin="$(swift build -c "$configuration" --scratch-path "$scratch" --show-bin-path)"
corpus_dir="../../shared/corpus"
max_len="${FUZZ_MAX_LEN:-4096}"
# The kept corpus holds only inputs shorter than a run's, to stay small in the repository (docs/FUZZING.md).
corpus_max_len="${FUZZ_CORPUS_MAX_LEN:-1024}"
# The kept corpus never holds a file of the shared corpus, nor grows large (check-corpus.sh).
./check-corpus.sh
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# The Swift runtime's backtracer would read the crashed stack under AddressSanitizer, which reports that read
# instead of the crash; libFuzzer prints the stack itself.
export SWIFT_BACKTRACE=enable=no
# AddressSanitizer records 30 frames of the stack at every allocation, for the "allocated here" part of a report:
# a tenth of an execution of the allocation-heavy wire harness. The report of a saved input run alone has them
# (ASAN_OPTIONS unset); a run with ASAN_OPTIONS set keeps the caller's options.
export ASAN_OPTIONS="${ASAN_OPTIONS:-malloc_context_size=0}"

for harness in "${harnesses[@]}"; do
    seeds="$work/$harness-seeds"
    kept="Corpus/$harness"
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
    corpora=("$work/$harness-found" "$seeds")
    [ -d "$kept" ] && corpora+=("$kept")
    echo "== $harness: $runs runs"
    log="$work/$harness.log"
    status=0
    "$bin/$harness" -runs="$runs" -seed="${FUZZ_SEED:-0}" -max_len="$max_len" "${value_profile[@]}" \
        -timeout="${FUZZ_TIMEOUT:-10}" -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$work/" "${corpora[@]}" >"$log" 2>&1 || status=$?
    grep -E '^(#[0-9]+[[:space:]]+(INITED|DONE)|stat::number_of_executed_units|stat::average_exec_per_sec|'\
'stat::peak_rss_mb|Done)' "$log" || true
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
    if [ "${FUZZ_MERGE:-0}" = 1 ]; then
        # The smallest set of the kept corpus and the run's finds with all their features, in a fresh directory
        # (a merge into the kept one would keep all of it). Only whole inputs of at most FUZZ_CORPUS_MAX_LEN bytes
        # are candidates (cut short, a binary property list loses its trailer and is noise), and the seeds are
        # left out, so no shared file is kept.
        candidates="$work/$harness-candidates"
        merged="$work/$harness-merged"
        mkdir -p "$candidates" "$merged"
        before="$( (ls "$kept" 2>/dev/null || true) | wc -l)"
        found="$(ls "$work/$harness-found" | wc -l)"
        find "$work/$harness-found" $([ -d "$kept" ] && echo "$kept") -type f -size -"$((corpus_max_len + 1))"c \
            -exec cp {} "$candidates"/ \;
        if ! "$bin/$harness" -merge=1 -max_len="$max_len" "${value_profile[@]}" -timeout="${FUZZ_TIMEOUT:-10}" \
            -rss_limit_mb=2048 "$merged" "$candidates" >"$log.merge" 2>&1; then
            tail -n 20 "$log.merge" >&2
            echo "$harness: the merge failed; the kept corpus is unchanged" >&2
            exit 1
        fi
        rm -rf "$kept" && mkdir -p "$kept" && cp "$merged"/* "$kept"/ 2>/dev/null || true
        # A find identical to a shared file (libFuzzer writes some seeds back unchanged) is dropped.
        ./check-corpus.sh --remove "$kept"
        echo "$harness: kept corpus $before files, $found found, $(ls "$kept" | wc -l) after merging" \
            "($(du -sk --apparent-size "$kept" | cut -f1) KiB)"
    fi
done
