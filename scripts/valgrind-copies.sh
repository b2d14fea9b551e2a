# SPDX-License-Identifier: Apache-2.0
# Sourced by the scripts that run the release executables under valgrind (instruction-counts.sh,
# update-symbol-order.sh), with `bin` naming the directory of the executables. Makes `work`, a temporary directory
# removed on exit, together with the prefsd whose process identifier the script keeps in `daemon_pid`; copies the
# executables there without debug information (valgrind 3.19 cannot read the DWARF 5 of the larger ones) and points
# `bin` at the copies.
work="$(mktemp -d)"
daemon_pid=""
cleanup() {
    [ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
for tool in plutil defaults prefsd; do objcopy --strip-debug "$bin/$tool" "$work/$tool"; done
bin="$work"
