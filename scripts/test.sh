#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `make test`: every check of the repository, in a foreground and niced lanes beside it, so that two cores stay busy.
#
# Foreground, in order: the module layering checked on the manifest (scripts/check-dependencies.sh), the debug build
# with the tests, the unit tests, then the fleet, daemon and command end-to-end tests each in a process of its own,
# then the racing-process proofs (AtomicUpdateTests: up to 200 processes, after the suite so that they do not slow
# its timing-sensitive tests) with the documentation built beside them (a broken symbol link or any DocC warning
# fails).
#
# Background, at the lowest priority (`nice -n 19`):
# - once the debug build is there, the Python client's tests against the built prefsd, and the C library's
#   (clients/c) then the GSettings backend's (clients/gsettings, with the real gsettings and dconf beside it);
# from the start:
# - the release executables (scripts/build-release.sh, in their own build directory, since the foreground holds
#   .build's lock, and without debug information, which the package strips anyway), then the hot paths' instruction counts against Benchmarks/Thresholds (counts do not move with load), the GSettings
#   backend beside dconf (Benchmarks/gsettings.sh, one short round: a table for reading, not a gate), then
#   the Debian packages built from those executables (dpkg-buildpackage, debian/) and their contents checked;
# - every fuzz harness built with AddressSanitizer and run for FUZZ_SMOKE_RUNS executions;
# - a downstream package that depends on this one by URL and uses `Preferences`, built in a temporary directory
#   (scripts/test-downstream.sh): what it compiles and links, and that it runs.
# The foreground leaves part of a core idle most of the time (a build's serial steps, tests that wait on processes
# and sockets); the background takes only that while the foreground runs, so it does not slow the tests.
#
# Each step's wall time is printed; the first failure stops everything with the failing step's output.
# SWIFT overrides the swift command; FUZZ_SMOKE_RUNS the executions of each harness (default 2000).
set -euo pipefail
cd "$(dirname "$0")/.."

swift="${SWIFT:-swift}"
logs=.build/test-logs
mkdir -p "$logs"
rm -f "$logs"/*.log

# Each lane's process id, which is also its process group's id.
declare -A lanes=()
stop_background() {
    for group in "${lanes[@]}"; do kill -TERM -- "-$group" 2>/dev/null || true; done
}
trap stop_background EXIT

# Starts a lane niced, logging to a file, in its own process group (job control on: `set -m`) so that a failure
# elsewhere can stop all of it. Not in a session of its own (`setsid`): with the kernel's autogroup scheduling, each
# session is scheduled as one group with an equal share, whatever its nice value, and the lane would take a full
# core from the tests.
start_lane() {
    local name="$1"
    shift
    set -m
    nice -n 19 bash -c "$*" >"$logs/$name.log" 2>&1 &
    set +m
    lanes[$name]=$!
}

# Runs one foreground step, printing its wall time.
step() {
    local name="$1"
    shift
    local start=$SECONDS
    echo "== $name"
    "$@"
    echo "== $name: $((SECONDS - start)) s"
}

release_lane='
    set -euo pipefail
    start=$SECONDS
    bin="$(SWIFT='"$swift"' RELEASE_SCRATCH_PATH=.build/test-release RELEASE_SWIFT_FLAGS=-gnone \
        scripts/build-release.sh .build/test-release/dist/bin)"
    echo "== release build: $((SECONDS - start)) s"
    start=$SECONDS
    scripts/check-linking.sh "$bin"
    echo "== linking: $((SECONDS - start)) s"
    start=$SECONDS
    scripts/instruction-counts.sh "$bin"
    echo "== instruction counts: $((SECONDS - start)) s"
    start=$SECONDS
    PREFERENCES_C_BUILD_DIR=.build/test-release/c ROUNDS=1 SAMPLES=50 Benchmarks/gsettings.sh "$bin"
    echo "== GSettings beside dconf: $((SECONDS - start)) s"
    start=$SECONDS
    changes="$(BIN_DIR="$bin" PREFERENCES_DEB_COMPRESSION="-Zgzip -z1" scripts/build-deb.sh .build/test-release/deb)"
    BIN_DIR="$bin" scripts/check-deb.sh "$changes"
    echo "== Debian packages: $((SECONDS - start)) s"
'
fuzz_lane='
    set -euo pipefail
    start=$SECONDS
    FUZZ_SEED=1 FUZZ_CONFIGURATION=debug FUZZ_TIMEOUT=120 Fuzz/run.sh '"${FUZZ_SMOKE_RUNS:-2000}"'
    echo "== fuzz smoke: $((SECONDS - start)) s"
'
downstream_lane='
    set -euo pipefail
    SWIFT='"$swift"' scripts/test-downstream.sh
'
start_lane release "$release_lane"
start_lane fuzz "$fuzz_lane"
start_lane downstream "$downstream_lane"

total=$SECONDS
step "module layering" scripts/check-dependencies.sh
step "debug build" "$swift" build --build-tests
debug_bin="$("$swift" build --show-bin-path)"
start_lane python "clients/python/run-tests.sh '$debug_bin'"
start_lane c "clients/c/run-tests.sh '$debug_bin' && clients/gsettings/run-tests.sh '$debug_bin'"
# The suites that block their threads on processes (fleet on etcd, the daemon's and the command's end-to-end tests)
# each in a process of their own after the rest, so that they cannot starve the unit tests' asynchronous ones of the
# cooperative pool's threads (one per core). Apart they take no longer than together (CONTRIBUTING.md).
separate_modules=(FleetTests DaemonEndToEndTests DefaultsEndToEndTests)
unit_skips=(--skip AtomicUpdateTests)
for module in "${separate_modules[@]}"; do unit_skips+=(--skip "^$module\\."); done
step "unit tests" "$swift" test --skip-build "${unit_skips[@]}"
for module in "${separate_modules[@]}"; do
    step "$module" "$swift" test --skip-build --filter "^$module\\." --skip AtomicUpdateTests
done
# The racing-process proofs check outcomes, not timing, so the documentation is built beside them. They run from the
# test executable itself: `swift test` would hold .build's lock, which the documentation build needs.
proofs_start=$SECONDS
echo "== racing-process proofs (beside the documentation)"
"$debug_bin/preferencesPackageTests.xctest" --testing-library swift-testing --filter AtomicUpdateTests \
    >"$logs/proofs.log" 2>&1 &
proofs=$!
step "documentation" make --no-print-directory docs
proofs_status=0
wait "$proofs" || proofs_status=$?
cat "$logs/proofs.log"
[ "$proofs_status" -eq 0 ] || { echo "error: the racing-process proofs failed" >&2; exit 1; }
echo "== racing-process proofs: $((SECONDS - proofs_start)) s"

# The lanes' results, in a fixed order; the first that failed fails the run.
for lane in python c release fuzz downstream; do
    waited=$SECONDS
    status=0
    wait "${lanes[$lane]}" || status=$?
    echo "== $lane lane (waited $((SECONDS - waited)) s):"
    cat "$logs/$lane.log"
    if [ "$status" -ne 0 ]; then
        echo "error: the $lane lane failed (exit status $status); its log is above and in $logs/$lane.log" >&2
        exit 1
    fi
done
trap - EXIT
echo "== make test: every step passed in $((SECONDS - total)) s"
