#!/usr/bin/env bash
# Builds the release executables the way they are installed and packaged, and copies them into one directory.
#
#   scripts/build-release.sh [OUTDIR]        (default .build/dist/bin; prints OUTDIR on standard output)
#
# - defaults and plutil are fully static (`-static-executable`): no dynamic loader, no shared library, so they
#   start fastest and run on any x86-64 Linux (docs/DEFAULTS.md). The static libxml2 of Debian's libxml2-dev needs
#   ICU, zlib, liblzma and the C++ runtime at link time, hence the -Xlinker libraries. They are built in their own
#   scratch path, .build-static, because the flags differ from the other builds' (the same one
#   Benchmarks/cli-defaults.sh uses).
# - prefsd links libsystemd, which Debian ships as a shared library only: the Swift runtime is linked statically
#   (`--static-swift-stdlib`) and libsystemd, libxml2 and libc stay dynamic. It is built in .build, as before.
# Used by `make build`, `make install` (scripts/install.sh) and `make deb` (scripts/build-deb.sh). SWIFT overrides
# the swift command.
set -euo pipefail
cd "$(dirname "$0")/.."

outdir="${1:-.build/dist/bin}"
swift="${SWIFT:-swift}"

static=("$swift" build -c release --static-swift-stdlib -Xswiftc -static-executable
    -Xlinker -licuuc -Xlinker -licudata -Xlinker -lz -Xlinker -llzma -Xlinker -lstdc++ -Xlinker -lm
    --scratch-path .build-static)
dynamic=("$swift" build -c release --static-swift-stdlib)

# The linker warns that getpwuid_r, dlopen and libxml2's unused network code in a static executable need the same
# glibc at run time, which a distribution has (docs/DEFAULTS.md, "Building for speed"); the warning is dropped.
quiet_static_warning() { grep -v "statically linked applications requires at runtime" >&2 || true; }

for product in defaults plutil; do
    echo "Building $product (fully static): ${static[*]} --product $product" >&2
    "${static[@]}" --product "$product" 2> >(quiet_static_warning) >&2
done
echo "Building prefsd: ${dynamic[*]} --product prefsd" >&2
"${dynamic[@]}" --product prefsd >&2

static_bin="$("${static[@]}" --show-bin-path 2>/dev/null)"
dynamic_bin="$("${dynamic[@]}" --show-bin-path 2>/dev/null)"
mkdir -p "$outdir"
install -m 755 "$static_bin/defaults" "$static_bin/plutil" "$dynamic_bin/prefsd" "$outdir/"
echo "$outdir"
