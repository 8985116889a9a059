"""rocdoc on the test machine itself, which has no AMD GPU.

It must exit 1, report gpu.none as fail, and list exactly the PCI functions `lspci -n` shows.

A sanitizer build (ROCDOC_SANITIZE; the build passes ROCDOC_SANITIZED=address,undefined here)
changes two expectations, stated below where they apply: the sanitizer runtimes are NEEDED
beside glibc, and the strace run turns LeakSanitizer off (it refuses to run under ptrace, and
its leak check at exit runs in a cloned thread).
"""
import os
import subprocess
import sys

from common import Results, report, validate

binary = sys.argv[1]
results = Results()

code, document, stderr = report(binary)
results.check(code == 1, f"live check exits 1 (got {code}; stderr {stderr!r})")
results.check(validate(document) is None, f"live report matches the schema: {validate(document)}")
by_id = {c["id"]: c for c in document["checks"]}
results.check(by_id["gpu.none"]["status"] == "fail", "gpu.none fails on a machine without an AMD GPU")
results.check(document["host"]["kind"] == "live", "host kind is live")

lspci = subprocess.run(["lspci", "-n", "-D"], capture_output=True, text=True, check=True).stdout
expected = set()
for line in lspci.splitlines():
    fields = line.split()
    # 0000:00:01.0 ffff: 1af4:1045 (rev 01)
    expected.add((fields[0], fields[2]))
found = {(d["bdf"], f"{d['vendor']}:{d['device']}") for d in document["facts"]["pci"]["devices"]}
results.check(found == expected, f"PCI functions match lspci -n: rocdoc {sorted(found)} vs lspci {sorted(expected)}")
for probe in document["probes"]:
    results.check(probe["ok"], f"probe {probe['name']} ran without error ({probe['error']})")

sanitizers = [s for s in os.environ.get("ROCDOC_SANITIZED", "").split(",") if s]

# The default check starts no subprocess (so no Python): one execve, no fork, no clone of a process.
# Sanitized: the same, with LeakSanitizer off (ASAN_OPTIONS=detect_leaks=0) for this run only.
trace_env = dict(os.environ)
if sanitizers:
    trace_env["ASAN_OPTIONS"] = ":".join(filter(None, [trace_env.get("ASAN_OPTIONS"), "detect_leaks=0"]))
trace = subprocess.run(["strace", "-f", "-e", "trace=execve,fork,vfork,clone,clone3", binary, "check"],
                       capture_output=True, text=True, env=trace_env)
# Threads of rocdoc itself (the probes run side by side: clone with CLONE_THREAD) are no process.
calls = [line for line in trace.stderr.splitlines() if "(" in line and not line.startswith("+++")
         and "CLONE_THREAD" not in line]
results.check(len(calls) == 1 and calls[0].startswith("execve("), f"check runs no subprocess: {calls}")

# The binary asks glibc for nothing newer than 2.35, so it runs on Ubuntu 22.04 too.
import re
import shutil

if shutil.which("objdump"):
    symbols = subprocess.run(["objdump", "-T", binary], capture_output=True, text=True).stdout
    versions = sorted({tuple(int(x) for x in v.split(".")) for v in re.findall(r"GLIBC_([0-9.]+)", symbols)})
    results.check(versions and versions[-1] <= (2, 35), f"glibc floor is 2.35 at most: {versions[-1:]}")
    needed = subprocess.run(["objdump", "-p", binary], capture_output=True, text=True).stdout
    libraries = sorted(re.findall(r"NEEDED\s+(\S+)", needed))
    if not sanitizers:
        results.check(all(lib.startswith(("libc.so", "ld-linux")) for lib in libraries),
                      f"the binary needs nothing beyond glibc at run time: {libraries}")
    else:
        # gcc links the sanitizer runtimes as shared libraries (libasan, libubsan), clang links
        # them statically and adds glibc's libm, libdl, libpthread, librt, libresolv. libstdc++
        # and libgcc_s are shared here (CMakeLists.txt says why). Nothing else: yaml-cpp and
        # libpci stay out of the NEEDED list in this build too.
        runtimes = {"address": "libasan.so", "undefined": "libubsan.so", "leak": "liblsan.so",
                    "thread": "libtsan.so"}
        allowed = ("libc.so", "ld-linux", "libm.so", "libdl.so", "libpthread.so", "librt.so",
                   "libresolv.so", "libstdc++.so", "libgcc_s.so",
                   *(runtimes[s] for s in sanitizers if s in runtimes))
        results.check(all(lib.startswith(allowed) for lib in libraries),
                      f"the sanitized binary needs glibc and {sanitizers} runtimes only: {libraries}")

results.finish()
