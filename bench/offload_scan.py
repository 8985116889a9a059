#!/usr/bin/env python3
"""Times `rocdoc targets` on Debian's librocsparse.so.0.1 (1.3 GB, 111 offload bundles in its
.hip_fatbin) against a naive full scan, warm (issue 11: the scan takes at most 5 ms warm).

- rocdoc: the wall time of the whole process, min and median of RUNS runs, and its CPU time
  (user + system, from wait4: less disturbed by other load); the same for `rocdoc targets` on a
  tiny bundle file, whose time is the process's start-up and exit; the difference is the scan
  of the library alone. The target is judged on the wall-time median of the difference.
- naive: Python mmap of the whole file and a find() of every `__CLANG_OFFLOAD_BUNDLE__`, the
  way a byte scan would do it (what rocdoc must never do), min and median of 3 warm runs.

Usage: bench/offload_scan.py path/to/rocdoc [runs] [library]
Needs librocsparse0 (scripts/install-test-deps.sh)."""
import mmap
import os
import statistics
import struct
import subprocess
import sys
import tempfile
import time

BINARY = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else sys.exit(__doc__)
RUNS = int(sys.argv[2]) if len(sys.argv) > 2 else 20
LIBRARY = sys.argv[3] if len(sys.argv) > 3 else "/usr/lib/x86_64-linux-gnu/librocsparse.so.0.1"
MAGIC = b"__CLANG_OFFLOAD_BUNDLE__"
TARGET_MS = 5.0


def timed_run(args):
    """(wall ms, CPU ms of the child: user + system, its standard output)."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        child = subprocess.Popen(args, stdout=out, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(child.pid, 0)
        elapsed = (time.perf_counter() - start) * 1000
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        stdout = out.read()
    if child.returncode != 0:
        sys.exit(f"{args} exited {child.returncode}")
    return elapsed, (usage.ru_utime + usage.ru_stime) * 1000, stdout


def series(args):
    """Wall and CPU times of RUNS warm runs."""
    timed_run(args)  # warm the page cache and the binary
    runs = [timed_run(args) for _ in range(RUNS)]
    return [r[0] for r in runs], [r[1] for r in runs]


def naive_scan(path):
    """Every offset of the magic in the whole file (mmap + find), and the time it took."""
    start = time.perf_counter()
    found = []
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
        at = data.find(MAGIC)
        while at != -1:
            found.append(at)
            at = data.find(MAGIC, at + 1)
    return (time.perf_counter() - start) * 1000, found


def tiny_bundle(directory):
    ident = b"hipv4-amdgcn-amd-amdhsa--gfx1030"
    data = MAGIC + struct.pack("<QQQQ", 1, 128, 4, len(ident)) + ident
    data += b"\0" * (128 - len(data)) + b"\x7fELF"
    path = os.path.join(directory, "tiny.hipfb")
    with open(path, "wb") as f:
        f.write(data)
    return path


def line(label, times):
    return f"{label:44} min {min(times):8.2f} ms  median {statistics.median(times):8.2f} ms"


def main():
    if not os.path.exists(LIBRARY):
        sys.exit(f"{LIBRARY} is missing: scripts/install-test-deps.sh installs librocsparse0")
    size = os.path.getsize(LIBRARY)
    _, _, output = timed_run([BINARY, "targets", LIBRARY])
    print(f"{LIBRARY}: {size / 1e9:.2f} GB; rocdoc says:")
    print("  " + output.decode(errors="replace").strip().replace("\n", "\n  "))
    print(f"warm, {RUNS} runs each (wall time of the whole process)")
    with tempfile.TemporaryDirectory() as work:
        library, library_cpu = series([BINARY, "targets", LIBRARY])
        startup, startup_cpu = series([BINARY, "targets", tiny_bundle(work)])
    print(line("rocdoc targets LIBRARY", library))
    print(line("rocdoc targets tiny.hipfb (start-up)", startup))
    scan_min = min(library) - min(startup)
    scan_median = statistics.median(library) - statistics.median(startup)
    print(f"{'the scan alone (difference)':44} min {scan_min:8.2f} ms  median {scan_median:8.2f} ms")
    print(line("CPU time (user+sys), LIBRARY", library_cpu))
    print(line("CPU time (user+sys), tiny.hipfb", startup_cpu))
    cpu_scan = statistics.median(library_cpu) - statistics.median(startup_cpu)
    print(f"{'CPU time of the scan alone (difference)':44} {'':12}  median {cpu_scan:8.2f} ms")
    naive_scan(LIBRARY)  # warm
    naive = [naive_scan(LIBRARY) for _ in range(3)]
    times = [t for t, _ in naive]
    print(line(f"naive mmap+find of the whole file ({len(naive[0][1])} hits)", times))
    print(f"rocdoc is {statistics.median(times) / statistics.median(library):.0f}x faster than the "
          "naive scan, start-up included")
    print(f"target (scan <= {TARGET_MS:.0f} ms warm):",
          "met" if scan_median <= TARGET_MS else f"missed ({scan_median:.2f} ms)")


if __name__ == "__main__":
    main()
