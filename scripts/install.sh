#!/usr/bin/env bash
# Installs the release build: the executables, the systemd user units and the shipped domains.
#
#   scripts/install.sh [PREFIX]          (the lead wires it as `make install PREFIX=…`; default /usr/local)
#
# PREFIX/bin/{prefsd,defaults,plutil}, PREFIX/lib/systemd/user/prefsd.{socket,service} (with @BINDIR@ replaced by
# PREFIX/bin), PREFIX/share/preferences/domains/ (Domains/, dot files included). DESTDIR is honoured for packaging.
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
swift="${SWIFT:-swift}"
configuration="${CONFIGURATION:-release}"

"$swift" build -c "$configuration" --static-swift-stdlib --product prefsd
"$swift" build -c "$configuration" --static-swift-stdlib --product defaults
"$swift" build -c "$configuration" --static-swift-stdlib --product plutil
bin="$("$swift" build -c "$configuration" --static-swift-stdlib --show-bin-path)"

bindir="$prefix/bin"
unitdir="$prefix/lib/systemd/user"
domaindir="$prefix/share/preferences/domains"

install -d -m 755 "$destdir$bindir" "$destdir$unitdir" "$destdir$domaindir"
for tool in prefsd defaults plutil; do
    install -m 755 "$bin/$tool" "$destdir$bindir/$tool"
done
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

echo "Installed prefsd, defaults and plutil in $destdir$bindir, the units in $destdir$unitdir and the shipped"
echo "domains in $destdir$domaindir. Enable the daemon with:"
echo "  systemctl --user daemon-reload && systemctl --user enable --now prefsd.socket"
