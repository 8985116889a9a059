#!/usr/bin/env python3
"""Cost of `rocdoc fleet`: N nodes' reports (default 10000) merged, warm.

Usage: bench/fleet_merge.py [build/rocdoc] [N]. Writes N reports into a temporary directory,
made from the fixtures' real reports (`rocdoc check --root tests/fixtures/X --json`) and varied
the way a fleet varies: node names node00001…, about 1 in 50 with another ROCm version, 1 in 70
with another torch, the findings of each fixture (user-not-in-render, mi300x-numa-balancing…),
1 in 100 a day older than --max-age, 1 in 500 corrupted (cut in half), and 1 in 200 left out but
named in the --nodes list. Then runs `rocdoc fleet DIR --nodes LIST --max-age 2h --json` once to
warm the page cache and 5 times measured, and prints the median wall time, the CPU time (user +
system of all threads: what the merge costs when other work shares the cores) and the exit code.
A benchmark, not a test: it asserts nothing (target: 10,000 reports in 1 s on 2 cores).
"""
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

binary = sys.argv[1] if len(sys.argv) > 1 else "build/rocdoc"
count = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
fixtures = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures")
BASES = ["mi300x-healthy", "mi300x-healthy", "mi300x-healthy", "mi300x-numa-balancing",
         "user-not-in-render", "mi355x-rocm71-torch214-healthy", "full-stack-healthy"]
NOW = "2026-12-02T12:00:00Z"


def base_report(name):
    proc = subprocess.run([binary, "check", "--root", os.path.join(fixtures, name), "--json"],
                          capture_output=True, text=True)
    return json.loads(proc.stdout)


def vary(report, i):
    report["created"] = "2026-12-01T11:00:00Z" if i % 100 == 7 else "2026-12-02T11:30:00Z"
    rocm = report["facts"].get("rocm")
    if rocm and i % 50 == 3:
        rocm["opt_rocm_version"] = "6.2.0-99"
    for env in (report["facts"].get("python") or {}).get("environments", []):
        if env.get("torch") and i % 70 == 5:
            env["torch"]["version"] = "2.5.1+rocm6.2"
    return report


with tempfile.TemporaryDirectory() as scratch:
    bases = [base_report(name) for name in BASES]
    reports = os.path.join(scratch, "reports")
    os.mkdir(reports)
    names, total = [], 0
    for i in range(count):
        name = f"node{i:05d}"
        names.append(name)
        if i % 200 == 11:
            continue  # missing
        text = json.dumps(vary(json.loads(json.dumps(bases[i % len(bases)])), i), indent=2)
        if i % 500 == 13:
            text = text[: len(text) // 2]  # corrupted
        with open(os.path.join(reports, name + ".json"), "w") as f:
            f.write(text)
        total += len(text)
    nodes = os.path.join(scratch, "nodes.txt")
    with open(nodes, "w") as f:
        f.write("\n".join(names) + "\n")
    command = [binary, "fleet", reports, "--nodes", nodes, "--max-age", "2h", "--now", NOW, "--json"]
    subprocess.run(command, capture_output=True)  # warm the page cache
    times, cpu, code, summary = [], [], None, None
    for _ in range(5):
        start, before = time.monotonic(), resource.getrusage(resource.RUSAGE_CHILDREN)
        proc = subprocess.run(command, capture_output=True, text=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        times.append(time.monotonic() - start)
        cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        code, summary = proc.returncode, proc.stdout
    counts = json.loads(summary)["counts"] if code in (0, 1) else {}
    print(f"{count} reports, {total / 1e6:.0f} MB of JSON: median {statistics.median(times):.3f} s "
          f"(min {min(times):.3f}, max {max(times):.3f}) of 5 runs, exit {code}; CPU time "
          f"(user + system, all threads) median {statistics.median(cpu):.3f} s; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(f"counts: {counts}")
