#!/bin/sh
# Installs what building rocdoc needs on Debian 12 (bookworm). No ROCm runtime, no torch.
set -eu
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
  g++ cmake ninja-build pkg-config \
  libcli11-dev libfmt-dev nlohmann-json3-dev libyaml-cpp-dev libpci-dev libarchive-dev zlib1g-dev libzstd-dev libre2-dev catch2 pci.ids
