#!/usr/bin/env python3
"""Proves a release binary reports what the tested build reports, fixture by fixture.

    tests/release/compare-verdicts.py RELEASE_BINARY REFERENCE_BINARY FIXTURES_DIR

The release binary is built elsewhere (scripts/build-release.sh: Debian 11's gcc 10, fmt 7,
nlohmann-json 3.9, yaml-cpp 0.6, libarchive 3.4); the reference is the build the test suite
checked. For every fixture directory both run `check --root DIR --json`, and the exit codes and
the whole reports must be equal, except what differs by nature: `created` (the time),
`tool.version`'s build, and each probe's `duration_ms`. Prints the first difference of each
fixture that differs and exits 1 if any does.
"""
import json
import os
import subprocess
import sys


def report(binary, root):
    done = subprocess.run([binary, "check", "--root", root, "--json"], capture_output=True, text=True)
    try:
        document = json.loads(done.stdout)
    except json.JSONDecodeError:
        document = {"unparsable stdout": done.stdout, "stderr": done.stderr}
    document.pop("created", None)
    document.pop("tool", None)
    for probe in document.get("probes", []):
        probe.pop("duration_ms", None)
    return done.returncode, document


def first_difference(a, b, path="$"):
    if type(a) is not type(b):
        return f"{path}: {a!r} != {b!r}"
    if isinstance(a, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                return f"{path}.{key}: only in {'release' if key in a else 'reference'}"
            found = first_difference(a[key], b[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} items != {len(b)}"
        for index, (x, y) in enumerate(zip(a, b)):
            found = first_difference(x, y, f"{path}[{index}]")
            if found:
                return found
        return None
    return None if a == b else f"{path}: {a!r} != {b!r}"


def main():
    release, reference, fixtures = sys.argv[1:4]
    roots = sorted(os.path.join(fixtures, name) for name in os.listdir(fixtures)
                   if os.path.isdir(os.path.join(fixtures, name)))
    differing = 0
    for root in roots:
        release_code, release_report = report(release, root)
        reference_code, reference_report = report(reference, root)
        difference = (f"exit {release_code} != {reference_code}" if release_code != reference_code
                      else first_difference(release_report, reference_report))
        if difference:
            differing += 1
            print(f"DIFFERS {os.path.basename(root)}: {difference}")
    print(f"{len(roots) - differing}/{len(roots)} fixtures: the release binary's report equals the reference's")
    return 1 if differing or not roots else 0


if __name__ == "__main__":
    sys.exit(main())
