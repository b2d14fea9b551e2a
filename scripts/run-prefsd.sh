#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `make run`: starts prefsd in the foreground on the default paths and says how to talk to it.
# usage: scripts/run-prefsd.sh <bin-dir>
set -euo pipefail
bin="$1"
cat <<TEXT
prefsd is starting in the foreground (Control-C stops it, after flushing every change to disk).
  socket:       ${PREFSD_SOCKET:-${XDG_RUNTIME_DIR:-/run/user/$(id -u) or /tmp/prefsd-$(id -u)}/prefsd/socket}
  preferences:  ${PREFERENCES_HOME:-${XDG_CONFIG_HOME:-$HOME/.config}/preferences}
Talk to it from another terminal:
  $bin/defaults write com.example.Editor Theme dark
  $bin/defaults read com.example.Editor
  $bin/defaults watch com.example.Editor
  python3 docs/examples/client.py        (the protocol's Python client)
TEXT
exec "$bin/prefsd"
