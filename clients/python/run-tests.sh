#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Tests the Python client package against the real prefsd and defaults of a build.
# usage: clients/python/run-tests.sh <bin-dir> [unittest options, e.g. -k restart]
#        (<bin-dir>: "$(swift build --show-bin-path)"; `make test` runs it)
# Makes a virtual environment in a temporary directory, installs the package into it with pip (offline: the
# build backend comes from Debian's python3-setuptools-whl and python3-wheel-whl), and runs the unittest suite
# in clients/python/tests from outside the source tree, so the installed package is the one tested.
set -euo pipefail

bin_dir="${1:?usage: $0 <bin-dir with prefsd and defaults>}"
bin_dir="$(cd "$bin_dir" && pwd)"
shift
for program in prefsd defaults; do
    [ -x "$bin_dir/$program" ] || { echo "error: $bin_dir/$program is missing; build first" >&2; exit 1; }
done
package_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# Debian's own Python: its venv module and the wheels in /usr/share/python-wheels belong together.
python="${PREFSD_TEST_PYTHON:-/usr/bin/python3}"
wheels="${PREFSD_TEST_WHEELS:-/usr/share/python-wheels}"

work="$(mktemp -d "${TMPDIR:-/tmp}/prefsd-python-tests.XXXXXX")"
trap 'rm -rf "$work"' EXIT

started=$SECONDS
"$python" -m venv "$work/venv"
# Built from a copy, so that the build leaves nothing (build/, *.egg-info) in the source tree.
cp -R "$package_dir/pyproject.toml" "$package_dir/README.md" "$package_dir/src" "$work/"
"$work/venv/bin/pip" install --quiet --no-index --find-links "$wheels" "$work" \
    || { echo "error: pip could not install the package (are python3-venv and python3-wheel-whl installed?)" >&2; exit 1; }
echo "python client: installed prefsd $("$work/venv/bin/python" -c 'import prefsd; print(prefsd.__version__)') into a virtual environment ($((SECONDS - started)) s)"

cp -R "$package_dir/tests" "$work/tests"
cd "$work/tests"
PREFSD_BIN_DIR="$bin_dir" PREFSD_REPOSITORY="$(cd "$package_dir/../.." && pwd)" PYTHONDONTWRITEBYTECODE=1 \
    "$work/venv/bin/python" -m unittest discover --start-directory . --pattern 'test_*.py' "$@"
echo "python client: tests passed in $((SECONDS - started)) s"
