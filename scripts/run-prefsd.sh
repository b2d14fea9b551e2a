#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `make run`: starts prefsd in the foreground on the default paths and says how to talk to it.
# usage: scripts/run-prefsd.sh <bin-dir>
set -euo pipefail
bin="$1"
# From a clone nothing is installed in /usr/share/preferences/domains: serve the repository's shipped domains (prefsd's
# own settings, the global domain's locale), so that `defaults explain prefsd FlushDelay` and `defaults explain -g
# AppleLocale` find them as they do once the package is installed.
# A defaults run without the same variable would be told, on every command, that prefsd's shipped domains are not
# the ones it looks for: the commands below carry it.
environment=""
if [ -z "${PREFERENCES_DOMAINS_DIR:-}" ] && [ ! -d /usr/share/preferences/domains ]; then
    PREFERENCES_DOMAINS_DIR="$(cd "$(dirname "$0")/.." && pwd)/Domains"
    export PREFERENCES_DOMAINS_DIR
    environment="export PREFERENCES_DOMAINS_DIR=$PREFERENCES_DOMAINS_DIR"$'\n  '
fi
cat <<TEXT
prefsd is starting in the foreground (Control-C stops it, after flushing every change to disk).
  socket:       ${PREFSD_SOCKET:-${XDG_RUNTIME_DIR:-/run/user/$(id -u) or /tmp/prefsd-$(id -u)}/prefsd/socket}
  preferences:  ${PREFERENCES_HOME:-${XDG_CONFIG_HOME:-$HOME/.config}/preferences}
  shipped:      ${PREFERENCES_DOMAINS_DIR:-/usr/share/preferences/domains}
Talk to it from another terminal:
  ${environment}$bin/defaults write com.example.Editor Theme dark
  $bin/defaults read com.example.Editor
  $bin/defaults watch com.example.Editor
  python3 docs/examples/client.py        (the protocol's Python client)
TEXT
exec "$bin/prefsd"
