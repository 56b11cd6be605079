#!/usr/bin/env bash
# Installs the Debian 12 packages Libra builds with, only those missing, so a warm
# run costs nothing. Needs root (or sudo) the first time.
set -euo pipefail

packages=(
  g++ make cmake ninja-build patch tar xz-utils ca-certificates pkg-config git
  libgtest-dev libgmock-dev googletest libbenchmark-dev libhwloc-dev
  libcli11-dev nlohmann-json3-dev
  openmpi-bin libopenmpi-dev
  python3 python3-matplotlib
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-system-deps: installing ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-system-deps: run as root or install sudo" >&2; exit 1; }
  sudo=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
