#!/usr/bin/env bash
# Installs the Debian packages WorkFeed builds and runs with, when any is missing, and any more
# packages named as arguments (deploy/install-test-deps.sh names the browser's).
# Used by `make demo` and `make test`; safe to run again (it installs nothing when all are there).
set -euo pipefail

# tzdata: the IANA rules Foundation's TimeZone reads (a workout's offset at its start, docs/import.md).
packages=(libzmq3-dev libsqlite3-dev libpng-dev zlib1g-dev libdeflate-dev libwebp-dev libturbojpeg0-dev libfreetype-dev libharfbuzz-dev fonts-noto-core fonts-dejavu-core tzdata pkg-config curl "$@")
missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "install-deps: run as root or install sudo: need ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"

if ! command -v swift >/dev/null 2>&1; then
  echo "install-deps: no swift on PATH: install the Swift 6 toolchain (swift.org) first" >&2
  exit 1
fi
