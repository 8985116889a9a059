#!/bin/sh
# Makes the .deb and .rpm that carry the portable release binary (glibc >= 2.31) instead of the
# build machine's (Debian 12: glibc >= 2.35), so that they install on RHEL/Rocky/Oracle Linux 9,
# Ubuntu 20.04 and newer, and Debian 11 and newer:
#
#   scripts/package-release.sh [RELEASE_DIR [BUILD_DIR]]   (defaults: build-release, build)
#
# RELEASE_DIR holds the binary of scripts/build-release.sh; BUILD_DIR is a configured and built
# tree of this checkout, whose man page, completions and CPack configuration go in the packages.
# CPack runs there with -DROCDOC_PACKAGE_BINARY=RELEASE_DIR/rocdoc (cmake/Install.cmake), which
# is reset afterwards. The packages land in RELEASE_DIR/packages/, and are then proved: the
# packaged binary is the release binary's code (glibc floor 2.31, nothing but glibc NEEDED:
# tests/release/check-binary.py), the .rpm requires no glibc symbol version above 2.31 and the
# .deb's libc6 dependency asks for no more than 2.31. Needs cpack's DEB and RPM generators'
# tools: dpkg-deb, dpkg-shlibdeps and rpmbuild (scripts/install-test-deps.sh installs them).
set -eu
cd "$(dirname "$0")/.."
RELEASE=$(cd "${1:-build-release}" && pwd)
BUILD=$(cd "${2:-build}" && pwd)
PACKAGES="$RELEASE/packages"
[ -x "$RELEASE/rocdoc" ] || { echo "package-release: $RELEASE/rocdoc is missing (run scripts/build-release.sh)" >&2; exit 1; }

rm -rf "$PACKAGES"
mkdir -p "$PACKAGES"
cmake -S . -B "$BUILD" -DROCDOC_PACKAGE_BINARY="$RELEASE/rocdoc" >/dev/null
status=0
(cd "$PACKAGES" && cpack --config "$BUILD/CPackConfig.cmake" -B "$PACKAGES" >"$PACKAGES/cpack.log" 2>&1) || status=$?
cmake -S . -B "$BUILD" -DROCDOC_PACKAGE_BINARY= >/dev/null
rm -rf "$PACKAGES/_CPack_Packages"
if [ "$status" -ne 0 ]; then
  tail -20 "$PACKAGES/cpack.log" >&2
  exit 1
fi
python3 tests/release/check-packages.py "$PACKAGES" 2.31
