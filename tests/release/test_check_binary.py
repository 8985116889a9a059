#!/usr/bin/env python3
"""tests/release/check-binary.py, the gate of the release binary, on this build's rocdoc.

This build (Debian 12, glibc 2.36 headers) asks glibc for symbols up to 2.35: the checker must
pass it at floor 2.35 and fail it at floor 2.31, the release floor, naming the versions above.
A sanitizer build NEEDs its runtimes beside glibc: the checker must fail it for that too.

    test_check_binary.py ROCDOC_BINARY
"""
import os
import re
import subprocess
import sys

checker = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check-binary.py")
binary = sys.argv[1]
sanitized = bool(os.environ.get("ROCDOC_SANITIZED"))
failures = []


def run(floor):
    done = subprocess.run([sys.executable, checker, binary, floor], capture_output=True, text=True)
    return done.returncode, done.stdout + done.stderr


code, text = run("2.35")
if sanitized:
    if code != 1 or "needs libraries beyond libc" not in text:
        failures.append(f"a sanitized binary fails for its NEEDED runtimes (exit {code}): {text}")
elif code != 0:
    failures.append(f"floor 2.35 passes this build (exit {code}): {text}")

code, text = run("2.31")
above = re.search(r"symbols need glibc ([0-9., ]+), above the floor 2\.31", text)
if code != 1 or not above:
    failures.append(f"floor 2.31 fails this build, naming the versions above it (exit {code}): {text}")

for failure in failures:
    print("FAIL:", failure)
print(f"{2 - len(failures)}/2 checks passed")
sys.exit(1 if failures else 0)
