#!/usr/bin/env python3
"""How long `rocdoc triage` takes on 16 MiB logs (issue 27 §4: at most 0.5 s on 2 cores).

The inputs are the families of the reliability audit (reliability-2026-12/REPORT.md, row 3) at
16 MiB, plus a realistic one: the real logs of tests/triage/ repeated until 16 MiB (every line a
user pastes: tracebacks, rocminfo, collect_env, dmesg, with their signatures and facts). Each
runs --repeat times (default 5); printed: the family, median and min seconds of the whole
process, MB/s, and the exit code. A family over --limit seconds (default 0.5) is marked SLOW and
makes the exit code 1; exit 2 when the binary is missing.

    bench/triage_speed.py [--rocdoc build/rocdoc] [--repeat 5] [--limit 0.5] [--size MiB]
"""
import argparse
import glob
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
LOGS = os.path.join(HERE, "..", "tests", "triage")


def repeated(line, size):
    """`line` (bytes, ending in a newline) repeated to exactly `size` bytes or just under."""
    return line * (size // len(line))


def real_logs(size):
    text = b"".join(open(p, "rb").read().rstrip(b"\n") + b"\n"
                    for p in sorted(glob.glob(os.path.join(LOGS, "*.log"))))
    return (text * (size // len(text) + 1))[:size]


FAMILIES = {
    "real logs, repeated": real_logs,
    "empty lines": lambda size: b"\n" * size,
    "2-byte lines": lambda size: repeated(b"ab\n", size),
    "one 16 MiB line": lambda size: b"x" * (size - 1) + b"\n",
    "gfx lines": lambda size: repeated(b"  Name:                    gfx1030\n", size),
    "PCI id lines": lambda size: repeated(b"[    3.1] amdgpu 0000:03:00.0: 1002:73bf rev c1\n", size),
    "override lines": lambda size: repeated(b"HSA_OVERRIDE_GFX_VERSION=10.3.0\n", size),
    "signature lines": lambda size: repeated(
        b"Unable to open /dev/kfd read-write: Cannot allocate memory\n", size),
    "torch lines": lambda size: repeated(b"torch==2.6.0+rocm6.2.4\n", size),
    "marketing lines": lambda size: repeated(b"  Marketing Name:          AMD Radeon RX 6800\n", size),
    "CRLF and NUL": lambda size: repeated(b"a\x00b gfx\r\n", size),
    "long lines near 4 KiB": lambda size: repeated(b"gfx " * 1023 + b"\n", size),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rocdoc", default=os.path.join(HERE, "..", "build", "rocdoc"))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--limit", type=float, default=0.5)
    parser.add_argument("--size", type=int, default=16, help="MiB; at most 16 (triage's cap)")
    args = parser.parse_args()
    if not os.access(args.rocdoc, os.X_OK):
        print(f"{args.rocdoc}: no rocdoc binary", file=sys.stderr)
        return 2
    size = min(args.size, 16) << 20
    slow = 0
    print(f"{'family':24} {'median s':>9} {'min s':>7} {'MB/s':>7}  exit")
    with tempfile.TemporaryDirectory() as scratch:
        for name, make in FAMILIES.items():
            path = os.path.join(scratch, "log")
            data = make(size)
            with open(path, "wb") as f:
                f.write(data)
            times, code = [], None
            for _ in range(args.repeat):
                start = time.monotonic()
                code = subprocess.run([args.rocdoc, "triage", "--json", path],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
                times.append(time.monotonic() - start)
            median = statistics.median(times)
            mark = "  SLOW" if median > args.limit else ""
            slow += median > args.limit
            print(f"{name:24} {median:9.3f} {min(times):7.3f} {len(data) / median / 1e6:7.0f}  {code}{mark}")
    return 1 if slow else 0


if __name__ == "__main__":
    sys.exit(main())
