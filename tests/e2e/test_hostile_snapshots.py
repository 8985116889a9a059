"""Hostile snapshots: the reliability audit's reproducers (2026-11), as the project's own tests.

Each case builds a snapshot from tests/fixtures/full-stack-healthy in a temp dir and runs the
built binary on it. A snapshot comes from a stranger: rocdoc must refuse what is malformed or
oversized with exit 2 and one short line naming the bound or the problem, must never read
outside the snapshot, and must never turn an out-of-range number into a different fact.

The time limits are hang detectors (generous, sanitizer builds included), not benchmarks:
bench/hostile_scale.py measures the costs.
"""
import ctypes
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

from common import FIXTURES, Results

binary = sys.argv[1]
results = Results()
BASE = os.path.join(FIXTURES, "full-stack-healthy")
HANG = 30  # seconds: no case may take longer (a hang or a quadratic walk)


def fresh(scratch, name):
    d = os.path.join(scratch, name)
    shutil.copytree(BASE, d, symlinks=True)
    os.remove(os.path.join(d, "expect.json"))
    return d


def edit_manifest(d, change):
    path = os.path.join(d, "rocdoc-snapshot.json")
    with open(path) as f:
        manifest = json.load(f)
    change(manifest)
    with open(path, "w") as f:
        json.dump(manifest, f)


def write_manifest_text(d, text):
    with open(os.path.join(d, "rocdoc-snapshot.json"), "w") as f:
        f.write(text)


def rocdoc(d, *args):
    start = time.monotonic()
    proc = subprocess.run([binary, "check", "--root", d, *args], capture_output=True,
                          timeout=HANG + 30)
    return proc, time.monotonic() - start


def check_refused(proc, seconds, what, needle):
    stderr = proc.stderr.decode("utf-8", "replace")
    results.check(proc.returncode == 2, f"{what}: exit 2 (got {proc.returncode}, {stderr[:200]!r})")
    results.check(needle in stderr, f"{what}: stderr names the problem ({needle!r}): {stderr[:300]!r}")
    results.check(stderr.count("\n") == 1 and len(stderr) < 600,
                  f"{what}: one short line on stderr ({len(stderr)} bytes)")
    results.check(seconds < HANG, f"{what}: answered in {seconds:.1f} s")


def json_report(d):
    proc, seconds = rocdoc(d, "--json")
    results.check(proc.returncode in (0, 1), f"exit 0 or 1 (got {proc.returncode}: {proc.stderr[:300]!r})")
    return json.loads(proc.stdout) if proc.returncode in (0, 1) else None, seconds


with tempfile.TemporaryDirectory() as scratch:
    # 1. crash: a 70,000-deep "format" overflowed the stack in an error message (SIGSEGV).
    d = fresh(scratch, "deep-format")
    write_manifest_text(d, '{"format": ' + "[" * 70000 + "]" * 70000 + "}")
    check_refused(*rocdoc(d), "70,000-deep format", "nested deeper than 16 levels")

    # 9. A 12 MB "format" string was quoted whole: one 12 MB stderr line.
    d = fresh(scratch, "huge-format")
    write_manifest_text(d, '{"format": "' + "x" * (12 << 20) + '"}')
    check_refused(*rocdoc(d), "12 MB format string", "(12582912 bytes)")

    # A manifest over the bound is refused, never cut and parsed as far as it went.
    d = fresh(scratch, "huge-manifest")
    write_manifest_text(d, '{"format": "rocdoc-snapshot/1", "note": "' + " " * (17 << 20) + '"}')
    check_refused(*rocdoc(d), "17 MiB manifest", "larger than 16 MiB")

    # The manifest linked to /dev/zero: read 64 MiB, then "unexpected end of input".
    d = fresh(scratch, "manifest-dev-zero")
    os.remove(os.path.join(d, "rocdoc-snapshot.json"))
    os.symlink("/dev/zero", os.path.join(d, "rocdoc-snapshot.json"))
    check_refused(*rocdoc(d), "manifest -> /dev/zero", "a symbolic link; the manifest must be a regular file")

    # 3a. root/ itself a link to / reported the reading machine as the snapshot.
    outside = os.path.join(scratch, "outside")
    os.makedirs(os.path.join(outside, "etc"))
    with open(os.path.join(outside, "etc", "os-release"), "w") as f:
        f.write('PRETTY_NAME="OUTSIDE-THE-SNAPSHOT"\n')
    d = fresh(scratch, "root-link")
    shutil.rmtree(os.path.join(d, "root"))
    os.symlink(outside, os.path.join(d, "root"))
    proc, seconds = rocdoc(d)
    check_refused(proc, seconds, "root/ is a symlink", "root: is a symbolic link")
    results.check(b"OUTSIDE-THE-SNAPSHOT" not in proc.stdout, "root/ link: nothing outside is read")

    # 3b. A file swapped for a link to an outside file while rocdoc runs (renameat2 EXCHANGE).
    d = fresh(scratch, "toctou")
    ln = os.path.join(d, "root", "etc", "swap-link")
    os.symlink(os.path.join(outside, "etc", "os-release"), ln)
    libc = ctypes.CDLL(None, use_errno=True)
    stop = threading.Event()
    target = os.path.join(d, "root", "etc", "os-release").encode()

    def swap():
        while not stop.is_set():
            libc.renameat2(-100, target, -100, ln.encode(), 2)  # RENAME_EXCHANGE

    swapper = threading.Thread(target=swap)
    swapper.start()
    # At least 4 s and 40 runs (a sanitizer build on a busy machine runs slowly), at most 120 s.
    runs = escapes = 0
    start = time.monotonic()
    try:
        while (time.monotonic() - start < 4 or runs < 40) and time.monotonic() - start < 120:
            proc = subprocess.run([binary, "check", "--root", d], capture_output=True, timeout=HANG)
            runs += 1
            escapes += b"OUTSIDE-THE-SNAPSHOT" in proc.stdout
    finally:
        stop.set()
        swapper.join()
    results.check(runs > 20 and escapes == 0,
                  f"swap race: {escapes} of {runs} runs read outside the snapshot")

    # 6a. A 1 MB link target ("a/../" x 200,000) took 22 s to walk.
    d = fresh(scratch, "long-link")
    edit_manifest(d, lambda m: m.setdefault("links", {}).update({"/sys": "/" + "a/../" * 200000 + "realsys"}))
    check_refused(*rocdoc(d), "1 MB link target", "a path is at most 4095 (PATH_MAX)")
    # The same walk within PATH_MAX per link is cut by the component bound: the path is missing.
    d = fresh(scratch, "link-walk")
    edit_manifest(d, lambda m: m.setdefault("links", {}).update(
        {f"/l{i}": f"/l{i + 1}/" + "a/../" * 800 for i in range(40)}))
    edit_manifest(d, lambda m: m["env"].update({"ROCM_PATH": "/l0/opt/rocm"}))
    document, seconds = json_report(d)
    results.check(seconds < HANG, f"40 links of 800 components each: {seconds:.1f} s")

    # 6b/6c. 100k manifest entries stay linear; one more is refused; bounded node and device counts.
    d = fresh(scratch, "entries-99k")
    edit_manifest(d, lambda m: m.setdefault("links", {}).update(
        {f"/sys/class/kfd/kfd/topology/nodes/1/x{i}": "y" for i in range(99000)}))
    document, seconds = json_report(d)
    results.check(seconds < HANG, f"99,000 links under a KFD node: {seconds:.1f} s")
    d = fresh(scratch, "entries-100k")
    edit_manifest(d, lambda m: m.setdefault("links", {}).update({f"/x/{i}": "y" for i in range(100001)}))
    check_refused(*rocdoc(d), "100,001 manifest entries", "holds more than 100000 entries")
    d = fresh(scratch, "kfd-nodes")
    edit_manifest(d, lambda m: m.setdefault("read_errors", {}).update(
        {f"/sys/class/kfd/kfd/topology/nodes/{i}/properties": "EPERM" for i in range(2, 3000)}))
    check_refused(*rocdoc(d), "3,000 KFD nodes", "KFD topology nodes; rocdoc reads at most 1024")
    d = fresh(scratch, "pci-functions")
    edit_manifest(d, lambda m: m.setdefault("read_errors", {}).update(
        {f"/sys/bus/pci/devices/0001:{i >> 8:02x}:{(i >> 3) & 31:02x}.{i & 7}/vendor": "EPERM"
         for i in range(20000)}))
    check_refused(*rocdoc(d), "20,000 PCI functions", "PCI functions; rocdoc reads at most 16384")
    d = fresh(scratch, "conda-envs")
    os.makedirs(os.path.join(d, "root", "home", "alice", "miniconda3", "conda-meta"))
    for i in range(600):
        os.makedirs(os.path.join(d, "root", "home", "alice", "miniconda3", "envs", f"e{i}"))
    check_refused(*rocdoc(d), "600 conda environments", "conda environments; rocdoc reads at most 512")

    # 10. Numbers out of range: unreadable or refused, never wrapped.
    d = fresh(scratch, "uid-2-32")
    edit_manifest(d, lambda m: m["identity"].update({"uid": 2 ** 32}))
    check_refused(*rocdoc(d), "uid 2^32", 'identity."uid" is 4294967296, out of range')

    d = fresh(scratch, "kfd-vendor-overflow")
    node = os.path.join(d, "root", "sys", "class", "kfd", "kfd", "topology", "nodes", "2")
    os.makedirs(node)
    with open(os.path.join(node, "properties"), "w") as f:
        f.write("simd_count 64\nvendor_id 18446744073709490178\ndevice_id 0\n"
                "location_id 65535\ndomain 0\n")
    with open(os.path.join(node, "name"), "w") as f:
        f.write("phantom\n")
    document, _ = json_report(d)
    nodes = (document or {}).get("facts", {}).get("kfd_topology", {}).get("nodes", [])
    phantom = [n for n in nodes if n.get("index") == 2]
    results.check(len(phantom) == 1 and phantom[0].get("vendor_id") == "0000",
                  f"an overflowing KFD vendor_id is unreadable, not AMD's 1002: {phantom}")
    messages = json.dumps([c.get("message") for c in (document or {}).get("checks", [])])
    results.check("1002:0000" not in messages and "0000:ff:1f.7" not in messages,
                  "no phantom AMD GPU 1002:0000 (0000:ff:1f.7) in any finding")

    d = fresh(scratch, "shm-2-64")
    with open(os.path.join(d, "root", "proc", "mounts"), "w") as f:
        f.write("tmpfs /dev/shm tmpfs rw,nosuid,nodev,size=17179869184G 0 0\n")
    open(os.path.join(d, "root", ".dockerenv"), "w").close()  # shm.small judges containers
    document, _ = json_report(d)
    shm = [c for c in (document or {}).get("checks", []) if c["id"] == "shm.small"]
    results.check(len(shm) == 1 and shm[0]["status"] == "skip" and "unknown" in shm[0]["message"],
                  f"a 2^64-byte /dev/shm is unknown, not wrapped to 0 MiB: {shm}")

    d = fresh(scratch, "hip-visible-2-32")
    edit_manifest(d, lambda m: m["env"].update({"HIP_VISIBLE_DEVICES": "4294967296,2147483648,9"}))
    document, _ = json_report(d)
    visible = [c for c in (document or {}).get("checks", []) if c["id"] == "env.visible-devices"]
    commands = [f["command"] for c in visible for f in c.get("fix", [])]
    results.check(bool(visible) and visible[0]["status"] != "pass" and
                  not any("4294967296" in c or "2147483648" in c for c in commands),
                  f"HIP_VISIBLE_DEVICES=4294967296 is not offered back as a fix: {commands}")

    # Scale that held in the audit, kept: a 10,000-component VIRTUAL_ENV, a 2 GB sparse file.
    d = fresh(scratch, "deep-path")
    edit_manifest(d, lambda m: m["env"].update({"VIRTUAL_ENV": "/deep/" + "/".join(["d"] * 10000)}))
    document, seconds = json_report(d)
    results.check(seconds < HANG, f"a 10,000-component VIRTUAL_ENV: {seconds:.1f} s")
    d = fresh(scratch, "sparse")
    with open(os.path.join(d, "root", "etc", "os-release"), "r+b") as f:
        f.truncate(2 << 30)
    document, seconds = json_report(d)
    results.check(seconds < HANG, f"a 2 GB sparse os-release: {seconds:.1f} s")

results.finish()
