#!/usr/bin/env python3
"""Times `rocdoc topology` (issue 25: under 5 ms for 8 GPUs), median wall time of N runs each,
beside /bin/true (what starting any process costs here).

Cases, interleaved:
  8-gpu-xgmi    --root tests/fixtures/mi300x-xgmi-hive-healthy (8 MI300X, 28 XGMI pairs)
  2-gpu-switch  --root tests/fixtures/radeon-2x7900xtx-plx-acs (ACS read from config space)
  8-gpu-json    the first with --json
  live          this machine

    bench/topology_latency.py [--rocdoc build/rocdoc] [--runs 40]
"""
import argparse
import os
import statistics
import subprocess
import time

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "tests", "fixtures")
CASES = [
    ("8-gpu-xgmi", ["--root", os.path.join(FIXTURES, "mi300x-xgmi-hive-healthy")]),
    ("2-gpu-switch", ["--root", os.path.join(FIXTURES, "radeon-2x7900xtx-plx-acs")]),
    ("8-gpu-json", ["--root", os.path.join(FIXTURES, "mi300x-xgmi-hive-healthy"), "--json"]),
    ("live", []),
]


def once(command):
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return (time.perf_counter() - start) * 1000


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rocdoc", default=os.path.join(HERE, "..", "build", "rocdoc"))
    parser.add_argument("--runs", type=int, default=40)
    args = parser.parse_args()
    times = {name: [] for name, _ in CASES}
    times["/bin/true"] = []
    for _ in range(args.runs):
        times["/bin/true"].append(once(["/bin/true"]))
        for name, extra in CASES:
            times[name].append(once([args.rocdoc, "topology", *extra]))
    for name, values in times.items():
        print(f"{name:14} median {statistics.median(values):6.2f} ms   min {min(values):6.2f} ms")


if __name__ == "__main__":
    main()
