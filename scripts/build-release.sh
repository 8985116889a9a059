#!/bin/sh
# Builds the portable release binary of rocdoc: inside a Debian 11 (bullseye, glibc 2.31) root made
# with debootstrap from Debian's archive, with that root's own packages only: gcc 10, CMake 3.18,
# fmt 7.1, nlohmann-json 3.9 and the static yaml-cpp 0.6, libarchive 3.4, zlib, zstd and RE2. CLI11 is
# the vendored copy (third_party/CLI11: Debian 11 packages none). The result needs glibc >= 2.31
# and nothing but glibc (libc, libdl, libpthread) at run time:
#
#   OUT/rocdoc        stripped, with a .gnu_debuglink to
#   OUT/rocdoc.debug  its debug information
#
# Then it proves the binary: its glibc symbol versions and NEEDED list (tests/release/check-binary.py);
# inside the bullseye root, `check` on a fixture and on that root's own tree, and a snapshot written
# and read back; and, given a REFERENCE binary (the build the test suite checked), the same report
# as the reference's on every fixture (tests/release/compare-verdicts.py).
#
# Usage: scripts/build-release.sh [OUT [REFERENCE]]     (default OUT: build-release). Needs root
# (debootstrap, chroot) and the Debian archive. The bullseye root is kept in OUT/bullseye-root and
# reused.
#        scripts/build-release.sh --root-only [OUT]      makes the bullseye root and stops: CI makes
# it beside the first build (debootstrap waits on the network and the disk more than on the CPU).
set -eu
cd "$(dirname "$0")/.."
ROOT_ONLY=false
if [ "${1:-}" = "--root-only" ]; then
  ROOT_ONLY=true
  shift
fi
OUT=$(mkdir -p "${1:-build-release}" && cd "${1:-build-release}" && pwd)
ROOT="$OUT/bullseye-root"
REFERENCE="${2:-}"
MIRROR="${ROCDOC_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
start=$(date +%s)
step() { echo "::: release: $* ($(($(date +%s) - start)) s)"; }

# The host's tools: debootstrap makes the root, dpkg-deb unpacks the header packages.
if ! command -v debootstrap >/dev/null; then
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap
fi

if [ ! -x "$ROOT/usr/bin/cmake" ]; then
  step "debootstrap bullseye into $ROOT"
  $SUDO rm -rf "$ROOT"
  $SUDO debootstrap --variant=minbase \
    --include=g++,make,cmake,ninja-build,pkg-config,binutils,libfmt-dev,nlohmann-json3-dev,libyaml-cpp-dev,libpci-dev,libarchive-dev,zlib1g-dev,libzstd-dev,nettle-dev,libre2-dev \
    bullseye "$ROOT" "$MIRROR" >"$OUT/debootstrap.log" 2>&1 || {
    tail -20 "$OUT/debootstrap.log"
    exit 1
  }
fi
if [ "$ROOT_ONLY" = true ]; then
  step "the bullseye root is ready in $ROOT"
  exit 0
fi

step "build dependencies in the bullseye root"
$SUDO chroot "$ROOT" sh -c 'export DEBIAN_FRONTEND=noninteractive; apt-get install -y -qq --no-install-recommends \
  g++ make cmake ninja-build pkg-config binutils libfmt-dev nlohmann-json3-dev libyaml-cpp-dev libpci-dev \
  libarchive-dev zlib1g-dev libzstd-dev nettle-dev libre2-dev' >"$OUT/apt.log" 2>&1 || {
  tail -20 "$OUT/apt.log"
  exit 1
}

step "copy the sources (tracked and untracked, not ignored)"
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
[ -z "$(git status --porcelain 2>/dev/null)" ] || commit="$commit-dirty"
$SUDO rm -rf "$ROOT/src/rocdoc" "$ROOT/build"
$SUDO mkdir -p "$ROOT/src/rocdoc"
git ls-files -co --exclude-standard -z | tar --null -T - -cf - | $SUDO tar -xf - -C "$ROOT/src/rocdoc"

# The debug file is for backtraces: functions, inlined frames, files and lines. -fno-var-tracking
# leaves out where each variable of optimized code lives at each instruction, which gcc spent a
# third of this build computing (-O3 -g: 57 s for four files, 38 s without it; gcc 10).
step "build in the bullseye root (gcc $($SUDO chroot "$ROOT" sh -c 'gcc -dumpfullversion'), $($SUDO chroot "$ROOT" sh -c 'cmake --version | head -1'))"
$SUDO chroot "$ROOT" sh -c "cd /src/rocdoc && cmake -S . -B /build -G Ninja -DCMAKE_BUILD_TYPE=Release \
  '-DCMAKE_CXX_FLAGS_RELEASE=-O3 -DNDEBUG -g -fno-var-tracking' -DROCDOC_BUILD_TESTS=OFF -DROCDOC_GIT_COMMIT=$commit >/build.log 2>&1 &&
  cmake --build /build --target rocdoc >>/build.log 2>&1" || {
  tail -30 "$ROOT/build.log"
  exit 1
}

step "strip, with a separate debug file"
$SUDO chroot "$ROOT" sh -c 'cd /build && objcopy --only-keep-debug rocdoc rocdoc.debug &&
  strip --strip-all rocdoc && objcopy --add-gnu-debuglink=rocdoc.debug rocdoc'
cp "$ROOT/build/rocdoc" "$ROOT/build/rocdoc.debug" "$OUT/"
# The binary: no symbol table, a link to its debug file; the debug file: DWARF for the whole binary.
sections=$(readelf -S --wide "$OUT/rocdoc")
debug_sections=$(readelf -S --wide "$OUT/rocdoc.debug" 2>/dev/null)  # it warns of the interpreter it lacks
if echo "$sections" | grep -q '\.symtab\|\.debug_info' || ! echo "$sections" | grep -q '\.gnu_debuglink' ||
  ! echo "$debug_sections" | grep -q '\.debug_info'; then
  echo "release: rocdoc is not stripped with a debug link, or rocdoc.debug has no .debug_info" >&2
  exit 1
fi

step "check the glibc floor and the NEEDED list"
python3 tests/release/check-binary.py "$OUT/rocdoc" 2.31

step "run it inside the bullseye root"
$SUDO cp "$OUT/rocdoc" "$ROOT/usr/local/bin/rocdoc"
$SUDO chroot "$ROOT" /usr/local/bin/rocdoc --version
set +e
$SUDO chroot "$ROOT" /usr/local/bin/rocdoc check --root /src/rocdoc/tests/fixtures/full-stack-healthy >"$OUT/fixture.txt" 2>&1
fixture=$?
$SUDO chroot "$ROOT" /usr/local/bin/rocdoc check --json >"$OUT/live.json" 2>"$OUT/live.err"
live=$?
set -e
# full-stack-healthy is a healthy machine: exit 0. The root's own tree has no GPU: gpu.none, exit 1.
if [ "$fixture" -ne 0 ]; then
  echo "release: check --root full-stack-healthy exited $fixture (expected 0)" >&2
  cat "$OUT/fixture.txt" >&2
  exit 1
fi
if [ "$live" -ne 1 ] || ! python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["schema"].startswith("rocdoc-report/") and any(c["id"]=="gpu.none" and c["status"]=="fail" for c in d["checks"])' "$OUT/live.json"; then
  echo "release: check on the bullseye tree exited $live, expected 1 with gpu.none" >&2
  cat "$OUT/live.err" >&2
  exit 1
fi
step "write a snapshot inside the bullseye root and read it back"
# The writer is libarchive 3.4's pax writer, linked through src/snapshot/libarchive_compat.cpp.
$SUDO rm -f "$ROOT/tmp/release-snapshot.tar.gz"
$SUDO chroot "$ROOT" /usr/local/bin/rocdoc snapshot -o /tmp/release-snapshot.tar.gz >"$OUT/snapshot.txt" 2>&1 || {
  cat "$OUT/snapshot.txt" >&2
  exit 1
}
set +e
$SUDO chroot "$ROOT" /usr/local/bin/rocdoc check --snapshot /tmp/release-snapshot.tar.gz --json >"$OUT/snapshot.json" 2>"$OUT/snapshot.err"
replayed=$?
set -e
if [ "$replayed" -ne 1 ] || ! python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["host"]["kind"]=="snapshot" and any(c["id"]=="gpu.none" and c["status"]=="fail" for c in d["checks"])' "$OUT/snapshot.json"; then
  echo "release: check --snapshot of the bullseye snapshot exited $replayed, expected 1 with gpu.none" >&2
  cat "$OUT/snapshot.err" >&2
  exit 1
fi

if [ -n "$REFERENCE" ]; then
  step "the same reports as $REFERENCE on every fixture"
  python3 tests/release/compare-verdicts.py "$OUT/rocdoc" "$REFERENCE" tests/fixtures
fi
step "done: $OUT/rocdoc ($(stat -c %s "$OUT/rocdoc") bytes), $OUT/rocdoc.debug"
