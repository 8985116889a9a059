"""Hostile JSON in snapshots (reliability audit 2026-12, D2), as the project's own tests.

nlohmann's callback parser rescanned the parent container after every object, so an array of
N empty objects under a key rocdoc ignores cost O(N^2): 320,000 of them (960 KB) took 34 s as
the manifest of `check --root` and as report.json in a `check --snapshot` archive. The parse
is now linear and its value count is bounded while it reads (400,000 values), so a 3 MB
document of a million empty objects (under every size bound) is refused at once, with exit 2, before it is built.

The time limits are hang detectors (generous, sanitizer builds included): a linear parse takes
well under a second here, the quadratic one took 34 s for the accepted size below.
"""
import gzip
import io
import json
import os
import resource
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

from common import FIXTURES, Results

binary = sys.argv[1]
results = Results()
BASE = os.path.join(FIXTURES, "full-stack-healthy")
LIMIT_S = 10
SANITIZED = bool(os.environ.get("ROCDOC_SANITIZED"))
ACCEPTED = 300_000  # empty objects: under the 400,000-value bound, 900 KB
REFUSED = 1_000_000  # empty objects: 3 MB, under every size bound, over the value bound


def objects(n):
    return "[" + "{}," * (n - 1) + "{}]"


def run(*args):
    start = time.monotonic()
    proc = subprocess.run([binary, *args], capture_output=True, timeout=600)
    return proc, time.monotonic() - start


def manifest_with(scratch, name, n):
    d = os.path.join(scratch, name)
    shutil.copytree(BASE, d, symlinks=True)
    os.remove(os.path.join(d, "expect.json"))
    path = os.path.join(d, "rocdoc-snapshot.json")
    with open(path) as f:
        text = f.read().rstrip()
    assert text.endswith("}")
    with open(path, "w") as f:
        f.write(text[:-1] + ', "x": ' + objects(n) + "}")
    return d


def archive_with_report(scratch, name, n):
    """A snapshot archive of full-stack-healthy whose report.json holds n empty checks."""
    path = os.path.join(scratch, name + ".tar.gz")
    report = ('{"schema":"rocdoc-report/1","checks":' + objects(n) + "}").encode()
    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT) as tar:
        tar.add(os.path.join(BASE, "rocdoc-snapshot.json"), arcname="rocdoc-snapshot.json")
        tar.add(os.path.join(BASE, "root"), arcname="root")
        info = tarfile.TarInfo("report.json")
        info.size = len(report)
        tar.addfile(info, io.BytesIO(report))
    return path


def peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def stderr_of(proc):
    return proc.stderr.decode("utf-8", "replace")


with tempfile.TemporaryDirectory() as scratch:
    # The manifest of check --root: accepted (unknown keys are ignored), and linear.
    d = manifest_with(scratch, "accepted", ACCEPTED)
    proc, seconds = run("check", "--root", d, "--json")
    results.check(proc.returncode in (0, 1), f"{ACCEPTED:,} objects in the manifest: exit "
                  f"{proc.returncode} ({stderr_of(proc)[:200]!r})")
    results.check(seconds < LIMIT_S, f"{ACCEPTED:,} objects in the manifest: {seconds:.1f} s "
                  f"(the quadratic parse: 34 s for 320,000)")

    # The same through snapshot --root, which reads the manifest to capture it again.
    out = os.path.join(scratch, "again.tar.gz")
    proc, seconds = run("snapshot", "--root", d, "-o", out)
    results.check(seconds < LIMIT_S, f"snapshot --root with {ACCEPTED:,} objects: {seconds:.1f} s")

    # A million empty objects: refused while parsing, at once and in bounded memory.
    d = manifest_with(scratch, "refused", REFUSED)
    proc, seconds = run("check", "--root", d)
    err = stderr_of(proc)
    results.check(proc.returncode == 2, f"{REFUSED:,} objects: exit 2 (got {proc.returncode})")
    results.check("holds more than 400000 JSON values" in err and err.count("\n") == 1,
                  f"{REFUSED:,} objects: one line naming the bound: {err[:300]!r}")
    results.check(seconds < LIMIT_S, f"{REFUSED:,} objects: refused in {seconds:.1f} s")
    limit_mb = 400 if SANITIZED else 100
    results.check(peak_rss_mb() < limit_mb, f"peak RSS {peak_rss_mb():.0f} MB < {limit_mb} MB")

    # report.json inside a snapshot archive (what changed since capture): linear as well, and
    # a report beyond the bound is no rocdoc report (the snapshot itself is still judged).
    for n, name in ((ACCEPTED, "report-accepted"), (REFUSED, "report-refused")):
        path = archive_with_report(scratch, name, n)
        proc, seconds = run("check", "--snapshot", path, "--json")
        results.check(proc.returncode in (0, 1),
                      f"{name}: exit {proc.returncode} ({stderr_of(proc)[:200]!r})")
        results.check(seconds < LIMIT_S, f"{name}: {n:,} objects in report.json: {seconds:.1f} s")

    # fleet reads archives the same way.
    fleet = os.path.join(scratch, "fleet")
    os.mkdir(fleet)
    shutil.copy(archive_with_report(scratch, "node", ACCEPTED), os.path.join(fleet, "n1.tar.gz"))
    proc, seconds = run("fleet", fleet)
    results.check(proc.returncode in (0, 1), f"fleet: exit {proc.returncode}")
    results.check(seconds < LIMIT_S, f"fleet with {ACCEPTED:,} objects in report.json: {seconds:.1f} s")

results.finish()
