#!/usr/bin/env bash
# Installs the Debian packages the build and the tests need, when they are missing. Idempotent.
# python3-venv and python3-wheel-whl let clients/python/run-tests.sh build and install the Python client offline.
set -euo pipefail

# gnustep-base-runtime: GNUstep's own `defaults`, which writes the files the `defaults migrate` tests adopt.
# etcd-server and etcd-client: the three-member cluster the fleet tests start (docs/FLEET.md).
packages=(pkg-config libxml2-dev libsystemd-dev systemd python3 python3-venv python3-wheel-whl util-linux valgrind binutils
    gnustep-base-runtime etcd-server etcd-client)
if [ "${1:-}" = "--bench" ]; then
    packages+=(hyperfine dconf-cli dbus redis-server redis-tools)
fi

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
