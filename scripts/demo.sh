#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The main job until the daemon exists: plutil on a sample property list, step by step.
# usage: scripts/demo.sh <bin-dir>
set -euo pipefail
bin="$1"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cat > "$work/Sample.plist" <<'PLIST'
{
    Name = "Preferences for Linux";
    Window = { Frame = "{{0, 0}, {800, 600}}"; Maximized = NO; };
    Recent = ( "~/notes.txt", "~/todo.md" );
    Icon = <89504e47>;
}
PLIST
step() { printf '\n$ %s\n' "$*"; "$@"; }
cd "$work"
step "$bin/plutil" -lint Sample.plist
step "$bin/plutil" -convert xml1 -o Sample.xml Sample.plist
step cat Sample.xml
step "$bin/plutil" -convert binary1 Sample.xml
step "$bin/plutil" -p Sample.xml
step "$bin/plutil" -extract Window.Frame raw Sample.xml
step "$bin/plutil" -convert json -r -o - Sample.xml
