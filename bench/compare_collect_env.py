#!/usr/bin/env python3
"""Times `rocdoc check` against `python3 -m torch.utils.collect_env` on this machine.

Prints both medians and the ratio. Target: rocdoc >= 300x faster, median <= 10 ms on a 2-core
box. Debian's python3-torch is only importable by /usr/bin/python3 (scripts/install-test-deps.sh
installs it).

    bench/compare_collect_env.py [--rocdoc build/rocdoc] [--runs 100] [--torch-runs 5]
"""
import argparse
import os
import statistics
import subprocess
import sys
import time


def median_seconds(command, runs, env=None):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        times.append(time.perf_counter() - start)
        if proc.returncode not in (0, 1):
            sys.exit(f"{' '.join(command)} failed with exit status {proc.returncode}")
    return statistics.median(times)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rocdoc", default=os.path.join(here, "..", "build", "rocdoc"))
    parser.add_argument("--python", default="/usr/bin/python3", help="the interpreter that has torch")
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--torch-runs", type=int, default=5)
    args = parser.parse_args()

    rocdoc_cmd = [args.rocdoc, "check"]
    torch_cmd = [args.python, "-m", "torch.utils.collect_env"]
    probe = subprocess.run([args.python, "-c", "import torch"], capture_output=True)
    if probe.returncode != 0:
        sys.exit(f"{args.python} cannot import torch (install python3-torch): {probe.stderr.decode().strip()}")

    median_seconds(rocdoc_cmd, 5)  # warm the page cache
    rocdoc = median_seconds(rocdoc_cmd, args.runs)
    median_seconds(torch_cmd, 1)
    torch = median_seconds(torch_cmd, args.torch_runs)
    print(f"rocdoc check                      median {rocdoc * 1000:8.2f} ms  ({args.runs} runs)")
    print(f"python3 -m torch.utils.collect_env median {torch * 1000:8.2f} ms  ({args.torch_runs} runs)")
    print(f"ratio                              {torch / rocdoc:8.0f}x faster")
    print(f"targets: median <= 10 ms: {'met' if rocdoc <= 0.010 else 'MISSED'}; "
          f">= 300x: {'met' if torch / rocdoc >= 300 else 'MISSED'}")


if __name__ == "__main__":
    main()
