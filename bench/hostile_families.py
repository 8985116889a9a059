#!/usr/bin/env python3
"""What each hostile input family of the reliability audits costs as it grows: time and peak RSS.

Usage: bench/hostile_families.py [build/rocdoc] [FAMILY...]

Each family (one per defect of shared/reference/reliability-2026-12/REPORT.md that grows with its
input) is fed at growing sizes; one line per run: family, input bytes, seconds, peak RSS of
rocdoc (from wait4), exit code. A linear reader grows by about the size ratio from one line to
the next; a quadratic one by its square. tests/e2e/test_hostile_bounds.py runs the largest size
of each family and asserts only generous limits (2 s and 100 MB on 2 cores, release build).
"""
import gzip
import io
import json
import os
import shutil
import struct
import subprocess
import sys
import tarfile
import tempfile
import time
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "..", "tests", "fixtures", "full-stack-healthy")
MIB = 1 << 20


def tar_member(name, data=b"", kind=b"0", size=None):
    """One ustar header (and its body), as the audit's reproducers write them by hand."""
    size = len(data) if size is None else size
    h = bytearray(512)
    h[0:len(name)] = name.encode()
    h[100:108] = b"0000644\0"
    h[108:116] = h[116:124] = b"0000000\0"
    h[124:136] = (b"%011o\0" % size) if size < 8 ** 11 else b"\x80" + size.to_bytes(11, "big")
    h[136:148] = b"00000000000\0"
    h[148:156] = b" " * 8
    h[156:157] = kind
    h[257:265] = b"ustar\x0000"
    h[148:156] = b"%06o\0 " % sum(h)
    return bytes(h) + data + b"\0" * (-len(data) % 512)


def pax_record(key, value):
    body = b" " + key + b"=" + value + b"\n"
    n = len(body) + 1
    while len(str(n)) + len(body) != n:
        n = len(str(n)) + len(body)
    return str(n).encode() + body


MANIFEST = tar_member("rocdoc-snapshot.json", json.dumps({"format": "rocdoc-snapshot/1"}).encode())


def archive_bomb(scratch, size):
    """D1: gzip inside gzip, and a GNU dumpdir entry declaring a body of `size` MiB."""
    declared = size * MIB
    path = os.path.join(scratch, "bomb.tar.gz")
    co = zlib.compressobj(9, zlib.DEFLATED, -15)
    head = b"\x1f\x8b\x08\0\0\0\0\0\x02\xff" + co.compress(
        MANIFEST + tar_member("root/", kind=b"5") + tar_member("root/dd", kind=b"D", size=declared))
    head += co.flush(zlib.Z_FULL_FLUSH)
    block = co.compress(b"\x01" * MIB) + co.flush(zlib.Z_FULL_FLUSH)
    block = co.compress(b"\x01" * MIB) + co.flush(zlib.Z_FULL_FLUSH)  # the steady-state block
    tail = co.compress(b"\0" * 1024) + co.flush() + struct.pack("<II", 0, 0)
    with gzip.GzipFile(path, "wb", 9) as g:
        g.write(head)
        for _ in range(max(1, declared // MIB)):
            g.write(block)
        g.write(tail)
    return ["check", "--snapshot", path]


def archive_deep_paths(scratch, size):
    """D7: entries 2000 directories deep (pax paths), as many as fit in `size` bytes of tar."""
    path = os.path.join(scratch, "deep.tar.gz")
    deep = "root/" + "a/" * 2000
    one = tar_member("PaxHeader", pax_record(b"path", (deep + "0000000/").encode()), b"x")
    with gzip.GzipFile(path, "wb", 6) as g:
        g.write(MANIFEST + tar_member("root/", kind=b"5"))
        for i in range(max(1, size // (len(one) + 512))):
            g.write(tar_member("PaxHeader", pax_record(b"path", (deep + "%07d/" % i).encode()), b"x"))
            g.write(tar_member("d/", kind=b"5"))
        g.write(b"\0" * 1024)
    return ["check", "--snapshot", path]


def empty_objects(size):
    n = max(1, size // 3)
    return "[" + "{}," * (n - 1) + "{}]"


def manifest_objects(scratch, size):
    """D2: the manifest of --root with an array of empty objects of `size` bytes."""
    d = os.path.join(scratch, "manifest")
    shutil.copytree(FIXTURE, d, symlinks=True)
    path = os.path.join(d, "rocdoc-snapshot.json")
    with open(path) as f:
        text = f.read().rstrip()
    with open(path, "w") as f:
        f.write(text[:-1] + ', "x": ' + empty_objects(size) + "}")
    return ["check", "--root", d]


def report_objects(scratch, size):
    """D2: report.json inside a snapshot archive, `size` bytes of empty checks."""
    path = os.path.join(scratch, "report.tar.gz")
    report = ('{"schema":"rocdoc-report/1","checks":' + empty_objects(size) + "}").encode()
    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT) as tar:
        tar.add(os.path.join(FIXTURE, "rocdoc-snapshot.json"), arcname="rocdoc-snapshot.json")
        tar.add(os.path.join(FIXTURE, "root"), arcname="root")
        info = tarfile.TarInfo("report.json")
        info.size = len(report)
        tar.addfile(info, io.BytesIO(report))
    return ["check", "--snapshot", path]


def bundle_headers(scratch, size):
    """D4: back-to-back compressed offload bundles, each a 1024-entry header (287 KB inflated)."""
    eid = b"hip-amdgcn-amd-amdhsa--gfx90a" + b"x" * (256 - 29)
    header = b"__CLANG_OFFLOAD_BUNDLE__" + struct.pack("<Q", 1024) + (
        struct.pack("<QQQ", 1, 0, len(eid)) + eid) * 1024
    packed = zlib.compress(header, 9)
    one = b"CCOB" + struct.pack("<HHII", 2, 0, 24 + len(packed), len(header)) + b"\0" * 8 + packed
    path = os.path.join(scratch, "bundles.bin")
    with open(path, "wb") as f:
        f.write(one * max(1, size // len(one)))
    return ["targets", path]


def overlapping_sections(scratch, size):
    """D8: an ELF naming .hip_fatbin 4093 times over one region of `size` bytes."""
    nsec = 4093
    eid = b"hip-amdgcn-amd-amdhsa--gfx90a"
    bundle = b"__CLANG_OFFLOAD_BUNDLE__" + struct.pack("<Q", 1) + struct.pack(
        "<QQQ", 1, 0, len(eid)) + eid
    body = 4096
    region = bundle + b"\0" * size
    names = b"\0.hip_fatbin\0.shstrtab\0"
    names_off = body + len(region)
    shoff = (names_off + len(names) + 63) // 64 * 64
    count = nsec + 2
    eh = bytearray(64)
    eh[0:4] = b"\x7fELF"
    eh[4], eh[5], eh[6] = 2, 1, 1
    struct.pack_into("<HHIQQQIHHHHHH", eh, 16, 3, 62, 1, 0, 0, shoff, 0, 64, 0, 0, 64, count,
                     count - 1)

    def sh(n, t, o, s, a):
        return struct.pack("<IIQQQQIIQQ", n, t, 0, 0, o, s, 0, 0, a, 0)

    table = sh(0, 0, 0, 0, 0) + sh(1, 1, body, len(region), 4096) * nsec + sh(
        13, 3, names_off, len(names), 1)
    path = os.path.join(scratch, "sections.so")
    with open(path, "wb") as f:
        f.write(bytes(eh).ljust(body, b"\0"))
        f.write(region)
        f.write(names)
        f.write(b"\0" * (shoff - names_off - len(names)))
        f.write(table)
    return ["targets", path]


def fleet_nodes(scratch, size):
    """D11: a --nodes file of one line of `size` bytes (an endless line, bounded)."""
    report = os.path.join(scratch, "n1.json")
    with open(report, "w") as f:
        f.write('{"schema":"rocdoc-report/1","checks":[]}')
    nodes = os.path.join(scratch, "nodes.txt")
    with open(nodes, "w") as f:
        f.write("n" * size)
    return ["fleet", report, "--nodes", nodes]


def triage_lines(scratch, size):
    """Triage of `size` bytes of empty lines (linear since the first audit; kept as a guard)."""
    path = os.path.join(scratch, "log.txt")
    with open(path, "w") as f:
        f.write("\n" * size)
    return ["triage", path]


def triage_short_lines(scratch, size):
    """Triage of `size` bytes of 4-byte lines: as short as a line that may hold a fact ("gfx9"),
    so each is scanned: the most lines a log of that size makes rocdoc look at."""
    path = os.path.join(scratch, "log.txt")
    with open(path, "w") as f:
        f.write("abcd\n" * (size // 5))
    return ["triage", path]


# name: (make, sizes in bytes or units, what a unit is)
FAMILIES = {
    "archive-bomb": (archive_bomb, [1 << 10, 1 << 12, 1 << 16], "MiB declared"),
    "archive-deep-paths": (archive_deep_paths, [MIB // 4, MIB, 4 * MIB], "tar bytes"),
    "manifest-objects": (manifest_objects, [MIB, 4 * MIB, 16 * MIB], "bytes"),
    "report-objects": (report_objects, [MIB, 4 * MIB, 16 * MIB], "bytes"),
    "bundle-headers": (bundle_headers, [64 << 10, MIB, 16 * MIB], "bytes"),
    "overlapping-sections": (overlapping_sections, [MIB, 4 * MIB, 16 * MIB], "region bytes"),
    "fleet-nodes-line": (fleet_nodes, [MIB, 4 * MIB, 16 * MIB], "bytes"),
    "triage-empty-lines": (triage_lines, [MIB, 4 * MIB, 16 * MIB], "bytes"),
    "triage-short-lines": (triage_short_lines, [MIB, 4 * MIB, 16 * MIB], "bytes"),
}


def measure(binary, args, timeout=120):
    """Seconds, peak RSS in MB and exit code of one run (peak RSS of that child, from wait4)."""
    start = time.monotonic()
    proc = subprocess.Popen([binary, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = start + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            proc.kill()
            pid, status, usage = os.wait4(proc.pid, 0)
            break
        time.sleep(0.005)
    seconds = time.monotonic() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    stderr = proc.stderr.read().decode("utf-8", "replace")
    return seconds, usage.ru_maxrss / 1024, proc.returncode, stderr


def run_family(binary, name, size, scratch):
    make = FAMILIES[name][0]
    d = tempfile.mkdtemp(dir=scratch)
    args = make(d, size)
    last = args[-1]
    input_bytes = os.path.getsize(last) if os.path.isfile(last) else size
    try:
        return (input_bytes, *measure(binary, args))
    finally:
        shutil.rmtree(d)


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else "build/rocdoc"
    names = sys.argv[2:] or list(FAMILIES)
    with tempfile.TemporaryDirectory() as scratch:
        for name in names:
            _, sizes, unit = FAMILIES[name]
            for size in sizes:
                input_bytes, seconds, rss, code, _ = run_family(binary, name, size, scratch)
                print(f"{name:22} {size:>10} {unit:18} input {input_bytes:>10} B  "
                      f"{seconds:7.3f} s  {rss:7.1f} MB  exit {code}", flush=True)


if __name__ == "__main__":
    main()
