#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the release executables the way they are installed and packaged, and copies them into one directory.
#
#   scripts/build-release.sh [OUTDIR]        (default .build/dist/bin; prints OUTDIR on standard output)
#
# One release build in .build, with the Swift runtime linked statically (`--static-swift-stdlib`) and every C library
# dynamically: libc, libm, libsystemd (prefsd), and, loaded only when needed (docs/PACKAGING.md), libstdc++ (the Swift
# runtime's), OpenSSL (a fleet over https) and libxml2 (a document the Swift reader leaves to it), so that Debian's
# security updates of those libraries reach the installed tools. PREFERENCES_FULLY_STATIC=1 makes defaults (and so
# plutil) fully static instead, only to measure what dynamic linking costs (Package.swift).
# Two executables, sharing every compiled module: defaults, which is plutil when run by that name, and prefsd, which
# is defaults-fleet (the etcd actions `defaults fleet` runs, docs/FLEET.md) when run by that name; OUTDIR gets plutil
# and defaults-fleet as links to them. So defaults links no SwiftNIO and no OpenSSL, and the package holds one copy
# of each.
# Used by `make build`, `make install` (scripts/install.sh), `make deb` (debian/rules) and the benchmarks.
# SWIFT overrides the swift command; RELEASE_SCRATCH_PATH the build directory (default .build), so that `make test`
# can build the release executables beside its debug build and tests, which hold .build's lock; RELEASE_SWIFT_FLAGS
# adds compiler flags (`make test` passes -gnone: no debug information, 8 % less compile time).
set -euo pipefail
cd "$(dirname "$0")/.."

outdir="${1:-.build/dist/bin}"
swift="${SWIFT:-swift}"
build=("$swift" build -c release --static-swift-stdlib --scratch-path "${RELEASE_SCRATCH_PATH:-.build}")
# Concrete generic types (a `[String: String]`'s storage, say) get their metadata from accessor calls that pass the
# conformances along, not by demangling a name at run time: demangling looks each conformance up by a linear scan of
# every conformance in the executable (3,500 in defaults, about 150,000 instructions per scan), which was a third of
# a `defaults read`'s instructions. A frontend flag, so set here and not in Package.swift (unsafe flags there would
# keep other packages from depending on the libraries); the executables' code grows by half a percent.
build+=(-Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors)
# No run-time exclusivity checks in the shipped executables: each `inout` access to a class's stored property (NIO's
# handlers and buffers, the daemon's connection state) was checked at run time, 9 % of prefsd's instructions per
# request, and the checks keep the optimizer from merging accesses. The compile-time checks stay, and the debug
# builds that run the tests and the fuzz harnesses keep the run-time ones, so an overlapping access traps there.
build+=(-Xswiftc -enforce-exclusivity=unchecked)
# The functions a command runs, laid out together: each function in a section of its own (also in the C targets), and
# lld places those that scripts/symbol-order.txt lists first, in its order. The code a `defaults read` runs lay in
# about a hundred scattered 64 KiB stretches, 37 so ordered; each page fault costs microseconds (docs/DEFAULTS.md,
# "The pages a command touches"). Names the list lacks, or that an executable does not have, keep their usual place
# (scripts/update-symbol-order.sh rewrites it).
# Swift's Linux toolchains ship lld beside swift; without it the executables are linked as before, only slower to start.
swift_bin="$(dirname "$(readlink -f "$(command -v "$swift")")")"
if [ -x "$swift_bin/ld.lld" ] || command -v ld.lld >/dev/null; then
    build+=(-Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections -Xcc -fdata-sections)
    build+=(-Xswiftc -use-ld=lld -Xlinker "--symbol-ordering-file=$PWD/scripts/symbol-order.txt")
    build+=(-Xlinker --no-warn-symbol-ordering)
else
    echo "warning: ld.lld is not beside $swift or on PATH: the executables keep the default code layout" >&2
fi
# What a dynamically linked executable costs at start-up, kept small (docs/PACKAGING.md, "Linking"):
# - no exported symbols: the Swift toolchain's static-stdlib link exports every symbol of the executable
#   (`-export-dynamic`), 1.3 MB of symbol tables nothing looks up, since no plugin is loaded into these tools;
# - relative relocations packed (DT_RELR, glibc 2.36): a position-independent executable has tens of thousands, a
#   table of 1.1 MB unpacked;
# - only the libraries a symbol is taken from are loaded (`--as-needed`): libxml2, reached through dlopen, is not
#   one of them.
# - no `$ORIGIN` run path, which SwiftPM adds for libraries built beside an executable (there are none): with it
#   the loader looked for each shared library in seven directories beside the executable first, 20 failed system
#   calls per start.
build+=(-Xlinker --no-export-dynamic -Xlinker -z -Xlinker pack-relative-relocs -Xlinker --as-needed)
build+=(--disable-local-rpath)
# libstdc++ not loaded at start-up: the static Swift runtime's everyday C++ runtime functions (operator new, the guards
# of function-local statics) come from Sources/CPrefsCxxRuntime, and the rest from libstdc++, loaded with dlopen the
# first time one is called. Loading it at start-up cost two thirds of a `defaults read`'s instructions. A fully static
# build links libstdc++ itself.
# The linker script of scripts/cxx-runtime.sh makes libstdc++ AS_NEEDED, which the toolchain's -lstdc++ is not.
if [ "${PREFERENCES_FULLY_STATIC:-}" != 1 ]; then
    link_dir="$(scripts/cxx-runtime.sh link-dir "${RELEASE_SCRATCH_PATH:-.build}/link")"
    build+=(-Xcc -DPREFERENCES_CXX_RUNTIME_ON_DEMAND -Xswiftc -L -Xswiftc "$link_dir")
fi
for flag in ${RELEASE_SWIFT_FLAGS:-}; do build+=(-Xswiftc "$flag"); done

# The linker warns that getpwuid_r, dlopen and libxml2's unused network code in a static executable need the same
# glibc at run time, which a distribution has (docs/DEFAULTS.md, "Building for speed"); the warning is dropped.
quiet_static_warning() { grep -v "statically linked applications requires at runtime" >&2 || true; }

# SwiftPM compiles again when sources change, not when these flags do: a build made with other flags is removed, so
# that every module is compiled with these. Nor does it see the symbol order as an input: executables linked before
# the list changed are linked again.
bin="$("${build[@]}" --show-bin-path 2>/dev/null)"
stamp="$bin.flags"
if [ -d "$bin" ] && [ "$(cat "$stamp" 2>/dev/null)" != "${build[*]}" ]; then
    echo "The release build in $bin was made with other flags; building it again." >&2
    rm -rf "$bin"
fi
# defaults-browse is the terminal browser (`defaults browse`), with ncurses: its own executable, so that defaults
# loads no ncurses.
products=(defaults prefsd defaults-browse)
for product in "${products[@]}"; do
    if [ "$bin/$product" -ot scripts/symbol-order.txt ]; then rm -f "$bin/$product"; fi
done

for product in "${products[@]}"; do
    echo "Building $product: ${build[*]} --product $product" >&2
    "${build[@]}" --product "$product" 2> >(quiet_static_warning) >&2
done

echo "${build[*]}" >"$stamp"
mkdir -p "$outdir"
for product in "${products[@]}"; do
    rm -f "$outdir/$product"
    install -m 755 "$bin/$product" "$outdir/"
done
# plutil is defaults run by that name, defaults-fleet is prefsd run by that name (their main.swift): links, so that
# the package carries the Swift runtime, SwiftNIO and the etcd client once each.
ln -sfn defaults "$outdir/plutil"
ln -sfn prefsd "$outdir/defaults-fleet"
echo "$outdir"
