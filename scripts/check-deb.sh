#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Checks the Debian package's contents, as `make test` does after `make deb`: every expected path is there with
# its mode, the executables run, defaults and plutil are fully static, the units name /usr/bin, the maintainer
# scripts and control fields are right, and lintian reports no error. Prints one line per check; exits 1 when one
# fails.
#
#   scripts/check-deb.sh DEB
set -euo pipefail

deb="${1:?usage: scripts/check-deb.sh DEB}"
[ -f "$deb" ] || { echo "error: no package at $deb" >&2; exit 1; }
for tool in dpkg-deb file ldd lintian; do
    command -v "$tool" >/dev/null || { echo "error: $tool is missing; run scripts/install-deps.sh" >&2; exit 1; }
done

work="$(mktemp -d "${TMPDIR:-/tmp}/check-deb.XXXXXX")"
trap 'rm -rf "$work"' EXIT
dpkg-deb -R "$deb" "$work/root"
root="$work/root"
failures=0
pass() { printf 'PASS  %s\n' "$*"; }
fail() { printf 'FAIL  %s\n' "$*"; failures=$((failures + 1)); }

# Paths and modes, as dpkg would install them (owner root:root for every entry: --root-owner-group).
expected=(
    "-rwxr-xr-x usr/bin/defaults"
    "-rwxr-xr-x usr/bin/plutil"
    "-rwxr-xr-x usr/bin/prefsd"
    "-rw-r--r-- usr/lib/systemd/user/prefsd.service"
    "-rw-r--r-- usr/lib/systemd/user/prefsd.socket"
    "-rw-r--r-- usr/lib/systemd/user-preset/80-preferences.preset"
    "-rw-r--r-- usr/share/preferences/domains/prefsd.plist"
    "-rw-r--r-- usr/share/preferences/domains/.GlobalPreferences.plist"
    "-rw-r--r-- usr/share/man/man1/defaults.1.gz"
    "-rw-r--r-- usr/share/man/man1/plutil.1.gz"
    "-rw-r--r-- usr/share/man/man8/prefsd.8.gz"
    "-rw-r--r-- usr/share/bash-completion/completions/defaults"
    "-rw-r--r-- usr/share/zsh/vendor-completions/_defaults"
    "-rw-r--r-- usr/share/fish/vendor_completions.d/defaults.fish"
    "-rw-r--r-- usr/share/doc/preferences/copyright"
    "-rw-r--r-- usr/share/doc/preferences/changelog.Debian.gz"
    "-rw-r--r-- usr/share/lintian/overrides/preferences"
)
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
for domain in Domains/*.plist Domains/.*.plist; do
    [ -e "$domain" ] || continue
    cmp -s "$domain" "$root/usr/share/preferences/domains/$(basename "$domain")" ||
        fail "the packaged $(basename "$domain") differs from $domain"
done

# The executables run, from the extracted package.
version="$("$root/usr/bin/prefsd" --version 2>&1 || true)"
control_version="$(dpkg-deb -f "$deb" Version)"
if [ "$version" = "prefsd ${control_version%-*}" ]; then
    pass "prefsd --version: $version (the package's Version: $control_version)"
else
    fail "prefsd --version printed '$version'; the package's Version is $control_version"
fi
if "$root/usr/bin/defaults" help 2>&1 | grep -q "^Command line interface to a user's defaults"; then
    pass "defaults help prints its usage"
else
    fail "defaults help: $("$root/usr/bin/defaults" help 2>&1 | head -n1)"
fi
if "$root/usr/bin/plutil" -help 2>&1 | grep -q "^usage: plutil"; then
    pass "plutil -help prints its usage"
else
    fail "plutil -help: $("$root/usr/bin/plutil" -help 2>&1 | head -n1)"
fi
printf '{ Answer = 42; }' > "$work/sample.plist"
if [ "$("$root/usr/bin/plutil" -extract Answer raw -o - "$work/sample.plist" 2>&1)" = 42 ]; then
    pass "plutil reads a property list (libxml2, ICU and zlib linked in)"
else
    fail "plutil -extract on an OpenStep file: $("$root/usr/bin/plutil" -extract Answer raw -o - "$work/sample.plist" 2>&1)"
fi

# defaults and plutil are fully static; prefsd links only shared libraries the package depends on.
for tool in defaults plutil; do
    description="$(file -b "$root/usr/bin/$tool")"
    loader="$(ldd "$root/usr/bin/$tool" 2>&1 || true)"
    if [[ "$description" == *"statically linked"* ]] && [[ "$loader" == *"not a dynamic executable"* ]]; then
        pass "$tool is fully static (file: ${description%%,*}, …statically linked; ldd: $(echo "$loader" | xargs))"
    else
        fail "$tool is not fully static: file says '$description', ldd says '$loader'"
    fi
done
depends="$(dpkg-deb -f "$deb" Depends)"
if [[ "$depends" == *libsystemd0* ]] && [[ "$depends" == *libxml2* ]] && [[ "$depends" == *libssl3* ]] &&
    [[ "$depends" == *libc6* ]] && [[ "$depends" == *init-system-helpers* ]]; then
    pass "Depends: $depends"
else
    fail "Depends lacks libsystemd0, libxml2, libssl3, libc6 or init-system-helpers: $depends"
fi
unresolved="$(ldd "$root/usr/bin/prefsd" | grep -E "not found|libswift" || true)"
if [ -z "$unresolved" ]; then
    pass "prefsd links the Swift runtime statically: $(ldd "$root/usr/bin/prefsd" | awk '{print $1}' | paste -sd' ')"
else
    fail "prefsd: $unresolved"
fi

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

# Maintainer scripts: the socket is enabled for every user on install and cleaned up on purge.
if grep -q "deb-systemd-helper --user enable prefsd.socket" "$root/DEBIAN/postinst" &&
    grep -q "deb-systemd-helper --user purge prefsd.socket" "$root/DEBIAN/postrm" &&
    grep -q "deb-systemd-invoke --user stop prefsd.socket prefsd.service" "$root/DEBIAN/prerm"; then
    pass "postinst enables prefsd.socket for every user, prerm stops it, postrm purges its state"
else
    fail "the maintainer scripts do not enable, stop and purge prefsd.socket"
fi
for page in "man1/defaults.1" "man1/plutil.1" "man8/prefsd.8"; do
    warnings="$(zcat "$root/usr/share/man/$page.gz" | LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z - 2>&1 >/dev/null || true)"
    if [ -z "$warnings" ]; then
        pass "man $page renders without a warning"
    else
        fail "man $page: $warnings"
    fi
done

# lintian: no error (and the warnings it prints are the ones docs/PACKAGING.md accepts).
lintian_output="$(lintian --no-tag-display-limit --show-overrides "$deb" 2>&1 || true)"
errors="$(grep -E "^E: " <<< "$lintian_output" || true)"
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
echo "the package $(basename "$deb") is complete"
