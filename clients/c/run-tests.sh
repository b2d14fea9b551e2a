#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds libpreferences and its C tests and runs them against the real prefsd and defaults of a build.
# usage: clients/c/run-tests.sh <bin-dir>   (<bin-dir>: "$(swift build --show-bin-path)"; `make test` runs it)
# Also checks that the library exports exactly the functions its header declares, versioned, and builds the
# examples of docs/examples (the Rust one when rustc is on the machine) and runs them against a prefsd.
set -euo pipefail

bin_dir="${1:?usage: $0 <bin-dir with prefsd and defaults>}"
bin_dir="$(cd "$bin_dir" && pwd)"
package_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repository="$(cd "$package_dir/../.." && pwd)"
build_dir="${PREFERENCES_C_BUILD_DIR:-$repository/.build/c}"
# Absolute: the Makefiles run in their own directories.
case "$build_dir" in /*) ;; *) build_dir="$repository/$build_dir" ;; esac
started=$SECONDS
# The tests below give prefsd a home of their own; rustup keeps finding its toolchains in the real one.
export RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}" CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}"

make --no-print-directory -s -C "$package_dir" BUILD_DIR="$build_dir" tests

# The exported symbols are the header's functions, each at version PREFERENCES_1.0, and the soname is versioned.
exported="$(nm -D --defined-only "$build_dir/libpreferences.so.1" | awk '$3 != "PREFERENCES_1.0" {print $3}' | sort)"
declared="$(grep -oE '\bprefs_[a-z0-9_]+\(' "$package_dir/include/preferences.h" | tr -d '(' | sed 's/$/@@PREFERENCES_1.0/' | sort -u)"
if [ "$exported" != "$declared" ]; then
    echo "error: libpreferences exports other symbols than its header declares:" >&2
    diff <(echo "$declared") <(echo "$exported") >&2 || true
    exit 1
fi
soname="$(objdump -p "$build_dir/libpreferences.so.1" | awk '$1 == "SONAME" {print $2}')"
[ "$soname" = "libpreferences.so.1" ] || { echo "error: the soname is '$soname'" >&2; exit 1; }

export PREFSD_BIN_DIR="$bin_dir" PREFSD_REPOSITORY="$repository"
for test in "$build_dir"/tests/test-*; do
    "$test"
done

# The examples, built as a user builds them (pkg-config), against a prefsd of their own.
work="$(mktemp -d "${TMPDIR:-/tmp}/prefs-c-examples.XXXXXX")"
prefsd_pid=""
cleanup() {
    if [ -n "$prefsd_pid" ]; then kill -KILL "$prefsd_pid" 2>/dev/null; wait "$prefsd_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
export PKG_CONFIG_PATH="$build_dir"
# shellcheck disable=SC2046
cc -std=c11 -Wall -Wextra -Werror "$repository/docs/examples/preferences-example.c" \
    $(pkg-config --cflags --libs preferences) -Wl,-rpath,"$build_dir" -o "$work/preferences-example"
mkdir -m 0700 "$work/runtime"
mkdir "$work/preferences"
export PREFERENCES_HOME="$work/preferences" XDG_RUNTIME_DIR="$work/runtime" PREFSD_SOCKET="$work/runtime/socket"
export PREFERENCES_SYSTEM_DIR="$work/system" PREFERENCES_DOMAINS_DIR="$repository/Domains" HOME="$work"
unset LISTEN_FDS LISTEN_PID NOTIFY_SOCKET
"$bin_dir/prefsd" >"$work/prefsd.log" 2>&1 &
prefsd_pid=$!
for _ in $(seq 1000); do [ -S "$PREFSD_SOCKET" ] && break; sleep 0.01; done
output="$("$work/preferences-example" com.example.c-example)"
expected=$'greeting = hello (from the app layer)\nchanged: launches = 1'
[ "$output" = "$expected" ] || { echo "error: the C example printed:"; echo "$output"; exit 1; } >&2
# A rustup without a default toolchain still has its stable one.
rustc=()
if rustc --version >/dev/null 2>&1; then rustc=(rustc)
elif rustup run stable rustc --version >/dev/null 2>&1; then rustc=(rustup run stable rustc)
fi
if [ ${#rustc[@]} -gt 0 ]; then
    "${rustc[@]}" --edition 2021 -O "$repository/docs/examples/preferences-example.rs" -L "$build_dir" -l preferences \
        -C link-args="-Wl,-rpath,$build_dir" -o "$work/preferences-example-rs"
    output="$("$work/preferences-example-rs" com.example.rust)"
    [ "$output" = "answer = 42" ] || { echo "error: the Rust example printed: $output" >&2; exit 1; }
    [ "$("$bin_dir/defaults" read com.example.rust answer)" = "42" ] || { echo "error: defaults disagrees" >&2; exit 1; }
    echo "C client: the Rust example ran"
else
    echo "C client: no working rustc on this machine; the Rust example was not built"
fi
echo "C client: tests passed in $((SECONDS - started)) s"
