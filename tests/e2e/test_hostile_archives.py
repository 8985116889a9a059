"""Hostile snapshot archives and what rocdoc leaves on disk: the reliability audit of 2026-12
(issue 20: D1, D7, D12), as the project's own tests.

D1: a few KB of .tar.gz that libarchive inflates for minutes (gzip inside gzip, a GNU dumpdir
or a directory with a pax size whose body it skips, pax headers of 1 MiB) is refused at once.
D7: deep paths cost no walk to / per entry; past the depth or name bounds they are refused.
D12: snapshot -o leaves no temporary file on a signal, and a full disk leaves no partial
--dir, --json-output or -o file.

The time limits are hang detectors (generous, sanitizer builds included), not benchmarks.
"""
import gzip
import io
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import tarfile
import tempfile
import time
import zlib

from common import FIXTURES, Results

binary = os.path.realpath(sys.argv[1])
results = Results()
BASE = os.path.join(FIXTURES, "full-stack-healthy")
HANG = 20  # seconds: the unfixed reader took from 4 s to hours on these
MANIFEST = json.dumps({"format": "rocdoc-snapshot/1"}).encode()


def header(name, size, kind, mode=b"0000644\0"):
    h = bytearray(512)
    h[0:len(name)] = name.encode()
    h[100:108] = mode
    h[108:116] = h[116:124] = b"0000000\0"
    h[124:136] = b"\x80" + size.to_bytes(11, "big") if size >= 8 ** 11 else b"%011o\0" % size
    h[136:148] = b"00000000000\0"
    h[148:156] = b" " * 8
    h[156:157] = kind
    h[257:265] = b"ustar\x0000"
    h[148:156] = b"%06o\0 " % sum(h)
    return bytes(h)


def member(name, data=b"", kind=b"0"):
    return header(name, len(data), kind) + data + b"\0" * (-len(data) % 512)


def pax_record(key, value):
    body = b" " + key + b"=" + value + b"\n"
    n = len(body) + 1
    while len(str(n)) + len(body) != n:
        n = len(str(n)) + len(body)
    return str(n).encode() + body


def pax(records, name, kind=b"0", data=b""):
    text = b"".join(pax_record(k, v) for k, v in records)
    return member("PaxHeader", text, b"x") + header(name, len(data), kind) + data + \
        b"\0" * (-len(data) % 512)


def start():
    return member("rocdoc-snapshot.json", MANIFEST) + member("root/", kind=b"5")


def repeated_gzip(head, block, count, tail=b"\0" * 1024):
    """A gzip member of head + block * count + tail, deflated once per distinct piece (a full
    flush makes each piece's deflate independent), so that gigabytes cost no time here. The
    CRC and length are not right: what is refused is refused long before the end."""
    co = zlib.compressobj(9, zlib.DEFLATED, -15)
    out = b"\x1f\x8b\x08\0\0\0\0\0\x02\xff" + co.compress(head) + co.flush(zlib.Z_FULL_FLUSH)
    out += co.compress(block) + co.flush(zlib.Z_FULL_FLUSH)
    again = co.compress(block) + co.flush(zlib.Z_FULL_FLUSH)
    out += again * (count - 1)
    return out + co.compress(tail) + co.flush() + struct.pack("<II", 0, 0)


def write(scratch, name, data):
    path = os.path.join(scratch, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def check_snapshot(path, *args):
    begin = time.monotonic()
    proc = subprocess.run([binary, "check", "--snapshot", path, *args], capture_output=True,
                          timeout=HANG * 30)
    return proc, time.monotonic() - begin


def check_refused(proc, seconds, what, needle):
    stderr = proc.stderr.decode("utf-8", "replace")
    results.check(proc.returncode == 2, f"{what}: exit 2 (got {proc.returncode}, {stderr[:200]!r})")
    results.check(needle in stderr, f"{what}: stderr names the problem ({needle!r}): {stderr[:300]!r}")
    results.check(stderr.count("\n") == 1 and len(stderr) < 600,
                  f"{what}: one short line on stderr ({len(stderr)} bytes)")
    results.check(seconds < HANG, f"{what}: answered in {seconds:.1f} s")


def check_read(proc, seconds, what):
    results.check(proc.returncode in (0, 1),
                  f"{what}: read (exit {proc.returncode}: {proc.stderr[:300]!r})")
    results.check(seconds < HANG, f"{what}: answered in {seconds:.1f} s")


with tempfile.TemporaryDirectory() as scratch:
    # What rocdoc and tar czf write is still read.
    subprocess.run([binary, "snapshot", "--root", BASE, "-o", os.path.join(scratch, "own.tar.gz")],
                   check=True, capture_output=True, timeout=HANG * 3)
    check_read(*check_snapshot(os.path.join(scratch, "own.tar.gz")), "rocdoc snapshot -o")
    plain = os.path.join(scratch, "plain")
    shutil.copytree(BASE, plain, symlinks=True)
    if shutil.which("tar"):
        subprocess.run(["tar", "czf", os.path.join(scratch, "tar.tar.gz"), "-C", scratch, "plain"],
                       check=True, timeout=HANG)
        check_read(*check_snapshot(os.path.join(scratch, "tar.tar.gz")), "tar czf of a fixture")

    # D1a. gzip inside gzip, with a GNU dumpdir of 4 GiB: 10 KB that took 7.8 s (64 GiB: hours).
    inner = repeated_gzip(start() + header("root/dd", 4 << 30, b"D"), b"\x01" * (1 << 20), 4096)
    bomb = write(scratch, "nested.tar.gz", gzip.compress(inner, 9))
    check_refused(*check_snapshot(bomb), "gzip in gzip, 4 GiB dumpdir", "gzip inside gzip")
    # Even a small archive compressed twice is refused: each layer multiplies.
    twice = io.BytesIO()
    with tarfile.open(fileobj=twice, mode="w") as tar:
        tar.add(plain, arcname=".")
    path = write(scratch, "twice.tar.gz", gzip.compress(gzip.compress(twice.getvalue())))
    check_refused(*check_snapshot(path), "a snapshot compressed twice", "gzip inside gzip")
    # fleet reads archives the same way.
    fleet = os.path.join(scratch, "fleet")
    os.mkdir(fleet)
    shutil.copy(bomb, os.path.join(fleet, "node1.tar.gz"))
    begin = time.monotonic()
    proc = subprocess.run([binary, "fleet", fleet], capture_output=True, timeout=HANG * 30)
    results.check(time.monotonic() - begin < HANG,
                  f"fleet DIR with the bomb: {time.monotonic() - begin:.1f} s (exit {proc.returncode})")

    # D1b. One gzip layer: a dumpdir, and a directory with a pax size, whose bodies (1 GiB,
    # 1 MB packed) libarchive would inflate to skip them.
    path = write(scratch, "dumpdir.tar.gz",
                 repeated_gzip(start() + header("root/dd", 1 << 30, b"D"), b"\x01" * (1 << 20), 1024))
    check_refused(*check_snapshot(path), "a 1 GiB dumpdir", "a directory that carries a body")
    path = write(scratch, "dir-size.tar.gz",
                 repeated_gzip(start() + pax([(b"size", str(1 << 30).encode())], "root/d/", b"5"),
                               b"\x01" * (1 << 20), 1024))
    check_refused(*check_snapshot(path), "a directory with a 1 GiB pax size",
                  "a directory that carries a body")

    # D1c. Pax headers of 1 MiB, 400 of them (460 KB packed): inflated, never counted.
    record = pax_record(b"comment", b"c" * ((1 << 20) - 32))
    block = member("PaxHeader", record, b"x") + header("root/x", 0, b"0")
    path = write(scratch, "pax-headers.tar.gz", repeated_gzip(start(), block, 400))
    check_refused(*check_snapshot(path), "400 pax headers of 1 MiB", "inflates to more than 256 MiB")

    # D7a. 3,000 directories 2,000 components deep (pax paths): 13 s for 10,000 unfixed.
    deep = "root/" + "a/" * 2000
    body = b"".join(pax([(b"path", f"{deep}{i}/".encode())], "d/", b"5") for i in range(3000))
    path = write(scratch, "deep.tar.gz", gzip.compress(start() + body + b"\0" * 1024, 6))
    check_refused(*check_snapshot(path), "3,000 paths 2,000 deep", "deeper than 256 components")
    # Within the bound, deep paths stay linear: 20,000 entries 250 components deep.
    deep = "root/" + "a/" * 250
    body = b"".join(pax([(b"path", f"{deep}{i}".encode())], "f") for i in range(20000))
    path = write(scratch, "deep-ok.tar.gz", gzip.compress(start() + body + b"\0" * 1024, 6))
    check_read(*check_snapshot(path), "20,000 files 250 components deep")
    # D7b. Names of 20 MB in all (5,000 of 4,000 bytes, 16 components): refused.
    wide = "root/" + "/".join(["b" * 249] * 16)
    body = b"".join(pax([(b"path", f"{wide}{i}".encode())], "f") for i in range(5000))
    path = write(scratch, "long-names.tar.gz", gzip.compress(start() + body + b"\0" * 1024, 6))
    check_refused(*check_snapshot(path), "5,000 names of 4,000 bytes", "names add up to more than 16 MiB")

    # D12a. A signal while rocdoc writes a file (held in fsync by strace) leaves no file:
    # snapshot -o, and the reports of check (--json-output, --format prometheus --output), which
    # replace a file through an unnamed one.
    def signalled_during_fsync(name, out, *args):
        tracer = subprocess.Popen(
            ["strace", "-qq", "-o", "/dev/null", "-e", "trace=fsync",
             "-e", "inject=fsync:delay_enter=4000000", binary, *args],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        child = None
        deadline = time.monotonic() + HANG
        while child is None and time.monotonic() < deadline:
            time.sleep(0.1)
            try:
                with open(f"/proc/{tracer.pid}/task/{tracer.pid}/children") as f:
                    pids = f.read().split()
                child = int(pids[0]) if pids else None
            except OSError:
                pass
        time.sleep(1.5)  # inside the 4 s fsync (a snapshot takes 10-30 ms; ASan: < 1 s)
        if child is not None:
            os.kill(child, getattr(signal, "SIG" + name))
        tracer.wait(timeout=HANG * 3)
        stem = os.path.basename(out)
        left = [n for n in os.listdir(os.path.dirname(out)) if stem in n]
        return child is not None and left == [], left

    if shutil.which("strace"):
        for name in ("KILL", "USR1", "ALRM", "TERM"):
            out = os.path.join(scratch, f"out-{name}.tar.gz")
            clean, left = signalled_during_fsync(name, out, "snapshot", "--root", BASE, "-o", out)
            results.check(clean, f"SIG{name} during snapshot -o: nothing left (left {left})")
        reports = os.path.join(scratch, "reports")
        os.mkdir(reports)
        for what, option in (("prometheus", ["--format", "prometheus", "--output"]),
                             ("json", ["--json-output"])):
            out = os.path.join(reports, f"report-{what}")
            clean, left = signalled_during_fsync("KILL", out, "check", "--root", BASE, *option, out)
            results.check(clean, f"SIGKILL during check {' '.join(option)}: nothing left "
                          f"(left {left})")
    else:
        print("skipped: the signal cases need strace")

    # D12b. A full disk (a 16 KiB tmpfs in a mount namespace): nothing partial is left.
    if os.geteuid() == 0 and subprocess.run(["unshare", "-m", "true"],
                                            capture_output=True).returncode == 0:
        small = os.path.join(scratch, "small")
        os.mkdir(small)
        script = f"""
mount -t tmpfs -o size=16k tmpfs '{small}' || exit 99
cd '{small}'
'{binary}' snapshot --root '{BASE}' --dir sd > /dev/null 2>&1; echo "dir $? $(ls -A | tr "\\n" " ")"
'{binary}' snapshot --root '{BASE}' --dir sd 2>&1 >/dev/null | head -1 | sed 's/^/retry /'
'{binary}' check --root '{BASE}' --json-output p.json > /dev/null 2>&1; echo "partial $? $(ls -A | tr "\\n" " ")"
dd if=/dev/zero of=fill bs=1k > /dev/null 2>&1  # whatever room is left, taken
'{binary}' snapshot --root '{BASE}' -o s.tar.gz > /dev/null 2>&1; echo "o $? $(ls -A | tr "\\n" " ")"
'{binary}' check --root '{BASE}' --json-output j.json > /dev/null 2>&1; echo "json $? $(ls -A | tr "\\n" " ")"
"""
        proc = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True,
                              text=True, timeout=HANG * 6)
        if proc.returncode == 99:
            print("skipped: no tmpfs mount in the namespace")
        else:
            lines = {l.split(" ", 1)[0]: l for l in proc.stdout.splitlines()}
            results.check(lines.get("dir", "").startswith("dir 2") and
                          lines["dir"].split()[2:] == [],
                          f"snapshot --dir on a full disk: exit 2, nothing left: {lines.get('dir')!r}")
            results.check("already holds a snapshot" not in lines.get("retry", ""),
                          f"a retry is not refused: {lines.get('retry')!r}")
            results.check(lines.get("partial", "").startswith("partial 2") and
                          lines["partial"].split()[2:] == [],
                          f"check --json-output of more than fits: nothing left: {lines.get('partial')!r}")
            results.check(lines.get("o", "").startswith("o 2") and lines["o"].split()[2:] == ["fill"],
                          f"snapshot -o on a full disk: nothing left: {lines.get('o')!r}")
            results.check(lines.get("json", "").startswith("json 2") and
                          lines["json"].split()[2:] == ["fill"],
                          f"check --json-output on a full disk: nothing left: {lines.get('json')!r}")
    else:
        print("skipped: the full-disk cases need root and unshare -m")

results.finish()
