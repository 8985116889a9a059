#!/usr/bin/env python3
"""Fails when a rocdoc binary needs more than glibc FLOOR or any library but libc.

    tests/release/check-binary.py BINARY FLOOR      (FLOOR: 2.31 for the release binary)

Reads the dynamic symbol versions (objdump -T) and the NEEDED entries (objdump -p): every
GLIBC_x.y a symbol asks for must be <= FLOOR, and NEEDED may hold only glibc's own libraries:
libc.so.6, the dynamic loader, libdl.so.2 and libpthread.so.0 (dlopen and threads, which glibc
before 2.34 keeps outside libc.so.6; both ship in the same package as libc.so.6 everywhere).
Prints what it found."""
import re
import subprocess
import sys

ALLOWED_NEEDED = {"libc.so.6", "ld-linux-x86-64.so.2", "libdl.so.2", "libpthread.so.0"}


def version(text):
    return tuple(int(part) for part in text.split("."))


def main():
    binary, floor = sys.argv[1], version(sys.argv[2])
    symbols = subprocess.run(["objdump", "-T", binary], capture_output=True, text=True, check=True).stdout
    versions = sorted({version(v) for v in re.findall(r"GLIBC_([0-9]+(?:\.[0-9]+)+)", symbols)})
    headers = subprocess.run(["objdump", "-p", binary], capture_output=True, text=True, check=True).stdout
    needed = re.findall(r"^\s*NEEDED\s+(\S+)", headers, flags=re.M)
    highest = versions[-1] if versions else None
    print(f"{binary}: NEEDED {', '.join(needed)}; highest GLIBC_ symbol version "
          f"{'.'.join(map(str, highest)) if highest else 'none'} (floor {sys.argv[2]})")
    problems = []
    if highest and highest > floor:
        above = [".".join(map(str, v)) for v in versions if v > floor]
        problems.append(f"symbols need glibc {', '.join(above)}, above the floor {sys.argv[2]}")
    extra = [name for name in needed if name not in ALLOWED_NEEDED]
    if extra:
        problems.append(f"needs libraries beyond libc: {', '.join(extra)}")
    for problem in problems:
        print(f"FAILED: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
