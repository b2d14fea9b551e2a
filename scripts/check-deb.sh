#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Checks the Debian packages of one build, as `make test` does after building them: every expected path is there
# with its mode, the executables run from the extracted package, they link the C libraries shared (libxml2 NEEDED or
# loaded by dlopen) and the Swift runtime statically, defaults and plutil are registered as alternatives (no file at
# /usr/bin/defaults or /usr/bin/plutil), the units name /usr/bin/prefsd, the maintainer scripts enable, stop and
# purge prefsd.socket, the Python module imports, and lintian reports no error on the .changes. Prints one line per
# check; exits 1 when one fails.
#
#   scripts/check-deb.sh CHANGES            (the .changes that scripts/build-deb.sh prints)
#
# BIN_DIR=<dir>, the executables the packages were built from: when it holds defaults-fleet, the package must too.
set -euo pipefail

# defaults and plutil link libxml2, OpenSSL and glibc shared (Package.swift): 1 fails a fully static one. 0 accepts
# one still linked fully static, as release builds were until that change.
require_dynamic=1

changes="${1:?usage: scripts/check-deb.sh CHANGES}"
[ -f "$changes" ] || { echo "error: no .changes at $changes" >&2; exit 1; }
for tool in dpkg-deb file ldd lintian readelf python3; do
    command -v "$tool" >/dev/null || { echo "error: $tool is missing; run scripts/install-deps.sh" >&2; exit 1; }
done
dir="$(dirname "$changes")"
version="$(sed -n 's/^Version: //p' "$changes")"
arch="$(dpkg --print-architecture)"
deb="$dir/preferences_${version}_${arch}.deb"
python_deb="$dir/python3-preferences_${version}_all.deb"
for package in "$deb" "$python_deb"; do
    [ -f "$package" ] || { echo "error: $package (named by $changes) is missing" >&2; exit 1; }
done

work="$(mktemp -d "${TMPDIR:-/tmp}/check-deb.XXXXXX")"
trap 'rm -rf "$work"' EXIT
dpkg-deb -R "$deb" "$work/root"
dpkg-deb -R "$python_deb" "$work/python"
root="$work/root"
libexec="usr/libexec/preferences"
failures=0
pass() { printf 'PASS  %s\n' "$*"; }
fail() { printf 'FAIL  %s\n' "$*"; failures=$((failures + 1)); }

# Paths and modes, as dpkg would install them (owner root:root for every entry).
expected=(
    "-rwxr-xr-x usr/bin/prefsd"
    "-rwxr-xr-x $libexec/defaults"
    "-rw-r--r-- usr/lib/systemd/user/prefsd.service"
    "-rw-r--r-- usr/lib/systemd/user/prefsd.socket"
    "-rw-r--r-- usr/lib/systemd/user-preset/80-preferences.preset"
    "-rw-r--r-- usr/share/preferences/domains/prefsd.plist"
    "-rw-r--r-- usr/share/preferences/domains/.GlobalPreferences.plist"
    "-rw-r--r-- usr/share/preferences/domains/Schemas/prefsd.schema.plist"
    "-rw-r--r-- usr/share/preferences/domains/Schemas/NSGlobalDomain.schema.plist"
    "-rw-r--r-- usr/share/man/man1/defaults.preferences.1.gz"
    "-rw-r--r-- usr/share/man/man1/plutil.preferences.1.gz"
    "-rw-r--r-- usr/share/man/man8/prefsd.8.gz"
    "-rw-r--r-- usr/share/bash-completion/completions/defaults"
    "-rw-r--r-- usr/share/zsh/vendor-completions/_defaults"
    "-rw-r--r-- usr/share/fish/vendor_completions.d/defaults.fish"
    "-rw-r--r-- usr/share/bash-completion/completions/plutil"
    "-rw-r--r-- usr/share/zsh/vendor-completions/_plutil"
    "-rw-r--r-- usr/share/fish/vendor_completions.d/plutil.fish"
    "-rw-r--r-- usr/share/bash-completion/completions/prefsd"
    "-rw-r--r-- usr/share/zsh/vendor-completions/_prefsd"
    "-rw-r--r-- usr/share/fish/vendor_completions.d/prefsd.fish"
    "-rw-r--r-- usr/share/doc/preferences/copyright"
    "-rw-r--r-- usr/share/doc/preferences/changelog.Debian.gz"
    "-rw-r--r-- usr/share/lintian/overrides/preferences"
    # The administrator's layers exist from the start, so that every store watches them: a forced file put there
    # later reaches running programs (a directory created after a store started would not be watched).
    "drwxr-xr-x etc/preferences/"
    "drwxr-xr-x etc/preferences/forced/"
)
tools=(prefsd defaults plutil)
# plutil and defaults-fleet are links to defaults and prefsd (each is that executable run by another name), unless
# BIN_DIR holds them as executables of their own.
if [ -n "${BIN_DIR:-}" ] && [ ! -L "$BIN_DIR/plutil" ]; then
    expected+=("-rwxr-xr-x $libexec/plutil")
else
    expected+=("lrwxrwxrwx $libexec/plutil -> defaults")
fi
if [ -n "${BIN_DIR:-}" ] && [ -L "$BIN_DIR/defaults-fleet" ]; then
    expected+=("lrwxrwxrwx $libexec/defaults-fleet -> ../../bin/prefsd")
elif [ -n "${BIN_DIR:-}" ] && [ -x "$BIN_DIR/defaults-fleet" ]; then
    expected+=("-rwxr-xr-x $libexec/defaults-fleet")
fi
if [ -e "$root/$libexec/defaults-fleet" ]; then
    tools+=(defaults-fleet)
fi
# The terminal browser, when the build made it (scripts/build-release.sh does).
if [ -n "${BIN_DIR:-}" ] && [ -x "$BIN_DIR/defaults-browse" ]; then
    expected+=("-rwxr-xr-x $libexec/defaults-browse")
fi
listing="$(dpkg-deb -c "$deb")"
missing=()
for entry in "${expected[@]}"; do
    mode="${entry%% *}"
    path="${entry#* }"
    grep -qE "^${mode//-/\\-} root/root +[0-9]+ [0-9-]+ [0-9:]+ \./${path//./\\.}$" <<< "$listing" || missing+=("$entry")
done
if [ ${#missing[@]} -eq 0 ]; then
    pass "all ${#expected[@]} expected paths, owned by root:root with their modes"
else
    fail "missing or with the wrong mode or owner: ${missing[*]}"
fi
for path in usr/bin/defaults usr/bin/plutil usr/share/man/man1/defaults.1.gz usr/share/man/man1/plutil.1.gz; do
    [ ! -e "$root/$path" ] || fail "/$path is a file of the package; it must be the alternatives' link"
done
for domain in Domains/*.plist Domains/.*.plist; do
    [ -e "$domain" ] || continue
    cmp -s "$domain" "$root/usr/share/preferences/domains/$(basename "$domain")" ||
        fail "the packaged $(basename "$domain") differs from $domain"
done
for schema in Domains/Schemas/*.schema.plist; do
    [ -e "$schema" ] || continue
    cmp -s "$schema" "$root/usr/share/preferences/domains/Schemas/$(basename "$schema")" ||
        fail "the packaged Schemas/$(basename "$schema") differs from $schema"
done

# The executables run, from the extracted package.
prefsd_version="$("$root/usr/bin/prefsd" --version 2>&1 | head -n1 || true)"
if [ "$prefsd_version" = "prefsd ${version%-*}" ]; then
    pass "prefsd --version: $prefsd_version (the package's Version: $version)"
else
    fail "prefsd --version printed '$prefsd_version'; the package's Version is $version"
fi
if "$root/$libexec/defaults" help 2>&1 | grep -q "^Command line interface to a user's defaults"; then
    pass "defaults help prints its usage"
else
    fail "defaults help: $("$root/$libexec/defaults" help 2>&1 | head -n1)"
fi
if "$root/$libexec/plutil" -help 2>&1 | grep -q "^usage: plutil"; then
    pass "plutil -help prints its usage"
else
    fail "plutil -help: $("$root/$libexec/plutil" -help 2>&1 | head -n1)"
fi
printf '{ Answer = 42; }' > "$work/sample.plist"
if [ "$("$root/$libexec/plutil" -extract Answer raw -o - "$work/sample.plist" 2>&1)" = 42 ]; then
    pass "plutil reads a property list"
else
    fail "plutil -extract on an OpenStep file: $("$root/$libexec/plutil" -extract Answer raw -o - "$work/sample.plist" 2>&1)"
fi
if [ -e "$root/$libexec/defaults-fleet" ]; then
    # defaults runs the defaults-fleet beside its own executable: without etcd endpoints, that one says so; with it
    # moved away, defaults says something else.
    with_fleet="$(env -u PREFERENCES_FLEET_ENDPOINTS "$root/$libexec/defaults" fleet list 2>&1 || true)"
    mv "$root/$libexec/defaults-fleet" "$work/defaults-fleet"
    without_fleet="$(env -u PREFERENCES_FLEET_ENDPOINTS "$root/$libexec/defaults" fleet list 2>&1 || true)"
    mv "$work/defaults-fleet" "$root/$libexec/defaults-fleet"
    if [[ "$with_fleet" == *endpoints* ]] && [ "$with_fleet" != "$without_fleet" ]; then
        pass "defaults fleet list runs $libexec/defaults-fleet: $(head -n1 <<< "$with_fleet")"
    else
        fail "defaults fleet list: '$(head -n1 <<< "$with_fleet")'; without defaults-fleet: '$(head -n1 <<< "$without_fleet")'"
    fi
fi

# Linking: the C libraries shared, the Swift runtime static (no libswift*.so). libxml2 is either NEEDED or, loaded
# with dlopen when a document needs it (PrefsPlist's LibXML2.swift), which shows as the names of the functions it
# looks up (the soname itself is short enough for Swift to keep inside the code); either way Depends must name it.
for tool in "${tools[@]}"; do
    path="$root/usr/bin/$tool"
    [ -e "$path" ] || path="$root/$libexec/$tool"
    needed="$(readelf -d "$path" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | paste -sd' ')"
    if [[ " $needed " == *" libxml2.so.2 "* ]]; then
        xml2="NEEDED"
    elif grep -qaF xmlCreateMemoryParserCtxt "$path"; then
        xml2="dlopen"
    else
        xml2=""
    fi
    if [ -z "$needed" ] && [ "$tool" != prefsd ] && [ "$require_dynamic" = 0 ]; then
        pass "$tool is fully static (accepted while require_dynamic=0 in scripts/check-deb.sh)"
    elif [[ " $needed " == *" libc.so.6 "* ]] && [[ "$needed" != *libswift* ]] &&
        { [ -n "$xml2" ] || [ "$tool" = defaults-fleet ]; } && [[ "$(ldd "$path" 2>&1)" != *"not found"* ]]; then
        pass "$tool links shared: $needed${xml2:+; libxml2.so.2: $xml2}"
    else
        fail "$tool: NEEDED '${needed:-none: statically linked}' (libc.so.6 and libxml2.so.2, NEEDED or by dlopen, expected; no libswift*); ldd: $(ldd "$path" 2>&1 | grep 'not found' | xargs)"
    fi
done
depends="$(dpkg-deb -f "$deb" Depends)"
# libstdc++ is loaded with dlopen too, when the Swift runtime first needs it (Sources/CPrefsCxxRuntime), so no
# shlibs line names it: Depends must.
if [[ "$depends" == *libsystemd0* ]] && [[ "$depends" == *libxml2* ]] && [[ "$depends" == *libssl3* ]] &&
    [[ "$depends" == *libc6* ]] && [[ "$depends" == *libstdc++6* ]] && [[ "$depends" == *init-system-helpers* ]]; then
    pass "Depends: $depends"
else
    fail "Depends lacks libsystemd0, libxml2, libssl3, libc6, libstdc++6 or init-system-helpers: $depends"
fi
conflicts="$(dpkg-deb -f "$deb" Conflicts Breaks Replaces)"
if [ -z "$conflicts" ]; then
    pass "no Conflicts, Breaks or Replaces (gnustep-base-runtime can stay installed)"
else
    fail "the package declares: $conflicts"
fi

# The alternatives: /usr/bin/defaults and /usr/bin/plutil with their manual pages as slaves, removed on removal.
for tool in defaults plutil; do
    install_line="update-alternatives --install /usr/bin/$tool $tool /$libexec/$tool "
    slave="--slave /usr/share/man/man1/$tool.1.gz $tool.1.gz /usr/share/man/man1/$tool.preferences.1.gz"
    if grep -qF -- "$install_line" "$root/DEBIAN/postinst" && grep -qF -- "$slave" "$root/DEBIAN/postinst" &&
        grep -qF -- "update-alternatives --remove $tool /$libexec/$tool" "$root/DEBIAN/prerm"; then
        pass "postinst installs the alternative /usr/bin/$tool -> /$libexec/$tool (man page slave), prerm removes it"
    else
        fail "the alternative of /usr/bin/$tool is not installed by postinst and removed by prerm"
    fi
done

# The units name the installed binary; the preset enables the socket.
service="$root/usr/lib/systemd/user/prefsd.service"
if grep -qx "ExecStart=/usr/bin/prefsd" "$service" && ! grep -q "@BINDIR@" "$service" &&
    ! grep -q "PREFERENCES_DOMAINS_DIR" "$service"; then
    pass "prefsd.service: ExecStart=/usr/bin/prefsd, no @BINDIR@ left"
else
    fail "prefsd.service: $(grep -E 'ExecStart|@BINDIR@|PREFERENCES_DOMAINS_DIR' "$service" | paste -sd' ')"
fi
if grep -qx "enable prefsd.socket" "$root/usr/lib/systemd/user-preset/80-preferences.preset"; then
    pass "the user preset enables prefsd.socket"
else
    fail "the user preset does not enable prefsd.socket"
fi
if command -v systemd-analyze >/dev/null; then
    mkdir -m 700 "$work/runtime"
    verify="$(XDG_RUNTIME_DIR="$work/runtime" systemd-analyze verify --user \
        "$root/usr/lib/systemd/user/prefsd.socket" "$root/usr/lib/systemd/user/prefsd.service" 2>&1 || true)"
    # Where the package is not installed, /usr/bin/prefsd does not exist: verify then says that, and only that.
    others="$(grep -v "^prefsd.service: Command /usr/bin/prefsd is not executable: No such file or directory$" \
        <<< "$verify" || true)"
    if [ -z "$others" ]; then
        pass "systemd-analyze verify --user: no warning about the installed units${verify:+ (but that /usr/bin/prefsd is not installed here)}"
    else
        fail "systemd-analyze verify --user: $verify"
    fi
fi

# Maintainer scripts (debhelper's, and the stop in prerm): the socket is enabled for every user on installation,
# stopped in running user managers on removal, and its state purged.
if grep -q "deb-systemd-helper --user enable 'prefsd.socket'" "$root/DEBIAN/postinst" &&
    ! grep -q "enable 'prefsd.service'" "$root/DEBIAN/postinst" &&
    grep -q "deb-systemd-helper --user purge 'prefsd.socket'" "$root/DEBIAN/postrm" &&
    grep -q "deb-systemd-invoke --user stop prefsd.socket prefsd.service" "$root/DEBIAN/prerm"; then
    pass "postinst enables prefsd.socket (only) for every user, prerm stops it, postrm purges its state"
else
    fail "the maintainer scripts do not enable, stop and purge prefsd.socket"
fi
for page in "man1/defaults.preferences.1" "man1/plutil.preferences.1" "man8/prefsd.8"; do
    warnings="$(zcat "$root/usr/share/man/$page.gz" | LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z - 2>&1 >/dev/null || true)"
    if [ -z "$warnings" ]; then
        pass "man $page renders without a warning"
    else
        fail "man $page: $warnings"
    fi
done

# python3-preferences: the module, with the package's version, imported by Debian's Python from the package.
module="$(PYTHONPATH="$work/python/usr/lib/python3/dist-packages" PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 -c \
    'import prefsd; print(prefsd.__version__, prefsd.__file__)' 2>&1 || true)"
if [ "${module%% *}" = "${version%-*}" ] && [[ "$module" == *"$work/python/usr/lib/python3/dist-packages/prefsd/"* ]]; then
    pass "python3-preferences: import prefsd gives version ${module%% *} from /usr/lib/python3/dist-packages"
else
    fail "python3-preferences: import prefsd: $module"
fi
python_depends="$(dpkg-deb -f "$python_deb" Depends)"
if [[ "$python_depends" == *python3* ]]; then
    pass "python3-preferences Depends: $python_depends"
else
    fail "python3-preferences Depends: '$python_depends' (python3 expected)"
fi

# libpreferences1 and libpreferences-dev: the shared library under its soname, the header, the link and the pkg-config
# file, in the multiarch directory; the library links nothing but libc and exports only the header's functions.
multiarch="$(dpkg-architecture -qDEB_HOST_MULTIARCH)"
for package in libpreferences1 libpreferences-dev; do
    file="$dir/${package}_${version}_${arch}.deb"
    if [ -f "$file" ]; then dpkg-deb -R "$file" "$work/$package"; else fail "$package: $file is missing"; fi
done
library="$work/libpreferences1/usr/lib/$multiarch/libpreferences.so.1"
if [ -L "$library" ] && [ -f "$library" ]; then
    soname="$(readelf -d "$library" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')"
    needed="$(readelf -d "$library" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | paste -sd' ')"
    unversioned="$(readelf --dyn-syms -W "$library" | awk '$7 != "UND" && $8 ~ /^prefs_/ && $8 !~ /@@PREFERENCES_1.0$/' | wc -l)"
    if [ "$soname" = "libpreferences.so.1" ] && [ "$needed" = "libc.so.6" ] && [ "$unversioned" -eq 0 ]; then
        pass "libpreferences1: /usr/lib/$multiarch/libpreferences.so.1 (soname $soname, needs $needed, versioned symbols)"
    else
        fail "libpreferences1: soname '$soname', needs '$needed', $unversioned unversioned symbols"
    fi
else
    fail "libpreferences1: /usr/lib/$multiarch/libpreferences.so.1 is missing"
fi
for path in usr/include/preferences.h "usr/lib/$multiarch/libpreferences.so" "usr/lib/$multiarch/pkgconfig/preferences.pc"; do
    # The link to the library is dangling here: its target is in libpreferences1.
    if [ -e "$work/libpreferences-dev/$path" ] || [ -L "$work/libpreferences-dev/$path" ]; then pass "libpreferences-dev: /$path"; else fail "libpreferences-dev: /$path is missing"; fi
done
if grep -q "^libdir=/usr/lib/$multiarch$" "$work/libpreferences-dev/usr/lib/$multiarch/pkgconfig/preferences.pc" 2>/dev/null; then
    pass "preferences.pc: libdir=/usr/lib/$multiarch"
else
    fail "preferences.pc does not name libdir=/usr/lib/$multiarch"
fi

# preferences-gsettings-backend: the GIO module in GIO's module directory, on libpreferences, exporting only the three
# functions GIO looks up.
gio_deb="$dir/preferences-gsettings-backend_${version}_${arch}.deb"
module="$work/gsettings/usr/lib/$multiarch/gio/modules/libgiopreferences.so"
if [ -f "$gio_deb" ] && dpkg-deb -R "$gio_deb" "$work/gsettings" && [ -f "$module" ]; then
    needed="$(readelf -d "$module" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | paste -sd' ')"
    exported="$(readelf --dyn-syms -W "$module" | awk '$7 != "UND" && $5 == "GLOBAL" {print $8}' | sort | paste -sd' ')"
    if [[ " $needed " == *" libpreferences.so.1 "* && " $needed " == *" libgio-2.0.so.0 "* ]] &&
        [ "$exported" = "g_io_module_load g_io_module_query g_io_module_unload" ]; then
        pass "preferences-gsettings-backend: /usr/lib/$multiarch/gio/modules/libgiopreferences.so (needs $needed; exports $exported)"
    else
        fail "preferences-gsettings-backend: the module needs '$needed' and exports '$exported'"
    fi
else
    fail "preferences-gsettings-backend: /usr/lib/$multiarch/gio/modules/libgiopreferences.so is missing"
fi

# lintian on the .changes (both packages, and the -dbgsym one): no error. The warnings it prints are the ones
# docs/PACKAGING.md accepts.
lintian_output="$(lintian --tag-display-limit 0 --show-overrides "$changes" 2>&1 || true)"
errors="$(grep -E "^E: " <<< "$lintian_output" || true)"
if [ "$require_dynamic" = 0 ]; then
    # What lintian says of a fully static defaults or plutil, accepted with it (above).
    static_errors='^E: preferences: (statically-linked-binary|embedded-library [a-z0-9]+) \[usr/libexec/preferences/(defaults|plutil)\]$'
    accepted="$(grep -E "$static_errors" <<< "$errors" || true)"
    errors="$(grep -vE "$static_errors" <<< "$errors" || true)"
    [ -z "$accepted" ] || echo "      accepted while require_dynamic=0: $(sed 's/^E: preferences: //' <<< "$accepted" | paste -sd';' | sed 's/;/; /g')"
fi
if [ -z "$errors" ]; then
    pass "lintian: no error ($(grep -c "^W: " <<< "$lintian_output" || true) warnings, $(grep -c "^O: " <<< "$lintian_output" || true) overridden)"
    grep -E "^(W|O): " <<< "$lintian_output" | sed 's/^/      /' || true
else
    fail "lintian errors:"
    sed 's/^/      /' <<< "$errors"
fi

if [ "$failures" -ne 0 ]; then
    echo "$failures package check(s) failed"
    exit 1
fi
echo "the packages of $(basename "$changes") are complete"
