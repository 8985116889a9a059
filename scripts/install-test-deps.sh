#!/bin/sh
# Installs what the test suite and the benchmark need on Debian 12, beyond the build
# dependencies: lspci (the live test compares against it), strace (the live test proves
# `check` starts no subprocess), Python's jsonschema and yaml (report and rules schema
# validation: scripts/validate-rules-schema.py), python3-junitparser (a real JUnit parser
# reads `check --junit`'s file: tests/e2e/test_ci_outputs.py), python3-markdown-it (a real
# CommonMark parser reads `check --format markdown`: tests/e2e/test_markdown_explain.py) and Debian's
# python3-torch (bench/ times its collect_env; a real torch install for the Python probes, and the
# CPU torch that --smoke runs for real: tests/e2e/test_smoke.py, which also makes a venv per fake
# torch with python3-venv).
# clang-format checks the code style. For the CI builds beyond the default one (.ci/run):
# clang-14 (the clang build, and the fuzz harnesses), libclang-rt-14-dev (clang's sanitizer
# and libFuzzer runtimes: libclang_rt.fuzzer-x86_64.a; clang-14 does not depend on it) and
# llvm-14 (llvm-symbolizer, for readable sanitizer reports). gcc's own ASan and UBSan
# runtimes come with g++. GNU ld links everything; lld is not needed.
# Debian's ROCm 5.2 runtimes and their headers, for --deep (tests/e2e/test_deep.py loads them for
# real; ctest abi.runtime compiles src/runtime/abi.h against the headers):
# libamdhip64-dev (pulls libamdhip64-5 and libhsa-runtime-dev, which pulls libhsa-runtime64-1),
# librocm-smi-dev and librocm-smi64-1. Never in install-deps.sh: building rocdoc must never
# install a ROCm runtime, and rocdoc never links them (it dlopens them in a child).
# HIP fat binaries for the offload-bundle scanner (tests/e2e/test_targets.py, bench/offload_scan.py):
# librocrand1 (25 MB, one bundle) and librocsparse0 (1.3 GB, 111 bundles) are Debian's real ROCm
# libraries with uncompressed bundles for gfx803..gfx1030; clang-tools-19's clang-offload-bundler
# writes compressed (CCOB v2, zstd) bundles, clang-tools-14's uncompressed ones; binutils' objcopy
# puts test bundles into a .hip_fatbin section.
# The man page and completions (tests/e2e/test_man_completions.py): man-db and groff-base render
# the generated rocdoc.1 (man -l, groff -ww); bash-completion, fish and zsh load the generated
# completion scripts in real shells.
# The packages (tests/e2e/test_packages.py): lintian checks the .deb, rpm provides rpmbuild (CPack's
# RPM generator) and rpm -qpl, rpm2cpio provides rpm2archive (tests/release/check-packages.py reads
# the .rpm's payload with it), dpkg-dev provides dpkg-shlibdeps (the .deb's Depends line); cpack
# itself comes with cmake. Only to make and inspect the packages, never to build rocdoc.
# Monitoring (tests/e2e/test_prometheus.py): prometheus provides promtool, which checks every
# `check --format prometheus` exposition and contrib/prometheus/'s alerting rules; the test starts
# prometheus-node-exporter's binary itself on 127.0.0.1 (never its service) and scrapes the
# textfile collector.
# Slurm (tests/e2e/test_slurm.py runs contrib/slurm/rocdoc-slurm-healthcheck under a real
# Slurm): slurmctld, slurmd, slurm-client (scontrol, sinfo, srun) and munge, whose daemons the test
# starts itself on 127.0.0.1 (never the packages' services).
# Test-only: never needed to build or run rocdoc.
set -eu
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
  pciutils strace clang-format python3 python3-jsonschema python3-yaml python3-junitparser python3-markdown-it python3-torch python3-venv \
  clang-14 libclang-rt-14-dev llvm-14 \
  libamdhip64-dev libhsa-runtime-dev librocm-smi-dev librocm-smi64-1 \
  librocrand1 librocsparse0 clang-tools-14 clang-tools-19 binutils \
  man-db groff-base bash-completion fish zsh \
  lintian rpm rpm2cpio dpkg-dev \
  prometheus prometheus-node-exporter \
  slurmctld slurmd slurm-client munge
