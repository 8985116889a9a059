#!/usr/bin/env python3
"""Times `rocdoc snapshot` and reports the snapshot's size (issue 10: a typical snapshot is
under 1 MB and made in at most 100 ms), for the live machine and a few fixtures; also the time
of `check --snapshot` on each. Usage: bench/snapshot.py path/to/rocdoc [runs]"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

BINARY = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else sys.exit(__doc__)
RUNS = int(sys.argv[2]) if len(sys.argv) > 2 else 20
FIXTURES = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures")


def timed(args):
    start = time.perf_counter()
    if subprocess.run(args, capture_output=True).returncode not in (0, 1):  # 1: findings
        sys.exit(f"{args} failed")
    return (time.perf_counter() - start) * 1000


def bench(label, source_args):
    work = tempfile.mkdtemp(prefix="rocdoc-bench-")
    times, checks = [], []
    size = 0
    for i in range(RUNS):
        out = os.path.join(work, f"s{i}.tar.gz")
        times.append(timed([BINARY, "snapshot", *source_args, "-o", out]))
        size = os.path.getsize(out)
        checks.append(timed([BINARY, "check", "--snapshot", out]))
        os.unlink(out)
    os.rmdir(work)
    print(f"{label:32} snapshot median {statistics.median(times):6.1f} ms  "
          f"max {max(times):6.1f} ms  size {size / 1024:6.1f} KB  "
          f"check --snapshot median {statistics.median(checks):6.1f} ms")
    return statistics.median(times), size


def main():
    print(f"rocdoc snapshot, {RUNS} runs each (wall time of the whole process)")
    results = [bench("live machine", [])]
    for name in ("rx7900xtx-healthy", "mi300x-cpx-partitions", "torch-two-envs"):
        results.append(bench(name, ["--root", os.path.join(FIXTURES, name)]))
    slow = [r for r in results if r[0] > 100 or r[1] > 1 << 20]
    print("targets (<= 100 ms, < 1 MB):", "met" if not slow else f"missed by {len(slow)}")


if __name__ == "__main__":
    main()
