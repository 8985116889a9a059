#!/usr/bin/env python3
"""Cost of large and hostile snapshots: how long `rocdoc check --root` takes as entries grow.

Usage: bench/hostile_scale.py [build/rocdoc]. Prints one line per case: entries, median seconds
of 3 runs, exit code. Costs must stay linear up to each bound (docs/snapshot-extensions.md),
and beyond a bound rocdoc refuses at once with exit 2.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

binary = sys.argv[1] if len(sys.argv) > 1 else "build/rocdoc"
base = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures",
                    "full-stack-healthy")


def snapshot(scratch, name, change):
    d = os.path.join(scratch, name)
    shutil.copytree(base, d, symlinks=True)
    path = os.path.join(d, "rocdoc-snapshot.json")
    with open(path) as f:
        manifest = json.load(f)
    change(manifest)
    with open(path, "w") as f:
        json.dump(manifest, f)
    return d


def measure(d):
    times, code = [], None
    for _ in range(3):
        start = time.monotonic()
        code = subprocess.run([binary, "check", "--root", d], capture_output=True).returncode
        times.append(time.monotonic() - start)
    return statistics.median(times), code


CASES = {
    "manifest links under a KFD node": lambda n: lambda m: m.setdefault("links", {}).update(
        {f"/sys/class/kfd/kfd/topology/nodes/1/x{i}": "y" for i in range(n)}),
    "KFD nodes (read_errors)": lambda n: lambda m: m.setdefault("read_errors", {}).update(
        {f"/sys/class/kfd/kfd/topology/nodes/{i}/properties": "EPERM" for i in range(2, n + 2)}),
    "PCI functions (read_errors)": lambda n: lambda m: m.setdefault("read_errors", {}).update(
        {f"/sys/bus/pci/devices/{i >> 16:04x}:{(i >> 8) & 255:02x}:{(i >> 3) & 31:02x}.{i & 7}/vendor":
         "EPERM" for i in range(n)}),
}
SIZES = {
    "manifest links under a KFD node": [1000, 10000, 99000, 100001],
    "KFD nodes (read_errors)": [100, 1000, 1100],
    "PCI functions (read_errors)": [1000, 8000, 16000, 17000],
}

with tempfile.TemporaryDirectory() as scratch:
    for name, make in CASES.items():
        for n in SIZES[name]:
            d = snapshot(scratch, f"{len(os.listdir(scratch))}", make(n))
            seconds, code = measure(d)
            print(f"{name:34} {n:>7}  {seconds:7.3f} s  exit {code}", flush=True)
