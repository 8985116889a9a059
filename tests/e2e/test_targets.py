"""Issue 11 §1: the gfx targets compiled into HIP binaries, read from their clang offload bundles.
Run: test_targets.py path/to/rocdoc

- Debian's real libraries: librocsparse0 (111 uncompressed bundles in a 1.3 GB .hip_fatbin),
  librocrand1 (1 bundle), libamdhip64-5 (the bundle magic sits as a plain string in .rodata and
  has no .hip_fatbin: no GPU code).
- Compressed bundles: CCOB v2/zstd written by clang-offload-bundler 19 --compress; v1 and v3
  re-wrapped here from that payload with their header layouts; a zlib one (method 0) made here
  with Python's zlib from an uncompressed bundle of clang-offload-bundler 14. Each as a bare file
  and all five together in the .hip_fatbin section of a real shared object built with gcc.
- Hostile inputs: each gives its exact problem, quickly, without a crash.
- torch.arch-missing on a sysroot whose torch/lib/libtorch_hip.so is a real HIP library: the
  GPU's target, its override, its generic family target, HSA_XNACK, the rocBLAS Tensile names,
  the facts, and the same verdict from a snapshot of the same tree.
- On this machine (no ROCm torch) the check is skipped.
"""
import hashlib
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

sys.path.insert(0, os.path.dirname(__file__))
from common import SOURCE_DIR, Results, run, validate  # noqa: E402

BINARY = os.path.abspath(sys.argv[1])
results = Results()
check = results.check

LIB = "/usr/lib/x86_64-linux-gnu"
ROCSPARSE = f"{LIB}/librocsparse.so.0.1"
ROCRAND = f"{LIB}/librocrand.so.1.1"
AMDHIP = f"{LIB}/libamdhip64.so.5"
BUNDLER19 = "/usr/lib/llvm-19/bin/clang-offload-bundler"
BUNDLER14 = "/usr/bin/clang-offload-bundler-14"
DEBIAN_TARGETS = ["gfx1030", "gfx803", "gfx900:xnack-", "gfx906:xnack-", "gfx908:xnack-",
                  "gfx90a:xnack+", "gfx90a:xnack-"]
HOST_ID = "host-x86_64-unknown-linux-gnu"
AMD = "hipv4-amdgcn-amd-amdhsa--"

missing = [p for p in (ROCSPARSE, ROCRAND, AMDHIP, BUNDLER19, BUNDLER14, "/usr/bin/objcopy",
                       "/usr/bin/gcc") if not os.path.exists(p)]
if missing:
    check(False, f"missing {missing}: scripts/install-test-deps.sh installs librocsparse0, "
                 "librocrand1, libamdhip64-5, clang-tools-19, clang-tools-14, binutils, gcc")
    results.finish()

WORK = tempfile.mkdtemp(prefix="rocdoc-targets-")



def by_generation(targets):
    """The human output's order (issue 22, N25): by GPU generation, as the check report lists
    targets (gfx803 < gfx90a < gfx1030); names that are no gfx target last."""
    def key(target):
        name = target.split(":")[0]
        if not name.startswith("gfx") or "-" in name:
            return (1, 0, target)
        digits = name[3:]
        major, minor, step = (digits[:-2], digits[-2], digits[-1])
        try:
            return (0, int(major) * 10000 + int(minor, 16) * 100 + int(step, 16), target)
        except ValueError:
            return (1, 0, target)
    return sorted(targets, key=key)

def path(name):
    return os.path.join(WORK, name)


def write(name, data):
    with open(path(name), "wb") as f:
        f.write(data)
    return path(name)


def targets(*files, env=None):
    """Runs `rocdoc targets --json FILE...`: (exit code, {path: file object}, stderr, seconds)."""
    start = time.monotonic()
    proc = run(BINARY, "targets", "--json", *files, env=env)
    seconds = time.monotonic() - start
    try:
        document = json.loads(proc.stdout)
    except json.JSONDecodeError:
        check(False, f"targets --json {files} prints JSON ({proc.returncode}: {proc.stdout!r} {proc.stderr!r})")
        return proc.returncode, {}, proc.stderr, seconds
    check(document.get("schema") == "rocdoc-targets/1", f"schema of {files}: {document.get('schema')}")
    problem = validate(document, os.path.join(SOURCE_DIR, "docs", "targets.schema.json"))
    check(problem is None, f"targets --json {files} matches docs/targets.schema.json: {problem}")
    return proc.returncode, {f["path"]: f for f in document["files"]}, proc.stderr, seconds


def expect_file(found, name, kind, target_list, bundles, zstd=0, zlib_count=0, problems=(),
                registered=None):
    """Asserts every field of one file's answer."""
    got = found.get(name)
    if got is None:
        check(False, f"{name} is answered ({sorted(found)})")
        return
    want = {"path": name, "kind": kind, "targets": list(target_list), "bundles": bundles,
            "compressed_bundles": {"zstd": zstd, "zlib": zlib_count},
            "registered_bundles": registered, "problems": list(problems)}
    check(got == want, f"{os.path.basename(name)}: {json.dumps(got)} == {json.dumps(want)}")


# ---- building blocks --------------------------------------------------------------------------

def code_object(tag):
    """Bytes that stand for one device code object (the bundler does not look inside)."""
    return b"\x7fELF" + (tag.encode() * 200)[:1500]


def bundle19(target_ids, compress=False, align=4096):
    """A bundle written by clang-offload-bundler 19 (host entry + one entry per target)."""
    inputs = []
    for i, target in enumerate(target_ids):
        inputs.append(write(f"co-{i}-{target.replace(':', '_')}.co", code_object(target)))
    out = path("bundle19.out")
    args = [BUNDLER19, "-type=o", f"-bundle-align={align}",
            "-targets=" + ",".join([HOST_ID] + [AMD + t for t in target_ids]),
            "-input=/dev/null", *[f"-input={i}" for i in inputs], f"-output={out}"]
    if compress:
        args.append("--compress")
    subprocess.run(args, check=True, capture_output=True)
    with open(out, "rb") as f:
        return f.read()


def bundle14(target_ids):
    """An uncompressed bundle written by clang-offload-bundler 14 (alignment 1)."""
    inputs = [write(f"co14-{i}.co", code_object(t)) for i, t in enumerate(target_ids)]
    out = path("bundle14.out")
    subprocess.run([BUNDLER14, "-type=o",
                    "-targets=" + ",".join([HOST_ID] + [AMD + t for t in target_ids]),
                    "-inputs=" + ",".join(["/dev/null"] + inputs), f"-outputs={out}"],
                   check=True, capture_output=True)
    with open(out, "rb") as f:
        return f.read()


def md5_low(data):
    return struct.unpack("<Q", hashlib.md5(data).digest()[:8])[0]


def ccob(version, method, payload, uncompressed_size, digest=0, total=None):
    """A compressed bundle with the header of `version` (LLVM OffloadBundler.cpp layouts)."""
    head = b"CCOB" + struct.pack("<HH", version, method)
    if version == 1:
        return head + struct.pack("<IQ", uncompressed_size, digest) + payload
    if version == 2:
        size = total if total is not None else 24 + len(payload)
        return head + struct.pack("<IIQ", size, uncompressed_size, digest) + payload
    size = total if total is not None else 32 + len(payload)
    return head + struct.pack("<QQQ", size, uncompressed_size, digest) + payload


def v2_parts(data):
    """(uncompressed size, hash, zstd frame) of a CCOB v2 file."""
    assert data[:8] == b"CCOB\x02\x00\x01\x00", data[:8]
    total, uncompressed, digest = struct.unpack("<IIQ", data[8:24])
    assert total == len(data), (total, len(data))
    return uncompressed, digest, data[24:]


def pad(data, align=4096):
    return data + b"\0" * (-len(data) % align)


def plain_bundle(entries, payload_size=0):
    """An uncompressed bundle made by hand: entries are (offset, size, id bytes)."""
    out = b"__CLANG_OFFLOAD_BUNDLE__" + struct.pack("<Q", len(entries))
    for offset, size, ident in entries:
        out += struct.pack("<QQQ", offset, size, len(ident)) + ident
    return out + b"\0" * payload_size


def shared_object(name, fatbin=None, wrappers=None):
    """A real small shared object built by gcc, with `fatbin` as its .hip_fatbin (4096-aligned)
    and `wrappers` .hipFatBinSegment entries of 24 bytes."""
    source = write(name + ".c", b"int rocdoc_test_function(void) { return 42; }\n")
    plain = path(name + ".plain.so")
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", plain, source], check=True, capture_output=True)
    args = []
    if fatbin is not None:
        args += ["--add-section", ".hip_fatbin=" + write(name + ".fatbin", fatbin),
                 "--set-section-flags", ".hip_fatbin=readonly"]
    if wrappers is not None:
        args += ["--add-section", ".hipFatBinSegment=" + write(name + ".seg", b"\0" * (24 * wrappers)),
                 "--set-section-flags", ".hipFatBinSegment=readonly"]
    added = path(name + ".added.so")
    subprocess.run(["objcopy", *args, plain, added], check=True, capture_output=True)
    out = path(name)
    # A section added by objcopy takes its alignment only in a second pass.
    align = ["--set-section-alignment", ".hip_fatbin=4096"] if fatbin is not None else []
    subprocess.run(["objcopy", *align, added, out], check=True, capture_output=True)
    return out


def section_header(so, name):
    """(offset, size, alignment) of a section, from readelf."""
    lines = subprocess.run(["readelf", "-SW", so], capture_output=True, text=True,
                           check=True).stdout.splitlines()
    for line in lines:
        fields = line.replace("[ ", "[").split()
        if len(fields) > 2 and fields[1] == name:
            return int(fields[4], 16), int(fields[5], 16), int(fields[-1])
    return None


# ---- a. Debian's real libraries ---------------------------------------------------------------
code, found, err, _ = targets(ROCSPARSE, ROCRAND, AMDHIP)
check(code == 1, f"libamdhip64 has no GPU code: exit 1 ({code}: {err})")
expect_file(found, ROCSPARSE, "shared_object", DEBIAN_TARGETS, 111, registered=111)
expect_file(found, ROCRAND, "shared_object", DEBIAN_TARGETS, 1, registered=1)
expect_file(found, AMDHIP, "none", [], 0)
code, found, err, _ = targets(ROCSPARSE, ROCRAND)
check(code == 0, f"the two Debian libraries hold GPU code: exit 0 ({code}: {err})")
code, found, err, _ = targets(AMDHIP)
check(code == 1, f"libamdhip64 alone: exit 1 ({code})")
with open(AMDHIP, "rb") as f:
    check(b"__CLANG_OFFLOAD_BUNDLE__" in f.read(), "libamdhip64 does hold the magic as a string")

proc = run(BINARY, "targets", ROCSPARSE, ROCRAND, AMDHIP)
want = (f"{ROCSPARSE}\n"
        "  targets: gfx803 gfx900:xnack- gfx906:xnack- gfx908:xnack- gfx90a:xnack+ gfx90a:xnack- gfx1030\n"
        "  from 111 offload bundles in .hip_fatbin (uncompressed)\n"
        f"{ROCRAND}\n"
        "  targets: gfx803 gfx900:xnack- gfx906:xnack- gfx908:xnack- gfx90a:xnack+ gfx90a:xnack- gfx1030\n"
        "  from 1 offload bundle in .hip_fatbin (uncompressed)\n"
        f"{AMDHIP}\n"
        "  no GPU code (no offload bundle with a GPU entry)\n")
check(proc.stdout == want and proc.returncode == 1 and proc.stderr == "",
      f"human output of the Debian libraries ({proc.returncode}):\n{proc.stdout}{proc.stderr}")

# ---- b. compressed bundles --------------------------------------------------------------------
plain = bundle19(["gfx90a:xnack-", "gfx10-3-generic"])                     # uncompressed
v2_for_v1 = bundle19(["gfx908:xnack-"], compress=True)
v2 = bundle19(["gfx1100", "gfx942"], compress=True)
v2_for_v3 = bundle19(["gfx1030"], compress=True)
uncompressed14 = bundle14(["gfx803"])
check(uncompressed14[:24] == b"__CLANG_OFFLOAD_BUNDLE__", "clang-offload-bundler-14 wrote a bundle")

size, digest, frame = v2_parts(v2_for_v1)
v1 = ccob(1, 1, frame, size, digest)
size, digest, frame = v2_parts(v2_for_v3)
v3 = ccob(3, 1, frame, size, digest)
zlib_bundle = ccob(2, 0, zlib.compress(uncompressed14, 9), len(uncompressed14), md5_low(uncompressed14))
check(v2[:8] == b"CCOB\x02\x00\x01\x00" and v2[24:28] == b"\x28\xb5\x2f\xfd",
      "clang-offload-bundler 19 --compress writes CCOB v2 with a zstd frame")

bare = {"plain.hipfb": (plain, ["gfx10-3-generic", "gfx90a:xnack-"], 0, 0),
        "v1.hipfb": (v1, ["gfx908:xnack-"], 1, 0),
        "v2.hipfb": (v2, ["gfx1100", "gfx942"], 1, 0),
        "v3.hipfb": (v3, ["gfx1030"], 1, 0),
        "zlib.hipfb": (zlib_bundle, ["gfx803"], 0, 1),
        "clang14.hipfb": (uncompressed14, ["gfx803"], 0, 0)}
files = [write(name, data) for name, (data, _, _, _) in bare.items()]
code, found, err, _ = targets(*files)
check(code == 0, f"every bare bundle holds GPU code: exit 0 ({code}: {err})")
for name, (_, target_list, zstd, zl) in bare.items():
    expect_file(found, path(name), "bundle_file", target_list, 1, zstd, zl)

# All five in the .hip_fatbin of a real shared object: 4096-aligned, zero-padded, and the
# trailing NUL of older clang.
fatbin = pad(plain) + pad(v1) + pad(v2) + pad(v3) + zlib_bundle + b"\0"
all_targets = sorted({"gfx10-3-generic", "gfx90a:xnack-", "gfx908:xnack-", "gfx1100", "gfx942",
                      "gfx1030", "gfx803"})
mixed = shared_object("libmixed.so", fatbin, wrappers=5)
offset, size, align = section_header(mixed, ".hip_fatbin")
check(offset % 4096 == 0 and align == 4096 and size == len(fatbin),
      f"the test's .hip_fatbin is in place (offset {offset:#x}, size {size}, align {align})")
code, found, err, _ = targets(mixed)
check(code == 0, f"the mixed shared object: exit 0 ({code}: {err})")
expect_file(found, mixed, "shared_object", all_targets, 5, zstd=3, zlib_count=1, registered=5)
proc = run(BINARY, "targets", mixed)
check(proc.stdout == f"{mixed}\n  targets: {' '.join(by_generation(all_targets))}\n"
      "  from 5 offload bundles in .hip_fatbin (3 zstd-compressed, 1 zlib-compressed)\n",
      f"human output of the mixed shared object:\n{proc.stdout}")
# The same section with a .hipFatBinSegment that registers a different count: a note.
noted = shared_object("libnoted.so", fatbin, wrappers=4)
proc = run(BINARY, "targets", noted)
check(proc.stdout.endswith("  note: .hipFatBinSegment registers 4 bundles; 5 were read\n")
      and proc.returncode == 0, f"a wrapper count that differs is a note:\n{proc.stdout}")
# A shared object without device code, and one whose .hip_fatbin is empty.
nothing = shared_object("libnothing.so")
code, found, err, _ = targets(nothing)
check(code == 1, f"a plain shared object: exit 1 ({code})")
expect_file(found, nothing, "none", [], 0)

# ---- c. hostile inputs ------------------------------------------------------------------------
host_entry = (4096, 0, HOST_ID.encode() + b"-")
gfx_id = (AMD + "gfx1100").encode()
hostile = {
    "truncated.hipfb": (plain[:40], [
        "offset 0x0: the bundle header runs past the end"]),
    "truncated-after-entry.hipfb": (plain[:100], [
        "offset 0x0: entry 0 (host-x86_64-unknown-linux-gnu-) lies outside the bundle "
        "(offset 4096, size 0, bundle 100 bytes)"]),
    "count-2e40.hipfb": (b"__CLANG_OFFLOAD_BUNDLE__" + struct.pack("<Q", 1 << 40) + b"\0" * 64, [
        "offset 0x0: the bundle declares 1099511627776 entries"]),
    "id-huge.hipfb": (b"__CLANG_OFFLOAD_BUNDLE__" + struct.pack("<QQQQ", 1, 4096, 0, 1 << 62) + b"x" * 64, [
        "offset 0x0: entry 0 has an id of 4611686018427387904 bytes"]),
    "id-control.hipfb": (plain_bundle([(64, 0, b"hipv4-amdgcn-amd-amdhsa--gfx\x1b[31m")], 64), [
        "offset 0x0: entry 0 has an id that is not printable text"]),
    "offset-past-end.hipfb": (plain_bundle([host_entry, (1 << 20, 16, gfx_id)], 4096), [
        "offset 0x0: entry 1 (hipv4-amdgcn-amd-amdhsa--gfx1100) lies outside the bundle "
        f"(offset 1048576, size 16, bundle {len(plain_bundle([host_entry, (1 << 20, 16, gfx_id)], 4096))} bytes)"]),
    "ccob-v4-method7.hipfb": (b"CCOB" + struct.pack("<HHQQQ", 4, 7, 64, 64, 0) + b"\0" * 32, [
        "offset 0x0: compressed bundle with unknown compression method 7 (0 zlib and 1 zstd are known)"]),
    "ccob-v4.hipfb": (b"CCOB" + struct.pack("<HHQQQ", 4, 1, 64, 64, 0) + b"\0" * 32, [
        "offset 0x0: compressed bundle format version 4 is unknown (1-3 are known)"]),
    "ccob-total-too-large.hipfb": (ccob(2, 1, v2[24:], v2_parts(v2)[0], total=1 << 31), [
        f"offset 0x0: the compressed bundle says it takes {1 << 31} bytes; only {len(v2)} remain"]),
    "ccob-v3-total-huge.hipfb": (ccob(3, 1, v3[32:], 9392, total=(1 << 64) - 1), [
        f"offset 0x0: the compressed bundle says it takes {(1 << 64) - 1} bytes; only {len(v3)} remain"]),
    "ccob-corrupt-zstd.hipfb": (v2[:28] + b"\xff" * (len(v2) - 28), None),  # asserted below
    "ccob-corrupt-zlib.hipfb": (ccob(2, 0, b"\x78\x9c" + b"\xff" * 64, len(uncompressed14)), None),
    "ccob-not-a-bundle-inside.hipfb": (ccob(2, 0, zlib.compress(b"x" * 4096), 4096), [
        "offset 0x0: in the decompressed bundle: no offload bundle magic"]),
    "empty.hipfb": (b"", ["the file is empty or cannot be read"]),
    "not-a-bundle.txt": (b"hello\n", ["not an ELF file or an offload bundle"]),
}
hostile_files = {name: write(name, data) for name, (data, _) in hostile.items()}
for name, (_, problems) in hostile.items():
    code, found, err, seconds = targets(hostile_files[name])
    got = found.get(hostile_files[name], {})
    check(code == 1 and seconds < 5, f"{name}: exit 1 quickly ({code}, {seconds:.2f} s, {err})")
    if problems is not None:
        kind = "none" if name in ("empty.hipfb", "not-a-bundle.txt") else "bundle_file"
        expect_file(found, hostile_files[name], kind, [], 0, problems=problems)
    else:
        method = "zstd" if "zstd" in name else "zlib"
        check(got.get("targets") == [] and got.get("bundles") == 0 and len(got.get("problems", [])) == 1
              and got["problems"][0].startswith(f"offset 0x0: {method}: "),
              f"{name}: the decoder's error is the problem ({got})")
corrupt_zstd = targets(hostile_files["ccob-corrupt-zstd.hipfb"])[1].get(hostile_files["ccob-corrupt-zstd.hipfb"], {})
check(corrupt_zstd.get("problems") == ["offset 0x0: zstd: Unsupported frame parameter"],
      f"a corrupt zstd payload names zstd's error ({corrupt_zstd.get('problems')})")

# A .hip_fatbin whose bytes after the first bundle are garbage: the first bundle's targets are
# still listed, with the problem (and exit 1); the Host's answer for such a file is "unknown".
garbage = shared_object("libgarbage.so", pad(plain) + b"\x01garbage" + b"\0" * 100)
code, found, err, _ = targets(garbage)
check(code == 1, f"garbage after the first bundle: exit 1 ({code})")
expect_file(found, garbage, "shared_object", ["gfx10-3-generic", "gfx90a:xnack-"], 1,
            problems=[f".hip_fatbin+{len(pad(plain)):#x}: neither an offload bundle nor a compressed bundle starts here"])
proc = run(BINARY, "targets", garbage)
check(proc.stdout == f"{garbage}\n  targets: gfx90a:xnack- gfx10-3-generic\n"
      "  from 1 offload bundle in .hip_fatbin (uncompressed)\n"
      f"  problem: .hip_fatbin+{len(pad(plain)):#x}: neither an offload bundle nor a compressed bundle starts here\n",
      f"human output with a problem:\n{proc.stdout}")

# A version-1 compressed bundle records no size: the next bundle is looked for at the aligned
# positions that follow. In a section aligned to 2 bytes with 16 MiB after the bundle, that
# search reads the section in chunks, not one read per 2 bytes (which took a minute for 64 MiB).
small14 = bundle14(["gfx1012"])
v1_zlib = ccob(1, 0, zlib.compress(small14, 9), len(small14))
aligned2 = shared_object("libaligned2.so", v1_zlib + b"\0" * (16 << 20))
subprocess.run(["objcopy", "--set-section-alignment", ".hip_fatbin=2", aligned2], check=True)
check(section_header(aligned2, ".hip_fatbin")[2] == 2, "the section is aligned to 2 bytes")
code, found, err, seconds = targets(aligned2)
check(code == 0 and seconds < 3, f"v1 in a 2-aligned 16 MiB section: exit 0 in {seconds:.2f} s ({code})")
expect_file(found, aligned2, "shared_object", ["gfx1012"], 1, zlib_count=1)

# Issue 20 D4: headers of 1024 entries with ids of 256 bytes (287 KB each), plain and as 1.4 KB
# zlib CCOBs (audit reproducer 04). parse_bundle_header says only where the next entry ends;
# growing the window to that re-read and re-parsed each header once per entry, 0.5 s a bundle
# (40 bundles: 20 s). The window now at least doubles: 0.1 s. The bounds are generous: the
# machine may be busy, and a sanitizer build is slower.
SANITIZED = bool(os.environ.get("ROCDOC_SANITIZED"))
FAST = 10 if SANITIZED else 5  # seconds for inputs that take 0.1 s (unfixed: 20 s and more)


def timed_targets(file, timeout=60):
    """(exit code, the file's JSON answer, seconds) of `targets --json FILE`; code None when
    it ran past `timeout` seconds (killed)."""
    start = time.monotonic()
    try:
        proc = subprocess.run([BINARY, "targets", "--json", file], capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, {}, time.monotonic() - start
    seconds = time.monotonic() - start
    try:
        answer = {f["path"]: f for f in json.loads(proc.stdout)["files"]}.get(file, {})
    except (json.JSONDecodeError, KeyError):
        answer = {}
    return proc.returncode, answer, seconds


long_id = b"hip-amdgcn-amd-amdhsa--gfx90a" + b"x" * (256 - 29)
long_target = "gfx90a" + "x" * 227
header1024 = (b"__CLANG_OFFLOAD_BUNDLE__" + struct.pack("<Q", 1024)
              + (struct.pack("<QQQ", 1, 0, len(long_id)) + long_id) * 1024)
zlib1024 = ccob(2, 0, zlib.compress(header1024, 9), len(header1024))
for name, data, zl in [("headers-1024-plain.hipfb", header1024 * 40, 0),
                       ("headers-1024-zlib.hipfb", zlib1024 * 40, 40)]:
    big = write(name, data)
    code, got, seconds = timed_targets(big)
    check(code == 0 and seconds < FAST,
          f"{name}: 40 bundles of 1024-entry headers in {seconds:.2f} s, under {FAST} s ({code})")
    check(got.get("bundles") == 40 and got.get("targets") == [long_target]
          and got.get("compressed_bundles") == {"zstd": 0, "zlib": zl} and got.get("problems") == [],
          f"{name}: every bundle read ({ {k: v for k, v in got.items() if k != 'targets'} })")
# A file's bundles are capped at 65,536 entries and 256 MiB of decompressed headers: 400 such
# CCOBs (550 KB) hold 409,600 entries and would decompress 320 MiB (unfixed: 115 GB
# re-decompressed, minutes); the walk stops at the entry cap (64 bundles of 1024), and the
# bundles before it are kept.
many = write("headers-1024-zlib-400.hipfb", zlib1024 * 400)
code, got, seconds = timed_targets(many)
problems = got.get("problems", [])
check(code == 1 and seconds < 4 * FAST and len(problems) == 1
      and problems[0].endswith(": more than 65536 bundle entries in one file")
      and got.get("bundles") == 64,
      f"400 zlib CCOBs of 1024-entry headers stop at the entry cap in {seconds:.2f} s "
      f"({code}, {got.get('bundles')} bundles, {problems})")

# Issue 20 D8: a section table that names .hip_fatbin 4093 times over one region (a tiny bundle
# then 4 MiB of zeros; audit reproducer 05) was walked 4093 times: 4093 bundles, 16 GiB read.
# Each byte range is now walked once.
def overlapping_sections_elf(name, sections, zeros):
    eid = b"hip-amdgcn-amd-amdhsa--gfx90a"
    bundle = b"__CLANG_OFFLOAD_BUNDLE__" + struct.pack("<QQQQ", 1, 1, 0, len(eid)) + eid
    body = 4096
    region = bundle + b"\0" * zeros
    names = b"\0.hip_fatbin\0.shstrtab\0"
    names_off = body + len(region)
    shoff = (names_off + len(names) + 63) // 64 * 64
    count = len(sections) + 2
    eh = bytearray(64)
    eh[0:4] = b"\x7fELF"
    eh[4:7] = b"\x02\x01\x01"
    struct.pack_into("<HHIQQQIHHHHHH", eh, 16, 3, 62, 1, 0, 0, shoff, 0, 64, 0, 0, 64, count, count - 1)

    def sh(name_at, kind, offset, size, align):
        return struct.pack("<IIQQQQIIQQ", name_at, kind, 0, 0, offset, size, 0, 0, align, 0)
    table = sh(0, 0, 0, 0, 0)
    for start, end in sections:  # offsets inside the region
        table += sh(1, 1, body + start, (len(region) if end is None else end) - start, 4096)
    table += sh(13, 3, names_off, len(names), 1)
    data = bytes(eh).ljust(body, b"\0") + region + names
    return write(name, data + b"\0" * (shoff - len(data)) + table)


overlapping = overlapping_sections_elf("overlapping.so", [(0, None)] * 4093, 4 << 20)
code, got, seconds = timed_targets(overlapping)
check(code == 0 and seconds < FAST,
      f"4093 .hip_fatbin sections over one 4 MiB region in {seconds:.2f} s, under {FAST} s ({code})")
expect_file({overlapping: got}, overlapping, "shared_object", ["gfx90a"], 1)
# Sections that overlap only in part, or lie inside another, are one range too.
partial = overlapping_sections_elf("partial-overlap.so", [(0, 4096), (2048, None), (100, 200)], 8192)
code, got, seconds = timed_targets(partial)
check(code == 0, f"partly overlapping .hip_fatbin sections: exit 0 ({code})")
expect_file({partial: got}, partial, "shared_object", ["gfx90a"], 1)

# A fat relocatable object: one __CLANG_OFFLOAD_BUNDLE__<id> section per entry.
source = write("fat.c", b"int rocdoc_fat(void) { return 1; }\n")
subprocess.run(["gcc", "-c", "-o", path("fat.plain.o"), source], check=True)
device = write("fat.device", code_object("gfx1101"))
subprocess.run(["objcopy",
                "--add-section", "__CLANG_OFFLOAD_BUNDLE__hipv4-amdgcn-amd-amdhsa--gfx1101=" + device,
                "--add-section", "__CLANG_OFFLOAD_BUNDLE__host-x86_64-unknown-linux-gnu-=" + write("empty", b""),
                path("fat.plain.o"), path("fat.o")], check=True)
code, found, err, _ = targets(path("fat.o"))
check(code == 0, f"a fat object: exit 0 ({code})")
expect_file(found, path("fat.o"), "fat_object", ["gfx1101"], 1)
subprocess.run(["objcopy", "--add-section",
                "__CLANG_OFFLOAD_BUNDLE__hipv4-amdgcn-amd-amdhsa--gfx\x1b[31m=" + device,
                path("fat.plain.o"), path("fat-evil.o")], check=True)
code, found, err, _ = targets(path("fat-evil.o"))
check(code == 1, f"a fat object with a control byte in a section name: exit 1 ({code})")
expect_file(found, path("fat-evil.o"), "none", [], 0,
            problems=["an offload section's entry id is not printable text"])

# An ELF whose section table lies past the end of the file.
with open(mixed, "rb") as f:
    elf = bytearray(f.read())
struct.pack_into("<Q", elf, 40, len(elf) + 4096)
far = write("shoff-past-end.so", bytes(elf))
code, found, err, seconds = targets(far)
check(code == 1 and seconds < 5, f"e_shoff past the end: exit 1 ({code})")
expect_file(found, far, "none", [], 0, problems=["the ELF section table lies past the end of the file"])

# A FIFO must not hang (nobody writes to it), a missing file is exit 2 and the others are still
# answered, a directory is read as a Tensile directory.
fifo = path("fifo")
os.mkfifo(fifo)
code, found, err, seconds = targets(fifo)
check(code == 1 and seconds < 5, f"a FIFO: exit 1 without hanging ({code}, {seconds:.2f} s)")
expect_file(found, fifo, "none", [], 0, problems=["not a regular file"])
tensile = path("rocblas/library")
os.makedirs(tensile)
for name in ["TensileLibrary.dat", "TensileLibrary_lazy_gfx90a.dat", "TensileLibrary_gfx1100.co",
             "Kernels.so-000-gfx90a-xnack+.hsaco", "Kernels.so-000-gfx1030.hsaco",
             "TensileLibrary_Type_HH_Contraction_l_Ailk_Bljk_Cijk_Dijk_fallback.dat", "gfx942"]:
    open(os.path.join(tensile, name), "w").close()
missing_file = path("no-such-file.so")
code, found, err, _ = targets(missing_file, tensile, ROCRAND)
check(code == 2, f"a missing file: exit 2 ({code})")
check(err == f"rocdoc: targets: cannot open {missing_file}: ENOENT\n", f"it says so on stderr: {err!r}")
check(missing_file not in found, "the missing file is not in the answer")
proc = run(BINARY, "targets", ROCRAND, missing_file)
check(proc.returncode == 2 and proc.stdout.startswith(f"{ROCRAND}\n  targets: gfx803 ")
      and proc.stderr == f"rocdoc: targets: cannot open {missing_file}: ENOENT\n",
      f"human output: the file that could be opened is still answered ({proc.returncode}: {proc.stdout!r} {proc.stderr!r})")
expect_file(found, tensile, "tensile_directory",
            ["gfx1030", "gfx1100", "gfx90a", "gfx90a:xnack+", "gfx942"], 0)
expect_file(found, ROCRAND, "shared_object", DEBIAN_TARGETS, 1, registered=1)
empty_dir = path("empty-library")
os.makedirs(empty_dir)
code, found, err, _ = targets(empty_dir)
check(code == 1, f"a directory without Tensile names: exit 1 ({code})")
expect_file(found, empty_dir, "tensile_directory", [], 0)
proc = run(BINARY, "targets", empty_dir)
check(proc.stdout == f"{empty_dir}\n  no GPU code (no file name names a gfx target: a directory is read "
                     "as a rocBLAS or hipBLASLt library directory; to read the libraries in it, "
                     "name them: rocdoc targets DIR/*.so*)\n",
      f"human output of an empty directory: {proc.stdout!r}")
# A terminal escape in a file name is never printed raw.
evil = write("evil\x1b]0;x\x07.hipfb", plain)
proc = run(BINARY, "targets", evil)
check("\x1b" not in proc.stdout and "\x07" not in proc.stdout and proc.returncode == 0,
      f"a control byte in a path is not printed raw: {proc.stdout!r}")


# ---- d. torch.arch-missing on a sysroot --------------------------------------------------------
SITE = "/usr/local/lib/python3.12/dist-packages"


def sysroot(name, libtorch_hip, rocblas=None, extra_libs=None):
    """An image-like tree with a pytorch.org torch 2.5.1+rocm6.2 whose torch/lib/libtorch_hip.so
    is `libtorch_hip` (a path to link or copy) and whose rocblas/library holds `rocblas` names."""
    root = path(name)
    torch = root + SITE + "/torch"
    os.makedirs(torch + "/lib")
    os.makedirs(root + "/etc", exist_ok=True)
    with open(root + "/etc/os-release", "w") as f:
        f.write('ID=ubuntu\nVERSION_ID="24.04"\n')
    with open(torch + "/version.py", "w") as f:
        f.write("__version__ = '2.5.1+rocm6.2'\ndebug = False\ncuda = None\n"
                "git_version = 'a8d6afb511a69687bbb2b7e88a3cf67917e1697e'\n"
                "hip = '6.2.41133-dd7f95766'\n")
    info = root + SITE + "/torch-2.5.1+rocm6.2.dist-info"
    os.makedirs(info)
    with open(info + "/METADATA", "w") as f:
        f.write("Metadata-Version: 2.1\nName: torch\nVersion: 2.5.1+rocm6.2\n")
    libs = {"libtorch_hip.so": libtorch_hip, **(extra_libs or {})}
    for lib, source in libs.items():
        try:
            os.link(source, torch + "/lib/" + lib)
        except OSError:
            shutil.copy(source, torch + "/lib/" + lib)
    if rocblas is not None:
        os.makedirs(torch + "/lib/rocblas/library")
        for entry in rocblas:
            open(torch + "/lib/rocblas/library/" + entry, "w").close()
    return root


def arch_missing(root, *args):
    """(exit code, torch.arch-missing result, whole report) of check --sysroot ROOT ARGS."""
    proc = run(BINARY, "check", "--json", "--sysroot", root, "--only", "torch.arch-missing", *args)
    try:
        document = json.loads(proc.stdout)
    except json.JSONDecodeError:
        check(False, f"check --sysroot {args} prints JSON ({proc.returncode}: {proc.stderr})")
        return proc.returncode, {}, {}
    by_id = {c["id"]: c for c in document["checks"]}
    return proc.returncode, by_id.get("torch.arch-missing", {}), document


def environments(document):
    return [e for e in document["facts"]["python"]["environments"] if e.get("torch")]


rocrand_root = sysroot("sr-rocrand", ROCRAND)
LIBTORCH = SITE + "/torch/lib/libtorch_hip.so"
ROCRAND_WORDS = " ".join(DEBIAN_TARGETS)


def failed(code, result, message):
    """torch.arch-missing is an error with exactly `message`, and the exit code is 1."""
    check(code == 1 and result.get("status") == "fail" and result.get("severity") == "error"
          and result.get("message") == message,
          f"error, exit 1 ({code}, {result.get('status')}):\n  got  {result.get('message')}\n  want {message}")


def passed(code, result, what):
    check(code == 0 and result.get("status") == "pass", f"{what}: pass, exit 0 ({code}, {result.get('status')}: {result.get('message')})")


code, result, document = arch_missing(rocrand_root, "--gpu", "gfx1100")
failed(code, result, f"{SITE} has no code for gfx1100 (Radeon RX 7900 XTX) in libtorch_hip.so; "
       f"libtorch_hip.so has {ROCRAND_WORDS}")
check(result.get("evidence") == [f"{LIBTORCH}: {ROCRAND_WORDS}"], f"evidence: {result.get('evidence')}")
# The installed release's official wheels have gfx1100, this copy does not: reinstall, forced.
first_fix = (result.get("fix") or [{}])[0]
check(first_fix.get("description", "").startswith("Reinstall torch ") and
      "this copy was built without it" in first_fix.get("description", "") and
      " -m pip install --force-reinstall torch==" in first_fix.get("command", ""),
      f"the fix reinstalls the same release with --force-reinstall ({first_fix})")
torch_facts = environments(document)[0]["torch"] if environments(document) else {}
check(torch_facts.get("hip_libraries") == [{"path": LIBTORCH, "targets": DEBIAN_TARGETS}],
      f"facts: hip_libraries ({torch_facts.get('hip_libraries')})")
check(torch_facts.get("rocblas_library") is None, f"facts: no rocblas_library ({torch_facts.get('rocblas_library')})")

code, result, _ = arch_missing(rocrand_root, "--gpu", "gfx1030")
passed(code, result, "gfx1030 is in rocrand")
code, result, _ = arch_missing(rocrand_root, "--gpu", "gfx1031")
failed(code, result, f"{SITE} has no code for gfx1031 (Radeon RX 6700) in libtorch_hip.so; "
       f"libtorch_hip.so has {ROCRAND_WORDS}")
code, result, _ = arch_missing(rocrand_root, "--gpu", "gfx1031", "--env", "HSA_OVERRIDE_GFX_VERSION=10.3.0")
passed(code, result, "gfx1031 with HSA_OVERRIDE_GFX_VERSION=10.3.0")
code, result, _ = arch_missing(rocrand_root, "--gpu", "gfx1100", "--env", "HSA_OVERRIDE_GFX_VERSION=11.0.0")
failed(code, result, f"{SITE} has no code for gfx1100 (Radeon RX 7900 XTX, by HSA_OVERRIDE_GFX_VERSION=11.0.0) "
       f"in libtorch_hip.so; libtorch_hip.so has {ROCRAND_WORDS}")

# Code for the generic family target only: gfx1031 (and gfx1030) run it, gfx1100 does not.
generic_so = shared_object("libgeneric.so", pad(bundle19(["gfx10-3-generic"], compress=True)) + b"\0")
generic_root = sysroot("sr-generic", generic_so)
for gpu in ["gfx1031", "gfx1030", "gfx1032"]:
    code, result, _ = arch_missing(generic_root, "--gpu", gpu)
    passed(code, result, f"gfx10-3-generic code on {gpu}")
code, result, _ = arch_missing(generic_root, "--gpu", "gfx1100")
failed(code, result, f"{SITE} has no code for gfx1100 (Radeon RX 7900 XTX) in libtorch_hip.so; "
       "libtorch_hip.so has gfx10-3-generic")

# Code for gfx90a:xnack+ only: it runs on gfx90a only with HSA_XNACK=1.
xnack_so = shared_object("libxnack.so", pad(bundle19(["gfx90a:xnack+"])) + b"\0")
xnack_root = sysroot("sr-xnack", xnack_so)
xnack_message = (f"{SITE} has no code for gfx90a (Instinct MI210) in libtorch_hip.so; "
                 "libtorch_hip.so has gfx90a:xnack+")
code, result, _ = arch_missing(xnack_root, "--gpu", "gfx90a")
failed(code, result, xnack_message)
code, result, _ = arch_missing(xnack_root, "--gpu", "gfx90a", "--env", "HSA_XNACK=1")
passed(code, result, "gfx90a:xnack+ code with HSA_XNACK=1")
code, result, _ = arch_missing(xnack_root, "--gpu", "gfx90a", "--env", "HSA_XNACK=0")
failed(code, result, xnack_message)
# And rocrand's gfx90a:xnack- code runs on gfx90a with XNACK off.
code, result, _ = arch_missing(rocrand_root, "--gpu", "gfx90a")
passed(code, result, "rocrand on gfx90a")

# libtorch_hip.so has gfx1100, the bundled rocBLAS does not: the message names rocblas/library.
both_so = shared_object("libboth.so", pad(bundle19(["gfx1100", "gfx1030"])) + b"\0")
rocblas_names = ["TensileLibrary.dat", "TensileLibrary_lazy_gfx1030.dat",
                 "Kernels.so-000-gfx1030.hsaco", "TensileLibrary_gfx1030.co",
                 "TensileLibrary_Type_HH_Contraction_l_Ailk_Bljk_Cijk_Dijk_fallback.dat"]
rocblas_root = sysroot("sr-rocblas", both_so, rocblas=rocblas_names)
ROCBLAS_DIR = SITE + "/torch/lib/rocblas/library"
code, result, document = arch_missing(rocblas_root, "--gpu", "gfx1100")
rocblas_message = (f"{SITE} has no code for gfx1100 (Radeon RX 7900 XTX) in rocblas/library; "
                   "rocblas/library has gfx1030")
failed(code, result, rocblas_message)
check(result.get("evidence") == [f"{LIBTORCH}: gfx1030 gfx1100", f"{ROCBLAS_DIR}: gfx1030"],
      f"evidence names both ({result.get('evidence')})")
torch_facts = environments(document)[0]["torch"] if environments(document) else {}
check(torch_facts.get("hip_libraries") == [{"path": LIBTORCH, "targets": ["gfx1030", "gfx1100"]}]
      and torch_facts.get("rocblas_library") == {"path": ROCBLAS_DIR, "targets": ["gfx1030"]},
      f"facts: hip_libraries and rocblas_library ({torch_facts.get('hip_libraries')}, {torch_facts.get('rocblas_library')})")
code, result, _ = arch_missing(rocblas_root, "--gpu", "gfx1030")
passed(code, result, "gfx1030 in libtorch_hip.so and rocBLAS")
# Both lack it: both are named, the first one's targets are quoted.
code, result, _ = arch_missing(rocblas_root, "--gpu", "gfx942")
failed(code, result, f"{SITE} has no code for gfx942 (Instinct MI300X) in libtorch_hip.so, rocblas/library; "
       "libtorch_hip.so has gfx1030 gfx1100")

# A bundled HIP library beside libtorch_hip.so is read too (rocrand's copy in torch/lib).
extra_root = sysroot("sr-extra", both_so, extra_libs={"librocrand.so": ROCRAND})
code, result, document = arch_missing(extra_root, "--gpu", "gfx1100")
torch_facts = environments(document)[0]["torch"] if environments(document) else {}
check(torch_facts.get("hip_libraries") ==
      [{"path": SITE + "/torch/lib/librocrand.so", "targets": DEBIAN_TARGETS},
       {"path": LIBTORCH, "targets": ["gfx1030", "gfx1100"]}],
      f"facts: both libraries, sorted by path ({torch_facts.get('hip_libraries')})")
failed(code, result, f"{SITE} has no code for gfx1100 (Radeon RX 7900 XTX) in librocrand.so; "
       f"librocrand.so has {ROCRAND_WORDS}")

# A damaged libtorch_hip.so (garbage after its first bundle) is not read as "no code for your
# GPU": its targets are unknown, so the check has nothing to judge.
damaged_root = sysroot("sr-damaged", garbage)
code, result, document = arch_missing(damaged_root, "--gpu", "gfx1100")
check(result.get("status") == "skip" and code == 0,
      f"a damaged library is not judged ({code}, {result.get('status')}: {result.get('message')})")
torch_facts = environments(document)[0]["torch"] if environments(document) else {}
check(torch_facts.get("hip_libraries") == [], f"facts: no hip_libraries for a damaged one ({torch_facts.get('hip_libraries')})")

# The same tree as a snapshot: `rocdoc snapshot` reads no --sysroot, so the snapshot directory is
# made by hand from the tree, with the manifest's "binaries" holding what the scan found; a
# snapshot of it taken again keeps them, and both give the sysroot's verdict.
help_text = run(BINARY, "snapshot", "--help").stdout
check("--root" in help_text, "snapshot --root re-captures a snapshot directory")
snap = path("snap-rocblas")
shutil.copytree(rocblas_root, snap + "/root")
os.unlink(snap + "/root" + LIBTORCH)
open(snap + "/root" + LIBTORCH, "w").close()
with open(snap + "/rocdoc-snapshot.json", "w") as f:
    json.dump({"format": "rocdoc-snapshot/1", "created": "2026-12-01T00:00:00Z",
               "rocdoc_version": "0.1.0", "uname": {"sysname": "Linux", "release": "", "machine": "x86_64"},
               "env": {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"},
               "binaries": {LIBTORCH: {"size": os.path.getsize(both_so), "gfx_targets": ["gfx1030", "gfx1100"]}}}, f)
proc = run(BINARY, "check", "--json", "--root", snap, "--gpu", "gfx1100", "--only", "torch.arch-missing")
snap_result = {}
try:
    snap_result = {c["id"]: c for c in json.loads(proc.stdout)["checks"]}.get("torch.arch-missing", {})
except (json.JSONDecodeError, KeyError):
    pass
check(snap_result.get("status") == "fail" and snap_result.get("message") == rocblas_message,
      f"check --root of the snapshot directory: the sysroot's verdict ({proc.returncode}: {snap_result.get('message')} {proc.stderr})")
archive = path("snap-rocblas.tar.gz")
proc = run(BINARY, "snapshot", "--root", snap, "-o", archive)
check(proc.returncode == 0, f"snapshot --root of it ({proc.returncode}: {proc.stderr})")
if os.path.exists(archive):
    with tarfile.open(archive) as tar:
        manifest = json.load(tar.extractfile("rocdoc-snapshot.json"))
    check(manifest.get("binaries", {}).get(LIBTORCH, {}).get("gfx_targets") == ["gfx1030", "gfx1100"],
          f"the re-captured manifest keeps libtorch_hip.so's targets ({manifest.get('binaries')})")
    proc = run(BINARY, "check", "--json", "--snapshot", archive, "--gpu", "gfx1100", "--only", "torch.arch-missing")
    again = {}
    try:
        again = {c["id"]: c for c in json.loads(proc.stdout)["checks"]}.get("torch.arch-missing", {})
    except (json.JSONDecodeError, KeyError):
        pass
    check(again.get("message") == rocblas_message and proc.returncode == 1,
          f"check --snapshot of the archive: the same verdict ({proc.returncode}: {again.get('message')})")

# ---- e. the live machine: no ROCm torch, the check is skipped, never an error --------------------
proc = run(BINARY, "check", "--json", "--only", "torch.arch-missing")
try:
    live = {c["id"]: c for c in json.loads(proc.stdout)["checks"]}.get("torch.arch-missing", {})
except (json.JSONDecodeError, KeyError):
    live = {}
check(live.get("status") == "skip", f"live: torch.arch-missing is skipped ({live})")
check(proc.returncode == 0, f"live: check --only torch.arch-missing exits 0 ({proc.returncode}: {proc.stderr})")

# --has: does each FILE have code that runs on a GPU target (N25)? Debian's rocRAND has gfx1030
# and gfx90a (xnack- preferred over xnack+), not gfx1100.
has = run(BINARY, "targets", "--has", "gfx1030", ROCRAND)
check(has.returncode == 0 and "\n  gfx1030: yes\n" in has.stdout, f"--has gfx1030: {has.returncode} {has.stdout!r}")
has = run(BINARY, "targets", "--has", "gfx1100", ROCRAND, ROCSPARSE)
check(has.returncode == 1 and has.stdout.count("gfx1100: no code that runs on it") == 2,
      f"--has gfx1100: exit 1, said of both files: {has.returncode} {has.stdout!r}")
has = json.loads(run(BINARY, "targets", "--has", "gfx90a", "--json", ROCRAND).stdout)
check(validate(has, os.path.join(SOURCE_DIR, "docs", "targets.schema.json")) is None, "--has --json: schema")
check(has["files"][0]["has"] == {"target": "gfx90a", "runs": True, "through": "gfx90a:xnack-"},
      f"--has gfx90a --json: {has['files'][0].get('has')}")
has = run(BINARY, "targets", "--has", "gfx99x", ROCRAND)
check(has.returncode == 2 and "targets --has: 'gfx99x' is not a gfx target" in has.stderr and not has.stdout,
      f"--has with no gfx target: exit 2 ({has.returncode}, {has.stderr!r})")

shutil.rmtree(WORK, ignore_errors=True)
results.finish()
