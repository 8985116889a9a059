"""rocdoc reads snapshots where /proc is not mounted (a bare chroot, a minimal container).

SnapshotRoot reads a checked file through /proc/self/fd; without /proc it opens the path again
and keeps it only if it is the same regular file. In a private mount namespace with /proc
unmounted, `check --root` must give the same report as with /proc, on every fixture.
Exit 77 (ctest: skipped) where the namespace cannot be made (not root, or unshare refused).
"""
import json
import os
import subprocess
import sys

from common import Results

binary = sys.argv[1]
fixtures = os.path.join(os.environ["ROCDOC_SOURCE_DIR"], "tests", "fixtures")
roots = sorted(os.path.join(fixtures, n) for n in os.listdir(fixtures) if os.path.isdir(os.path.join(fixtures, n)))

probe = subprocess.run(["unshare", "--mount", "--fork", "sh", "-c", "umount -l /proc && test ! -e /proc/self"],
                       capture_output=True, text=True)
if probe.returncode != 0:
    print(f"SKIP: cannot unmount /proc in a private mount namespace: {probe.stderr.strip()}")
    sys.exit(77)

# A sanitizer build (ROCDOC_SANITIZED): LeakSanitizer's check at exit reads /proc/PID/task, and
# without /proc it fails the run with its own exit code. It cannot be turned off here: the
# sanitizer runtime reads ASAN_OPTIONS from /proc/self/environ. So a sanitized run's exit code is
# not compared; its report (complete on stdout before exit) still is.
sanitized = bool(os.environ.get("ROCDOC_SANITIZED"))

# One namespace for all fixtures: rocdoc runs once per fixture, its JSON separated by NUL lines.
script = 'umount -l /proc; for r in "$@"; do "$0" check --root "$r" --json; echo "rc=$?"; printf "\\0\\n"; done'
done = subprocess.run(["unshare", "--mount", "--fork", "sh", "-c", script, binary, *roots],
                      capture_output=True, text=True)
outputs = done.stdout.split("\0\n")[: len(roots)]

results = Results()
results.check(len(outputs) == len(roots), f"one output per fixture: {len(outputs)} of {len(roots)}; {done.stderr[-500:]}")


def verdict(text):
    body, _, code = text.rpartition("rc=")
    document = json.loads(body)
    return int(code), [(c["id"], c["status"], c["message"], c["fix"]) for c in document["checks"]]


for root, output in zip(roots, outputs):
    name = os.path.basename(root)
    with_proc = subprocess.run([binary, "check", "--root", root, "--json"], capture_output=True, text=True)
    expected = (with_proc.returncode,
                [(c["id"], c["status"], c["message"], c["fix"]) for c in json.loads(with_proc.stdout)["checks"]])
    try:
        got = verdict(output.strip())
    except (ValueError, KeyError) as error:
        results.check(False, f"{name}: without /proc, a JSON report ({error}): {output[:300]!r}")
        continue
    if sanitized:
        got, expected = got[1], expected[1]
    results.check(got == expected, f"{name}: the same exit code and checks without /proc")
results.finish()
