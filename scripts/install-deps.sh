#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the Debian packages the build and the tests need, when they are missing. Idempotent.
#
#   scripts/install-deps.sh            the build, `make test` and `make deb`
#   scripts/install-deps.sh --bench    and the benchmarks' peers (and grpcio for fleet-scale.py's gRPC watchers)
#   scripts/install-deps.sh --system   and debootstrap, for `make test-system`
set -euo pipefail

# The static libraries of libxml2's dependencies (ICU, zlib, liblzma) link defaults and plutil fully static when
# PREFERENCES_FULLY_STATIC=1 asks for it (for measurements only); libssl-dev is the OpenSSL the etcd client's TLS
# runs on (shared, in prefsd and defaults-fleet), and openssl the
# command the fleet tests make their certificates with;
# dpkg-dev, debhelper, dh-python, pybuild-plugin-pyproject, python3-all, python3-setuptools, python3-wheel and
# bash-completion (dh_bash-completion) are the Build-Depends of debian/control beside those libraries, and file,
# man-db and lintian check the packages; python3-venv and
# python3-wheel-whl let clients/python/run-tests.sh build and install the Python client offline;
# gnustep-base-runtime is GNUstep's own `defaults`, which writes the files the `defaults migrate` tests adopt;
# etcd-server and etcd-client run the three-member cluster the fleet tests start, iproute2 the network namespaces of
# their partition tests (docs/FLEET.md), iptables (its iptables-legacy) the netfilter queue that gives a namespace's
# link its latency and loss; gcc and libc6-dev build libpreferences (clients/c), libglib2.0-dev its GIO
# module, and the GSettings tests run the real gsettings (libglib2.0-bin) on real schemas (gsettings-desktop-schemas)
# beside a real dconf (dconf-cli, dconf-service, dconf-gsettings-backend, on a dbus session bus), timed with hyperfine
# and GNU time; libncurses-dev builds the terminal browser (defaults browse), whose tests run it in a real terminal,
# tmux.
packages=(pkg-config libxml2-dev libicu-dev zlib1g-dev liblzma-dev libsystemd-dev libssl-dev openssl systemd python3
    python3-venv python3-wheel-whl util-linux valgrind binutils dpkg-dev debhelper dh-python pybuild-plugin-pyproject
    python3-all python3-setuptools python3-wheel bash-completion file man-db lintian gnustep-base-runtime etcd-server
    etcd-client iproute2 iptables gcc libc6-dev libglib2.0-dev libglib2.0-bin gsettings-desktop-schemas dconf-cli dconf-service
    dconf-gsettings-backend dbus hyperfine time libncurses-dev tmux)
case "${1:-}" in
    --bench) packages+=(redis-server redis-tools python3-grpcio) ;;
    --system) packages+=(debootstrap) ;;
esac

missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "Installing missing packages: ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "error: need root or sudo to install ${missing[*]}" >&2; exit 1; }
    sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
