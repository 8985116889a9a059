#!/usr/bin/env python3
"""Where the time of a live `rocdoc check` goes, median wall time of N runs each.

Commands, timed interleaved in one loop (a busy moment hits each alike):
  /bin/true              starting any process here
  --version              starting rocdoc: the loader, static initialisers, the command table
  rules show gfx1030     plus building the whole embedded knowledge base and printing a page
  check --only gpu.none  plus every probe (all of them run; one check is judged)
  check                  the default check
Then each probe's own time, from the report's `probes[].duration_ms` (the probes run side by
side on the live machine, so the check takes about as long as the slowest, not their sum).

    bench/check_breakdown.py [--rocdoc build/rocdoc] [--runs 30]
"""
import argparse
import json
import os
import statistics
import subprocess
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def time_once(command):
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rocdoc", default=os.path.join(HERE, "..", "build", "rocdoc"))
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    commands = [
        ("/bin/true", ["/bin/true"]),
        ("--version", [args.rocdoc, "--version"]),
        ("rules show gfx1030", [args.rocdoc, "rules", "show", "gfx1030"]),
        ("check --only gpu.none", [args.rocdoc, "check", "--only", "gpu.none"]),
        ("check", [args.rocdoc, "check"]),
    ]
    for _, command in commands:
        time_once(command)  # warm the page cache
    times = {name: [] for name, _ in commands}
    probes = {}
    for _ in range(args.runs):
        for name, command in commands:
            times[name].append(time_once(command))
        report = subprocess.run([args.rocdoc, "check", "--json"], capture_output=True, check=False)
        for probe in json.loads(report.stdout).get("probes", []):
            probes.setdefault(probe["name"], []).append(probe["duration_ms"])
    print(f"median of {args.runs} runs, ms")
    for name, _ in commands:
        print(f"  {name:<24} {statistics.median(times[name]) * 1000:7.2f}")
    print("probes (their own time, on up to four threads):")
    for name, durations in sorted(probes.items(), key=lambda item: -statistics.median(item[1])):
        print(f"  {name:<24} {statistics.median(durations):7.2f}")


if __name__ == "__main__":
    main()
