"""Every hostile family of the reliability audit 2026-12, at its largest size, within bounds.

bench/hostile_families.py makes the inputs and measures them (time, and rocdoc's own peak RSS
from wait4); this test runs the largest size of each family once and asserts only generous
limits: 2 s and 100 MB on 2 cores for a release build (issue 20: "a stranger's archive is read
in at most 2 s and 100 MB"), ten times that under a sanitizer, which slows rocdoc down and
maps shadow memory. rocdoc may refuse an input (exit 2) or judge it (0 or 1); it may not crash
or be killed.
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import hostile_families  # noqa: E402

from common import Results  # noqa: E402

binary = sys.argv[1]
results = Results()
SANITIZED = bool(os.environ.get("ROCDOC_SANITIZED"))
LIMIT_S = 20.0 if SANITIZED else 2.0
LIMIT_MB = 1000.0 if SANITIZED else 100.0

with tempfile.TemporaryDirectory() as scratch:
    for name, (_, sizes, unit) in hostile_families.FAMILIES.items():
        size = sizes[-1]
        input_bytes, seconds, rss, code, stderr = hostile_families.run_family(
            binary, name, size, scratch)
        what = f"{name} ({size} {unit}, a {input_bytes}-byte input)"
        print(f"{what}: {seconds:.2f} s, {rss:.0f} MB, exit {code}", flush=True)
        results.check(code in (0, 1, 2), f"{what}: exit 0, 1 or 2 (got {code}: {stderr[:200]!r})")
        results.check(seconds <= LIMIT_S, f"{what}: {seconds:.2f} s <= {LIMIT_S} s")
        results.check(rss <= LIMIT_MB, f"{what}: peak RSS {rss:.0f} MB <= {LIMIT_MB} MB")

results.finish()
