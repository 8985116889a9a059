#!/usr/bin/env python3
"""Fails when the release packages would not install where the release binary runs.

    tests/release/check-packages.py DIR FLOOR      (FLOOR: 2.31, the release binary's glibc)

DIR holds one rocdoc .deb and one .rpm (scripts/package-release.sh). For each: the packaged
bin/rocdoc passes tests/release/check-binary.py at FLOOR (glibc symbol versions, NEEDED list);
the .rpm's requirements name no GLIBC_x.y above FLOOR (rpm -qp --requires); the .deb's libc6
dependency asks for no version above FLOOR (dpkg-deb -f Depends). Prints what it found."""
import glob
import io
import os
import re
import subprocess
import sys
import tarfile
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def version(text):
    return tuple(int(part) for part in text.split("."))


def one(pattern):
    found = glob.glob(pattern)
    if len(found) != 1:
        sys.exit(f"check-packages: expected one {os.path.basename(pattern)}, found {found}")
    return found[0]


def main():
    folder, floor = sys.argv[1], version(sys.argv[2])
    deb, rpm = one(os.path.join(folder, "*.deb")), one(os.path.join(folder, "*.rpm"))
    failures = []
    with tempfile.TemporaryDirectory() as scratch:
        subprocess.run(["dpkg-deb", "-x", deb, os.path.join(scratch, "deb")], check=True)
        # rpm2archive (package rpm2cpio) writes the payload as a tar.gz: no cpio needed.
        archive = subprocess.run(["rpm2archive", "-"], stdin=open(rpm, "rb"), capture_output=True, check=True).stdout
        with tarfile.open(fileobj=io.BytesIO(archive)) as payload:
            payload.extractall(os.path.join(scratch, "rpm"))
        for kind in ("deb", "rpm"):
            binary = os.path.join(scratch, kind, "usr", "bin", "rocdoc")
            if subprocess.run([sys.executable, os.path.join(HERE, "check-binary.py"), binary, sys.argv[2]]).returncode:
                failures.append(f"the {kind}'s bin/rocdoc needs more than glibc {sys.argv[2]}")
    requires = subprocess.run(["rpm", "-qp", "--requires", rpm], capture_output=True, text=True, check=True).stdout
    too_new = sorted({v for v in re.findall(r"GLIBC_([0-9]+(?:\.[0-9]+)+)", requires) if version(v) > floor})
    print(f"{os.path.basename(rpm)}: requires GLIBC versions up to "
          f"{max(re.findall(r'GLIBC_([0-9.]+)', requires) or ['none'], key=lambda v: version(v) if v != 'none' else ())}")
    if too_new:
        failures.append(f"{os.path.basename(rpm)} requires GLIBC_{', GLIBC_'.join(too_new)}")
    depends = subprocess.run(["dpkg-deb", "-f", deb, "Depends"], capture_output=True, text=True, check=True).stdout.strip()
    print(f"{os.path.basename(deb)}: Depends: {depends}")
    for wanted in re.findall(r"libc6 \(>= ([0-9.]+)\)", depends):
        if version(wanted) > floor:
            failures.append(f"{os.path.basename(deb)} depends on libc6 (>= {wanted})")
    for failure in failures:
        print(f"check-packages: {failure}", file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
