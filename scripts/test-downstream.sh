#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A downstream package, as a user writes one: it depends on this repository by URL
# (`.package(url: …, from: "1.0.0")`), imports `Preferences`, and its executable sets a value in a temporary
# Preferences directory, synchronizes, and reads it back in a second process. Then what that costs the user:
# the packages resolved, the modules compiled, the compile time, and the shared libraries the executable needs.
# Part of `make test` (a lane of scripts/test.sh): about 90 s of CPU, most of it the debug build of 8 modules.
#
# The URL is a `git clone --no-local` of this repository in a temporary directory, tagged 1.0.0 there, so that
# SwiftPM resolves a version offline exactly as it would from the hosted repository. The clone is the working tree
# as it would be committed: HEAD plus the uncommitted changes to tracked files and the files git does not ignore,
# so a change to Package.swift is tested before it is committed.
#
# It fails when building `Preferences` compiles any other package (SwiftNIO, swift-log, service-lifecycle …) or
# the daemon, the fleet client, `defaults`' modules or the libsystemd and OpenSSL shims, when the executable needs
# libsystemd, libssl or libcrypto, or when the build needs their pkg-config files: it runs with only libxml-2.0.pc
# visible to SwiftPM (a `pkg-config` on PATH whose search path is a directory holding a copy of that one file;
# PKG_CONFIG_LIBDIR alone does not do it, since SwiftPM asks `pkg-config --variable pc_path pkg-config`, which
# ignores it). The headers of libsystemd and OpenSSL stay in /usr/include, where no flag can hide them; that no
# compile or link command names them or their shims (the verbose build log) is checked instead. SwiftPM still warns
# about the two missing files: it looks up every system library of the graph, used or not; the count is printed.
#
# SWIFT overrides the swift command; DOWNSTREAM_KEEP=1 keeps the temporary directory and prints its path.
set -euo pipefail
cd "$(dirname "$0")/.."

swift="${SWIFT:-swift}"
fail() {
    echo "test-downstream: $*" >&2
    exit 1
}

work="$(mktemp -d "${TMPDIR:-/tmp}/preferences-downstream.XXXXXX")"
if [ "${DOWNSTREAM_KEEP:-}" = 1 ]; then
    trap 'echo "test-downstream: kept $work" >&2' EXIT
else
    trap 'rm -rf "$work"' EXIT
fi

# The repository, as a user would get it by URL, tagged 1.0.0.
repo="$work/preferences"
git clone --quiet --no-local . "$repo" || fail "git could not clone $(pwd)"
overlaid=0
while IFS= read -r -d '' path; do
    [ -e "$path" ] || [ -L "$path" ] || continue # deleted: below
    mkdir -p "$repo/$(dirname "$path")"
    cp -P "$path" "$repo/$path"
    overlaid=$((overlaid + 1))
done < <(git ls-files -z --modified --others --exclude-standard)
while IFS= read -r -d '' path; do
    rm -f "$repo/$path"
    overlaid=$((overlaid + 1))
done < <(git ls-files -z --deleted)
if [ "$overlaid" -gt 0 ]; then
    git -C "$repo" add -A
    git -C "$repo" -c user.name=downstream -c user.email=downstream@localhost commit --quiet --no-verify \
        -m "uncommitted changes" || fail "could not commit the working tree's changes in the clone"
fi
git -C "$repo" tag -f 1.0.0 >/dev/null
echo "== repository: $(git rev-parse --short HEAD) plus $overlaid uncommitted paths, tagged 1.0.0 in a clone"

# The downstream package. Its own `PreferencesError` is a name a user may well have: `Preferences::` (a module
# selector, Swift 6.3) names this package's module, which `Preferences.` cannot, since the module holds a type of
# that name (docs/PREFERENCES.md, "Module and type names").
app="$work/Downstream"
mkdir -p "$app/Sources/Downstream"
cat >"$app/Package.swift" <<EOF
// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Downstream",
    dependencies: [
        .package(url: "file://$repo", from: "1.0.0")
    ],
    targets: [
        .executableTarget(
            name: "Downstream",
            dependencies: [.product(name: "Preferences", package: "preferences")]
        )
    ],
    swiftLanguageModes: [.v6]
)
EOF
cat >"$app/Sources/Downstream/main.swift" <<'EOF'
import Preferences

/// The application's own error type, which shadows the library's.
enum PreferencesError: Error { case usage }

func run(_ arguments: [String]) throws {
    let preferences = try Preferences::Preferences(domain: "com.example.Downstream")
    switch arguments.first {
    case "set" where arguments.count == 2:
        preferences.set(arguments[1], forKey: "greeting")
        guard preferences.synchronize() else { print("synchronize failed"); return }
        print("set greeting")
    case "read":
        print("greeting = \(preferences.string(forKey: "greeting") ?? "(absent)")")
    default:
        throw PreferencesError.usage
    }
}

do {
    try run(Array(CommandLine.arguments.dropFirst()))
} catch let error as Preferences::PreferencesError {
    print("error: \(error)")
} catch {
    print("usage: Downstream set <greeting> | read")
}
EOF

# Only libxml-2.0's pkg-config file, found through a `pkg-config` that searches only the directory holding it.
real_pkg_config="$(command -v pkg-config)" || fail "pkg-config is not installed (apt-get install pkg-config)"
libxml_pc="$("$real_pkg_config" --path libxml-2.0)" || fail "libxml-2.0.pc is not found (apt-get install libxml2-dev)"
pc_dir="$work/pkgconfig"
bin_dir="$work/bin"
mkdir -p "$pc_dir" "$bin_dir"
cp "$libxml_pc" "$pc_dir/"
cat >"$bin_dir/pkg-config" <<EOF
#!/bin/sh
echo "pkg-config \$*" >>"$work/pkg-config.log"
if [ "\$*" = "--variable pc_path pkg-config" ]; then echo "$pc_dir"; exit 0; fi
PKG_CONFIG_LIBDIR="$pc_dir" exec "$real_pkg_config" "\$@"
EOF
chmod +x "$bin_dir/pkg-config"
# SwiftPM also looks in these directories whatever pkg-config says; Debian keeps neither file there.
for dir in /usr/local/lib/pkgconfig /usr/local/share/pkgconfig /usr/lib/pkgconfig /usr/share/pkgconfig; do
    for pc in libsystemd.pc openssl.pc libssl.pc libcrypto.pc; do
        [ ! -e "$dir/$pc" ] || fail "$dir/$pc is there, where SwiftPM always looks: the check cannot hide it"
    done
done
hidden=(env PATH="$bin_dir:$PATH" PKG_CONFIG_PATH="$pc_dir" PKG_CONFIG_LIBDIR="$pc_dir")

# Its own scratch path and repository cache, so that it takes no lock of the main build and leaves nothing behind.
scratch="$work/scratch"
swiftpm=(--package-path "$app" --scratch-path "$scratch" --cache-path "$work/cache" --config-path "$work/config"
    --security-path "$work/security")

# Space-separated, sorted, unique words from lines.
words() { sed '/^$/d' | sort -u | tr '\n' ' ' | sed 's/ $//'; }

start=$SECONDS
"${hidden[@]}" "$swift" package "${swiftpm[@]}" resolve >"$work/resolve.log" 2>&1 || {
    cat "$work/resolve.log" >&2
    fail "the downstream package did not resolve preferences from 1.0.0 by URL"
}
resolve_time=$((SECONDS - start))
packages="$(sed -n 's/^ *"identity" : "\(.*\)",$/\1/p' "$app/Package.resolved" | words)"
echo "== resolved in $resolve_time s: $(wc -w <<<"$packages") packages: $packages"

TIMEFORMAT='%R %U %S'
{ time "${hidden[@]}" "$swift" build "${swiftpm[@]}" -v >"$work/build.log" 2>&1; } 2>"$work/build.time" || {
    grep -E 'error:' "$work/build.log" | tail -n 30 >&2
    fail "the downstream package did not build (its log is kept with DOWNSTREAM_KEEP=1)"
}
read -r build_wall build_user build_sys <"$work/build.time"
bin="$("$swift" build "${swiftpm[@]}" --show-bin-path)"

# The modules compiled: the .build directories with object files (SwiftPM makes one for every target of the graph,
# compiled or not), each with the package its sources are in; system libraries by the module maps passed.
modules="$(cd "$bin" && for dir in *.build; do
    if compgen -G "$dir/*.o" >/dev/null; then echo "${dir%.build}"; fi
done | words)"
package_of() {
    if [ -d "$app/Sources/$1" ]; then echo Downstream; return; fi
    local dir
    for dir in "$scratch"/checkouts/*/Sources/"$1"; do
        if [ -d "$dir" ]; then basename "$(dirname "$(dirname "$dir")")"; return; fi
    done
    echo "(unknown)"
}
compiled_packages="$(for module in $modules; do package_of "$module"; done | words)"
system_modules="$(grep -o -- '-fmodule-map-file=[^ ]*' "$work/build.log" | sed 's|.*/\([^/]*\)/module\.modulemap$|\1|' |
    words)"
echo "== built in $build_wall s wall, $(awk '{print $1 + $2}' <<<"$build_user $build_sys") s CPU (debug, from an" \
    "empty scratch path): $(wc -w <<<"$modules") modules: $modules"
echo "   system library modules: ${system_modules:-none}"
echo "   packages compiled: $compiled_packages; fetched, never compiled:" \
    "$(comm -23 <(tr ' ' '\n' <<<"$packages") <(tr ' ' '\n' <<<"$compiled_packages") | words)"
# SwiftPM looks up the pkg-config file of every system library of the graph when it plans a build, compiled or
# not: with libsystemd's and OpenSSL's hidden, the build succeeds, with these warnings.
hints="$(grep -o 'you may be able to install [^ ]*' "$work/build.log" | sed 's/.* //' | words)"
echo "   SwiftPM's warnings for the hidden pkg-config files: $(grep -c 'you may be able to install' "$work/build.log" ||
    true) (${hints:-none}); nothing was compiled or linked with them"

for package in $compiled_packages; do
    case "$package" in
        Downstream | preferences) ;;
        *) fail "building Preferences compiled the package $package (modules: $modules)" ;;
    esac
done
for module in $modules $system_modules; do
    case "$module" in
        PrefsDaemon | PrefsSystemd | PrefsFleet | DefaultsCommand | CPrefsSystemd | CPrefsOpenSSL)
            fail "building Preferences compiled $module, which it does not need"
            ;;
    esac
done
if grep -E -- '-l(systemd|ssl|crypto)\b|-I[^ ]*(systemd|openssl)' "$work/build.log" >&2; then
    fail "a compile or link command of the downstream build names libsystemd or OpenSSL (above)"
fi

# What the executable needs at run time.
exe="$bin/Downstream"
needed="$(readelf -d "$exe" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | words)"
closure="$(ldd "$exe" | awk '{print $1}' | sed 's|.*/||' | words)"
echo "== $(du -k "$exe" | cut -f1) KiB executable (debug); it needs $(wc -w <<<"$needed") libraries: $needed"
echo "   with theirs, $(wc -w <<<"$closure"): $closure"
if tr ' ' '\n' <<<"$closure" | grep -E '^lib(systemd|ssl|crypto)\.' >&2; then
    fail "the downstream executable links libsystemd or OpenSSL (above)"
fi
# PrefsPlist loads libxml2 with dlopen when a document needs it (docs/PACKAGING.md, "Linking and start-up"), so it
# shows as the names of the functions it looks up, not as a library the executable needs.
grep -qaF xmlCreateMemoryParserCtxt "$exe" ||
    fail "the downstream executable does not reach libxml2: was it built from Preferences?"

# Set, synchronize, then read back in a second process, on temporary directories only and without prefsd.
prefs="$work/home/preferences"
mkdir -p "$prefs" "$work/system" "$work/domains"
run=(env PREFERENCES_HOME="$prefs" PREFERENCES_SYSTEM_DIR="$work/system" PREFERENCES_DOMAINS_DIR="$work/domains"
    PREFERENCES_DAEMON=off "$exe")
out="$("${run[@]}" set "hello from downstream")"
[ "$out" = "set greeting" ] || fail "the downstream executable's set printed \"$out\""
[ -f "$prefs/com.example.Downstream.plist" ] || fail "set and synchronize wrote no $prefs/com.example.Downstream.plist"
out="$("${run[@]}" read)"
[ "$out" = "greeting = hello from downstream" ] || fail "the second run read \"$out\", not the value the first set"
echo "== ran: set, synchronized, and a second process printed \"$out\""
echo "== downstream package: every check passed in $SECONDS s"
