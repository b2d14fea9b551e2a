#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the Debian packages of Preferences for Linux (preferences, python3-preferences) from debian/ with
# dpkg-buildpackage, and copies them with their .changes and .buildinfo to OUTDIR.
#
#   scripts/build-deb.sh [OUTDIR]           (`make deb`; default OUTDIR .build/deb; prints the .changes' path)
#
# The executables come from scripts/build-release.sh, run in this tree so that its release build is reused (BIN_DIR=
# <dir> takes executables built already); debian/rules gets them as PREFERENCES_PREBUILT_BIN and does not build them
# again. dpkg-buildpackage runs in a copy of the source tree (the files git tracks or would track, as they are in the
# working tree, without .build): its leftovers stay out of the working tree, and its results out of the parent
# directory, where dpkg-buildpackage writes them. PREFERENCES_DEB_COMPRESSION sets dpkg-deb's compression (default
# xz -6; `make test` uses the faster -Zgzip -z1). What goes where, and why: docs/PACKAGING.md.
set -euo pipefail
cd "$(dirname "$0")/.."

outdir="${1:-.build/deb}"
for tool in dpkg-buildpackage dh dh_python3 dh_bash-completion; do
    command -v "$tool" >/dev/null || { echo "error: $tool is missing; run scripts/install-deps.sh" >&2; exit 1; }
done

bin="${BIN_DIR:-$(scripts/build-release.sh)}"
for tool in defaults plutil prefsd; do
    [ -x "$bin/$tool" ] || { echo "error: $bin/$tool is missing or not executable" >&2; exit 1; }
done
bin="$(cd "$bin" && pwd)"

work="$(mktemp -d "${TMPDIR:-/tmp}/build-deb.XXXXXX")"
trap 'rm -rf "$work"' EXIT
source_dir="$work/preferences"
mkdir "$source_dir"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    # Tracked and untracked files that .gitignore does not exclude; not those deleted in the working tree.
    git ls-files -z --cached --others --exclude-standard |
        while IFS= read -r -d '' path; do [ -e "$path" ] && printf '%s\0' "$path"; done |
        tar --null --no-recursion -T - -cf - | tar -C "$source_dir" -xf -
else
    tar --exclude=./.build -cf - . | tar -C "$source_dir" -xf -
fi

echo "Building the Debian packages with dpkg-buildpackage -us -uc -b, executables from $bin" >&2
(cd "$source_dir" && PREFERENCES_PREBUILT_BIN="$bin" dpkg-buildpackage -us -uc -b) >&2 ||
    { echo "error: dpkg-buildpackage failed (its output is above)" >&2; exit 1; }

changes=("$work"/preferences_*.changes)
[ -f "${changes[0]}" ] || { echo "error: dpkg-buildpackage made no .changes in $work" >&2; exit 1; }
mkdir -p "$outdir"
# The files of an earlier build, whatever its version, would be mistaken for this one's.
rm -f "$outdir"/preferences_* "$outdir"/preferences-dbgsym_* "$outdir"/python3-preferences_*
for file in "$work"/*.deb "$work"/*.ddeb "$work"/*.changes "$work"/*.buildinfo; do
    [ -e "$file" ] && cp "$file" "$outdir/"
done
echo "$outdir/$(basename "${changes[0]}")"
