#!/usr/bin/env bash
# Installs the Debian 12 packages omplens needs to build, test and run.
# Idempotent: does nothing (and needs no network) when all are present.
set -euo pipefail

PACKAGES=(
  cmake make pkg-config gcc
  clang-19 clang-tools-19 libomp-19-dev libclang-19-dev libclang-rt-19-dev
  libdw-dev libelf-dev libxxhash-dev libcmark-dev libjansson-dev libcmocka-dev libzstd-dev
  openmpi-bin libopenmpi-dev
  chromium
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: run as root (or install sudo) to install: ${missing[*]}" >&2; exit 1; }
  SUDO=sudo
fi
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
