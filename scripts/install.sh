#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the release build: the executables, the systemd user units and the shipped domains.
#
#   scripts/install.sh [PREFIX]          (the lead wires it as `make install PREFIX=…`; default /usr/local)
#
# PREFIX/bin/{prefsd,defaults,plutil} (built by scripts/build-release.sh; BIN_DIR=<dir> takes executables built
# already), PREFIX/libexec/preferences/defaults-fleet when the build made it (defaults finds it there, from its own
# directory), all stripped as dh_strip strips them (the debug information is most of their size); plutil and
# defaults-fleet as links to defaults and prefsd, as the build makes them,
# PREFIX/lib/systemd/user/prefsd.{socket,service} (with @BINDIR@ replaced by PREFIX/bin),
# PREFIX/share/preferences/domains/ (Domains/, dot files included, and the schemas of Domains/Schemas/ in its Schemas/), the manual pages defaults(1), plutil(1) and
# prefsd(8) and the shell completions of defaults; libpreferences (PREFIX/lib/libpreferences.so.1,
# PREFIX/include/preferences.h, PREFIX/lib/pkgconfig/preferences.pc) and the GSettings backend's GIO module. DESTDIR
# is honoured. The Debian package (`make deb`) holds the
# same files for PREFIX=/usr, but for defaults and plutil, which it installs in /usr/libexec/preferences as the
# targets of /usr/bin/defaults and /usr/bin/plutil's alternatives (docs/PACKAGING.md).
# Afterwards: `systemctl --user daemon-reload && systemctl --user enable --now prefsd.socket` (docs/DAEMON.md).
# When PREFIX is not /usr, the shipped domains are found with PREFERENCES_DOMAINS_DIR=PREFIX/share/preferences/domains
# (the service unit sets it for prefsd).
set -euo pipefail
cd "$(dirname "$0")/.."

prefix="${1:-${PREFIX:-/usr/local}}"
case "$prefix" in
    /*) ;;
    *) echo "error: PREFIX must be an absolute path, not $prefix" >&2; exit 1 ;;
esac
destdir="${DESTDIR:-}"
bin="${BIN_DIR:-$(scripts/build-release.sh)}"
for tool in prefsd defaults plutil; do
    [ -x "$bin/$tool" ] || { echo "error: $bin/$tool is missing or not executable" >&2; exit 1; }
done
command -v strip >/dev/null || { echo "error: strip is missing (apt-get install binutils)" >&2; exit 1; }

bindir="$prefix/bin"
libexecdir="$prefix/libexec/preferences"
unitdir="$prefix/lib/systemd/user"
domaindir="$prefix/share/preferences/domains"
mandir="$prefix/share/man"

install -d -m 755 "$destdir$bindir" "$destdir$unitdir" "$destdir$domaindir" "$destdir$mandir/man1" \
    "$destdir$mandir/man8" "$destdir$prefix/share/bash-completion/completions" \
    "$destdir$prefix/share/zsh/vendor-completions" "$destdir$prefix/share/fish/vendor_completions.d"
# Stripped as dh_strip does for the Debian package: the symbols and debug information go, Swift's reflection
# metadata (in allocated sections) stays.
install_executable() {
    install -m 755 "$1" "$2"
    strip --remove-section=.comment --remove-section=.note "$2"
}
# plutil and defaults-fleet are links to defaults and prefsd when the build made them so (scripts/build-release.sh:
# each is that executable run by another name), and stay links; executables built otherwise are copied.
for tool in prefsd defaults; do
    install_executable "$bin/$tool" "$destdir$bindir/$tool"
done
if [ -L "$bin/plutil" ]; then
    ln -sfn defaults "$destdir$bindir/plutil"
else
    install_executable "$bin/plutil" "$destdir$bindir/plutil"
fi
if [ -x "$bin/defaults-fleet" ]; then
    install -d -m 755 "$destdir$libexecdir"
    if [ -L "$bin/defaults-fleet" ]; then
        ln -sfn ../../bin/prefsd "$destdir$libexecdir/defaults-fleet"
    else
        install_executable "$bin/defaults-fleet" "$destdir$libexecdir/defaults-fleet"
    fi
fi
if [ -x "$bin/defaults-browse" ]; then
    install -d -m 755 "$destdir$libexecdir"
    install_executable "$bin/defaults-browse" "$destdir$libexecdir/defaults-browse"
fi
install -m 644 systemd/prefsd.socket "$destdir$unitdir/prefsd.socket"
sed "s|@BINDIR@|$bindir|g" systemd/prefsd.service > "$destdir$unitdir/prefsd.service"
chmod 644 "$destdir$unitdir/prefsd.service"
if [ "$domaindir" != "/usr/share/preferences/domains" ]; then
    # The daemon reads its own settings and serves the shipped defaults from here.
    sed -i "s|^ExecStart=.*|Environment=PREFERENCES_DOMAINS_DIR=$domaindir\n&|" "$destdir$unitdir/prefsd.service"
fi
for domain in Domains/*.plist Domains/.*.plist; do
    [ -e "$domain" ] || continue
    install -m 644 "$domain" "$destdir$domaindir/$(basename "$domain")"
done
# The shipped schemas (docs/SCHEMAS.md), in a subdirectory, so that none is taken for a domain.
install -d -m 755 "$destdir$domaindir/Schemas"
for schema in Domains/Schemas/*.schema.plist; do
    [ -e "$schema" ] || continue
    install -m 644 "$schema" "$destdir$domaindir/Schemas/$(basename "$schema")"
done

# libpreferences (clients/c): the library stripped as the executables are, its header and its pkg-config file.
libdir="$prefix/lib"
make --no-print-directory -s -C clients/c install BUILD_DIR="$PWD/.build/c" DESTDIR="$destdir" PREFIX="$prefix" \
    LIBDIR="$libdir"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$destdir$libdir/libpreferences.so.1.0.0"
# The GSettings backend (clients/gsettings): in GIO's module directory for PREFIX=/usr, else in PREFIX/lib/gio/modules,
# which GIO reads when GIO_EXTRA_MODULES names it (docs/GSETTINGS.md).
if [ "$prefix" = /usr ]; then giomoduledir="$(pkg-config --variable=giomoduledir gio-2.0)"; else giomoduledir="$libdir/gio/modules"; fi
make --no-print-directory -s -C clients/gsettings install BUILD_DIR="$PWD/.build/c" DESTDIR="$destdir" \
    GIO_MODULE_DIR="$giomoduledir"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$destdir$giomoduledir/libgiopreferences.so"

"$bin/defaults" man > "$destdir$mandir/man1/defaults.1"
install -m 644 packaging/man/plutil.1 "$destdir$mandir/man1/plutil.1"
install -m 644 packaging/man/prefsd.8 "$destdir$mandir/man8/prefsd.8"
chmod 644 "$destdir$mandir/man1/defaults.1"
"$bin/defaults" completion bash > "$destdir$prefix/share/bash-completion/completions/defaults"
"$bin/defaults" completion zsh > "$destdir$prefix/share/zsh/vendor-completions/_defaults"
"$bin/defaults" completion fish > "$destdir$prefix/share/fish/vendor_completions.d/defaults.fish"
"$bin/plutil" -completion bash > "$destdir$prefix/share/bash-completion/completions/plutil"
"$bin/plutil" -completion zsh > "$destdir$prefix/share/zsh/vendor-completions/_plutil"
"$bin/plutil" -completion fish > "$destdir$prefix/share/fish/vendor_completions.d/plutil.fish"
"$bin/prefsd" --completion bash > "$destdir$prefix/share/bash-completion/completions/prefsd"
"$bin/prefsd" --completion zsh > "$destdir$prefix/share/zsh/vendor-completions/_prefsd"
"$bin/prefsd" --completion fish > "$destdir$prefix/share/fish/vendor_completions.d/prefsd.fish"

echo "Installed prefsd, defaults and plutil in $destdir$bindir, libpreferences in $destdir$libdir, the GSettings"
echo "backend in $destdir$giomoduledir, the units in"
echo "$destdir$unitdir, the shipped"
echo "domains in $destdir$domaindir, the manual pages in $destdir$mandir and the completions in"
echo "$destdir$prefix/share. Enable the daemon with:"
echo "  systemctl --user daemon-reload && systemctl --user enable --now prefsd.socket"
