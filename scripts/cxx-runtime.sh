#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# How an executable with the static Swift runtime is linked without loading libstdc++ at start-up
# (Sources/CPrefsCxxRuntime/cxx_runtime.c, docs/PACKAGING.md "Linking and start-up"):
#
#   scripts/cxx-runtime.sh link-dir DIR      writes DIR/libstdc++.so, the linker script that names the real
#                                            libstdc++.so.6 AS_NEEDED, and prints DIR
#   scripts/cxx-runtime.sh swiftc-flags DIR  also compiles the C++ runtime functions into DIR, and prints, one per
#                                            line, the swiftc flags that link a single-file program as
#                                            scripts/build-release.sh links the executables
#
# The Swift toolchain's static-stdlib link puts -lstdc++ ahead of any --as-needed a build passes, so libstdc++ would
# stay NEEDED with none of its symbols used; the linker script, found first on the library path, makes it AS_NEEDED,
# as glibc's libc.so names the loader. scripts/build-release.sh, Benchmarks/cli-defaults.sh (its floor) and
# scripts/check-linking.sh use it. SWIFT overrides the swift command.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { echo "usage: scripts/cxx-runtime.sh link-dir|swiftc-flags DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
action="$1"
dir="$2"
[[ "$dir" == /* ]] || dir="$PWD/$dir"
mkdir -p "$dir"
echo 'INPUT(AS_NEEDED(libstdc++.so.6))' >"$dir/libstdc++.so"
case "$action" in
link-dir)
    echo "$dir"
    ;;
swiftc-flags)
    swift="${SWIFT:-swift}"
    clang="$(dirname "$(readlink -f "$(command -v "$swift")")")/clang"
    "$clang" -O2 -c -DPREFERENCES_CXX_RUNTIME_ON_DEMAND Sources/CPrefsCxxRuntime/cxx_runtime.c \
        -o "$dir/cxx_runtime.o"
    printf '%s\n' -O -static-stdlib -use-ld=lld -Xlinker --no-export-dynamic -Xlinker -z -Xlinker \
        pack-relative-relocs -L "$dir" "$dir/cxx_runtime.o"
    ;;
*) usage ;;
esac
