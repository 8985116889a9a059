#!/usr/bin/env python3
"""Writes the seed corpus of every fuzz harness (tests/fuzz/fuzz_*.cpp) into OUT/<harness>/.

The seeds are the matching files of tests/fixtures (and rules/*.yaml), collected fresh each
time so that no copy of a fixture is committed. Identical contents are written once.

    scripts/fuzz-seeds.py OUT            # OUT/kfd_properties/, OUT/os_release/, ...

ctest runs it before replaying the seeds (fuzz.seeds); scripts/fuzz-run.sh before fuzzing.
A new harness adds its entry to SEEDS below (or a function to CUSTOM).
"""
import hashlib
import io
import json
import os
import re
import shutil
import struct
import sys
import tarfile
import zlib

SOURCE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(SOURCE, "tests", "fixtures")

# harness -> regular expression on a fixture file's path relative to its root/.
SEEDS = {
    "kfd_properties": r"sys/(class|devices/virtual)/kfd/kfd/topology/nodes/\d+/((io|p2p)_links/\d+/)?properties",
    "pci_topology": r"sys/bus/pci/devices/[^/]+/(resource|config|numa_node)",
    "os_release": r"(etc|usr/lib)/os-release|proc/1/cgroup",
    "group": r"etc/(group|passwd)",
    "mounts": r"proc/(self/)?mounts|etc/fstab",
    "cmdline": r"proc/cmdline|etc/modprobe\.d/[^/]+\.conf|.*/make\.log|sys/firmware/efi/efivars/SecureBoot-.*",
    "version_py": r".*/torch/version\.py",
    "metadata": r".*\.(dist|egg)-info/(METADATA|PKG-INFO)",
    "pyvenv_cfg": r".*/pyvenv\.cfg|.*/\.pyenv/version|.*/\.python-version",
    "packages": r"var/lib/dpkg/status|var/lib/rpm/rpmdb\.sqlite|var/lib/pacman/local/[^/]+/desc",
}


def fixtures():
    for name in sorted(os.listdir(FIXTURES)):
        path = os.path.join(FIXTURES, name)
        if os.path.isfile(os.path.join(path, "rocdoc-snapshot.json")):
            yield name, path


def manifest(path):
    try:
        with open(os.path.join(path, "rocdoc-snapshot.json"), encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def root_files(path):
    """(path relative to root/, absolute path) of every regular file, links not followed."""
    root = os.path.join(path, "root")
    for directory, _, files in os.walk(root):
        for file in files:
            full = os.path.join(directory, file)
            if os.path.isfile(full) and not os.path.islink(full):
                yield os.path.relpath(full, root), full


def root_links(path):
    root = os.path.join(path, "root")
    for directory, dirs, files in os.walk(root):
        for entry in dirs + files:
            full = os.path.join(directory, entry)
            if os.path.islink(full):
                yield "/" + os.path.relpath(full, root), os.readlink(full)


def site_dir_listings(path):
    """Each site-packages directory's *.dist-info / *.egg-info names, one per line."""
    root = os.path.join(path, "root")
    for directory, dirs, _ in os.walk(root):
        names = sorted(d for d in dirs if d.endswith((".dist-info", ".egg-info")))
        if names:
            yield os.path.relpath(directory, root), "\n".join(names) + "\n"


# ---- offload bundles (tests/fuzz/fuzz_offload_bundle.cpp): small inputs made from LLVM's
# documented layouts (clang/lib/Driver/OffloadBundler.cpp), since no fixture holds a real one.

def bundle(ids, payload=b"\x7fELF" + b"\0" * 60, align=64):
    """An uncompressed __CLANG_OFFLOAD_BUNDLE__: a host entry of size 0, then one entry per id."""
    ids = [i.encode() for i in ids]
    header_size = 32 + sum(24 + len(i) for i in ids) + 24 + 30
    first = -(-header_size // align) * align
    out = b"__CLANG_OFFLOAD_BUNDLE__" + struct.pack("<Q", len(ids) + 1)
    host = b"host-x86_64-unknown-linux-gnu-"
    out += struct.pack("<QQQ", first, 0, len(host)) + host
    for n, ident in enumerate(ids):
        out += struct.pack("<QQQ", first + n * len(payload), len(payload), len(ident)) + ident
    return out + b"\0" * (first - len(out)) + payload * len(ids)


def zstd_raw_frame(data):
    """A zstd frame holding `data` in one raw (stored) block: valid zstd without a compressor."""
    assert 256 <= len(data) < 65792 and len(data) < 1 << 17
    frame = b"\x28\xb5\x2f\xfd" + bytes([0x60]) + struct.pack("<H", len(data) - 256)
    return frame + struct.pack("<I", 1 | (len(data) << 3))[:3] + data


def ccob(version, method, payload, uncompressed):
    head = b"CCOB" + struct.pack("<HH", version, method)
    if version == 1:
        return head + struct.pack("<IQ", len(uncompressed), 0) + payload
    if version == 2:
        return head + struct.pack("<IIQ", 24 + len(payload), len(uncompressed), 0) + payload
    return head + struct.pack("<QQQ", 32 + len(payload), len(uncompressed), 0) + payload


def elf(sections, machine=62, flags=0, abi_version=0):
    """A 64-bit little-endian ELF file with the named sections (name, bytes, alignment)."""
    names = b"\0.shstrtab\0" + b"".join(n.encode() + b"\0" for n, _, _ in sections)
    body = b""
    headers = [b"\0" * 64]
    offset = 64
    placed = [(".shstrtab", names, 1)] + list(sections)
    name_at = 1
    for name, data, align in placed:
        pad = -(offset + len(body)) % max(align, 1)
        body += b"\0" * pad
        headers.append(struct.pack("<IIQQQQIIQQ", name_at, 1, 0, 0, offset + len(body) - 0,
                                   len(data), 0, 0, align, 0))
        body += data
        name_at += len(name) + 1
    table = offset + len(body)
    ident = b"\x7fELF\x02\x01\x01\x00" + bytes([abi_version]) + b"\0" * 7
    header = ident + struct.pack("<HHIQQQIHHHHHH", 3, machine, 1, 0, 0, table, flags, 64, 0, 0,
                                 64, len(headers), 1)
    return header + body + b"".join(headers)


def elf_dynamic(needed):
    """A 64-bit little-endian shared object whose dynamic segment names `needed` (DT_NEEDED):
    one PT_LOAD mapping the file at address 0 and one PT_DYNAMIC (src/binaries/elf_needed.h)."""
    strtab = b"\0"
    offsets = []
    for name in needed:
        offsets.append(len(strtab))
        strtab += name.encode() + b"\0"
    dynamic_at = 64 + 2 * 56
    entries = [(1, o) for o in offsets]
    strtab_at = dynamic_at + (len(entries) + 3) * 16
    entries += [(5, strtab_at), (10, len(strtab)), (0, 0)]
    size = strtab_at + len(strtab)
    ident = b"\x7fELF\x02\x01\x01\x00" + b"\0" * 8
    header = ident + struct.pack("<HHIQQQIHHHHHH", 3, 62, 1, 0, 64, 0, 0, 64, 56, 2, 64, 0, 0)
    load = struct.pack("<IIQQQQQQ", 1, 5, 0, 0, 0, size, size, 4096)
    dynamic = struct.pack("<IIQQQQQQ", 2, 6, dynamic_at, dynamic_at, dynamic_at,
                          len(entries) * 16, len(entries) * 16, 8)
    return header + load + dynamic + b"".join(struct.pack("<qQ", t, v) for t, v in entries) + strtab


def offload_bundle_seeds():
    amd = "hipv4-amdgcn-amd-amdhsa--"
    plain = bundle([amd + "gfx90a:xnack-", amd + "gfx1100", amd + "gfx10-3-generic"])
    small = bundle([amd + "gfx942:sramecc+:xnack-"])
    yield "plain", plain
    yield "openmp-spirv", bundle(["openmp-amdgcn-amd-amdhsa--gfx906", "hip-amdgcn-amd-amdhsa-gfx803",
                                  "hipv4-spirv64-amd-amdhsa--amdgcnspirv"])
    yield "zstd-v2", ccob(2, 1, zstd_raw_frame(plain), plain)
    yield "zstd-v1", ccob(1, 1, zstd_raw_frame(plain), plain)
    yield "zstd-v3", ccob(3, 1, zstd_raw_frame(plain), plain)
    yield "zlib-v2", ccob(2, 0, zlib.compress(small), small)
    fatbin = plain + b"\0" * (-len(plain) % 4096) + ccob(2, 0, zlib.compress(small), small) + b"\0"
    yield "elf-hip-fatbin", elf([(".hip_fatbin", fatbin, 4096), (".hipFatBinSegment", b"\0" * 48, 8)])
    yield "elf-v1-aligned-64", elf([(".hip_fatbin", ccob(1, 0, zlib.compress(small), small)
                                     + b"\0" * 40 + bundle([amd + "gfx1030"]), 64)])
    yield "elf-fat-object", elf([("__CLANG_OFFLOAD_BUNDLE__" + amd + "gfx1201", b"\x7fELF", 1),
                                 ("__CLANG_OFFLOAD_BUNDLE__host-x86_64-unknown-linux-gnu-", b"", 1)])
    yield "elf-no-fatbin", elf([(".rodata", b"__CLANG_OFFLOAD_BUNDLE__" + b"\0" * 8, 8)])
    yield "code-object-v5", elf([], machine=224, flags=0x33f, abi_version=3)  # gfx90a:xnack+
    # What a Python extension module links (python.cuda-packages): CUDA's and HIP's libraries.
    yield "elf-needed-cuda", elf_dynamic(["libc10.so", "libcudart.so.12", "libc10_cuda.so"])
    yield "elf-needed-hip", elf_dynamic(["libamdhip64.so.6", "libc10_hip.so", "libtorch_hip.so"])
    yield "tensile-names", (b"TensileLibrary.dat\nTensileLibrary_lazy_gfx1100.dat\n"
                            b"Kernels.so-000-gfx90a-xnack+.hsaco\nKernels.so-000-gfx906-xnack-.hsaco\n"
                            b"TensileLibrary_Type_HH_Contraction_l_Ailk_Bljk_Cijk_Dijk_gfx942.co\n"
                            b"TensileLibrary_lazy_gfx11-generic.dat\ngfx1250-strict\n")


def fleet_report_seed(name, path):
    """A rocdoc-report/1 document shaped like `check --json`'s, with the findings expect.json
    names (this script cannot run rocdoc; the regressions hold a real report)."""
    with open(os.path.join(path, "expect.json")) as f:
        expect = json.load(f)
    data = manifest(path)
    checks = []
    for status, severity in (("fail", "error"), ("warn", "warning"), ("info", "info")):
        for check_id in expect.get(status, []):
            checks.append({"id": check_id, "area": check_id.split(".")[0], "title": check_id,
                           "status": "warn" if status == "info" else status, "severity": severity,
                           "message": f"{name}: {check_id}", "evidence": [], "fix": [],
                           "fix_order": None, "caused_by": []})
    host = {"kind": "snapshot", "origin": name}
    for key in ("os", "kernel"):
        if isinstance(data.get(key), str):
            host[key] = data[key]
    return json.dumps({"schema": "rocdoc-report/1", "tool": {"name": "rocdoc", "version": "0.1.0"},
                       "rules": {"revision": "2026-11-26"}, "created": "2026-12-01T17:57:08Z",
                       "verdict": "fail" if expect.get("exit") == 1 else "pass",
                       "exit_code": expect.get("exit", 0), "host": host, "checks": checks,
                       "facts": {}}, indent=2).encode()


def custom_seeds():
    """(harness, label, bytes) for the harnesses whose input is not one fixture file."""
    for name, path in fixtures():
        if os.path.exists(os.path.join(path, "expect.json")):
            yield "fleet_report", name, fleet_report_seed(name, path)
        with open(os.path.join(path, "rocdoc-snapshot.json"), "rb") as f:
            yield "snapshot_manifest", name, f.read()
        data = manifest(path)
        links = dict(root_links(path))
        links.update(data.get("links", {}) if isinstance(data.get("links"), dict) else {})
        if links:
            lines = [f"{k} -> {v}" for k, v in sorted(links.items())]
            first = sorted(links)[0]
            yield "path_in_root", name, ("\n".join([first + "/x/../y"] + lines) + "\n").encode()
        env = data.get("env", {}) if isinstance(data.get("env"), dict) else {}
        masks = [f"{k}={v}" for k, v in sorted(env.items())
                 if isinstance(v, str) and ("VISIBLE_DEVICES" in k or k == "GPU_DEVICE_ORDINAL")]
        if masks:
            yield "visible_devices", name, ("\n".join(masks) + "\n").encode()
        for site, listing in site_dir_listings(path):
            yield "metadata", f"{name}-{site}-listing", listing.encode()
    for name, path in list(fixtures())[::8]:  # a plain tar of every 8th fixture
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w") as archive:
            archive.add(path, arcname=".", filter=lambda info: None
                        if info.name.endswith("expect.json") else info)
        yield "snapshot_archive", name, buffer.getvalue()
    logs = os.path.join(SOURCE, "tests", "triage")  # real pasted logs, for rocdoc triage
    for file in sorted(os.listdir(logs)):
        if file.endswith(".log"):
            with open(os.path.join(logs, file), "rb") as f:
                yield "triage", file, f.read()
    # --deep's result lines (src/runtime/protocol.h): what Debian 12's runtimes answer on
    # a machine without a GPU (tests/e2e/test_deep.py runs them), two GPUs, and any fixture's
    # recorded `runtime`.
    yield "runtime_result", "debian-hip", (
        "tried\tlibamdhip64.so.7\tlibamdhip64.so.7: cannot open shared object file\n"
        "loaded\tlibamdhip64.so.5\t/usr/lib/x86_64-linux-gnu/libamdhip64.so.5.2.21153\n"
        "call\thipRuntimeGetVersion\nstatus\thipRuntimeGetVersion\t0\thipSuccess\n"
        "value\truntime_version\t50221153\ncall\thipGetDeviceCount\n"
        "status\thipGetDeviceCount\t100\thipErrorNoDevice\nend\n").encode()
    yield "runtime_result", "debian-smi-hsa", (
        "loaded\tlibrocm_smi64.so.1\t/usr/lib/librocm_smi64.so.1.0\ncall\trsmi_init\n"
        "status\trsmi_init\t8\tRSMI_STATUS_INIT_ERROR\tAn error occurred\n"
        "status\thsa_init\t4104\tHSA_STATUS_ERROR_OUT_OF_RESOURCES\tThe runtime failed\nend\n").encode()
    yield "runtime_result", "two-gpus", (
        "loaded\tx\t/opt/rocm/lib/libamdhip64.so.6\nstatus\thipGetDeviceCount\t0\thipSuccess\n"
        "value\tdevice_count\t2\ndevice\t0\tgcn_arch_name\tgfx90a:sramecc+:xnack-\n"
        "device\t1\tgcn_arch_name\tgfx1100\ndevice\t0\tpci_id\t768\ndevice\t1\tpci_id\t17152\n"
        "status\trsmi_init\t0\tRSMI_STATUS_SUCCESS\nlink\t0\t1\t2\t1\n"
        "agent\tgpu\tgfx90a\nvalue\tround_trip\tok\nend\n").encode()
    # --smoke's output: the script's own result on this machine's shape, and each fixture's record.
    yield "smoke_output", "cpu-torch", (
        "# step import torch\n# step is_available\n"
        '{"available": false, "device_count": 0, "devices": [], "torch": {"version": "1.13.0a0", '
        '"hip": null, "cuda": null}, "network": {"isolated": true}}\n').encode()
    for name, path in fixtures():
        smoke = manifest(path).get("smoke")
        if isinstance(smoke, dict):
            for index, run in enumerate(smoke.get("runs") or []):
                if isinstance(run, dict) and isinstance(run.get("output"), str):
                    yield "smoke_output", f"{name}-{index}", run["output"].encode()
    for name, path in fixtures():
        runtime = manifest(path).get("runtime")
        if isinstance(runtime, dict):
            for key in ("hip", "smi", "hsa", "amdsmi"):
                run = runtime.get(key)
                if isinstance(run, dict) and isinstance(run.get("result"), list):
                    yield "runtime_result", f"{name}-{key}", "".join(f"{line}\n" for line in run["result"]).encode()
    rules = os.path.join(SOURCE, "rules")
    for file in sorted(os.listdir(rules)):
        if file.endswith(".yaml"):
            with open(os.path.join(rules, file), "rb") as f:
                yield "rules", file, file.encode() + b"\n" + f.read()
    for label, content in offload_bundle_seeds():
        yield "offload_bundle", label, content
    # klogctl(SYSLOG_ACTION_READ_ALL)'s text ("<6>[    7.026427] msg"): each fixture's recorded
    # kernel-log lines with a priority, and amdgpu's RAS count files.
    for name, path in fixtures():
        log = manifest(path).get("kernel_log")
        if isinstance(log, dict) and isinstance(log.get("lines"), list):
            text = "".join(f"<6>{line}\n" for line in log["lines"] if isinstance(line, str))
            yield "kernel_log", name, text.encode()
    yield "kernel_log", "ras-count", b"ue: 2\nce: 17\n"
    # .gitignore files of a scanned tree, then after a NUL the path asked about.
    for label, text, path in [
            ("pytorch-like", b"build/\n*.o\n!keep.o\n/third_party/**\n# c\n\\#x\n", b"build"),
            ("anchored", b"docs/*.md\n/top.cu\n**/gen/\n[a-c]?.cu \n", b"src/gen/a1.cu"),
            ("negations", b"*\n!*/\n!*.cu\n", b"csrc/attention.cu")]:
        yield "ignore_rules", label, text + b"\0" + path
    # Source text for the scan's matcher: CUDA idioms that are findings and portable ones.
    yield "pattern_set", "block-reduce", (b"static __shared__ float shared[32];\n"
                                          b"int lane = threadIdx.x & 0x1f;\nint wid = threadIdx.x >> 5;\n"
                                          b"for (int mask = 16; mask > 0; mask >>= 1)\n"
                                          b"  val += __shfl_xor_sync(0xffffffff, val, mask, 32);\n")
    yield "pattern_set", "portable", (b"#if defined(__HIP_PLATFORM_AMD__)\n"
                                      b"v += __shfl_xor_sync(0xffffffffffffffffULL, v, warpSize / 2);\n"
                                      b"#endif\nasm volatile(\"v_mov_b32 %0, %1\" : \"=v\"(a) : \"v\"(b));\n")
    yield "pattern_set", "dockerfile", b"FROM nvcr.io/nvidia/pytorch:24.05-py3\nFROM nvidia/cuda:12.4.1-devel\r\nRUN pip install vllm\n"
    # Whole files for the scan's judgement: the real ports of tests/scan/real/, each after a
    # byte that picks its kind (the order of source_kinds(): cxx, python, cmake, make, shell,
    # dockerfile, compose, kubernetes, pyproject).
    kinds = {".cu": 0, ".cuh": 0, ".hip": 0, ".h": 0, ".cpp": 0, ".py": 1, "Dockerfile": 5}
    real = os.path.join(SOURCE, "tests", "scan", "real")
    for directory, _, names in sorted(os.walk(real)):
        for name in sorted(names):
            kind = next((k for suffix, k in kinds.items() if name.endswith(suffix)), None)
            if kind is not None:
                with open(os.path.join(directory, name), "rb") as f:
                    yield "code_scan", os.path.basename(directory) + "-" + name, bytes([kind]) + f.read()
    yield "code_scan", "branches", (b"\x00#ifndef USE_ROCM\n#define W 32\n#elif X\n#else\\\n#define W 64\n"
                                    b"#endif\n#endif\n// rocdoc: ignore[code.warp-size\nint l = threadIdx.x % 32;\n")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    written = {}
    seen = set()

    def write(harness, label, content):
        digest = hashlib.sha1(content).hexdigest()
        if (harness, digest) in seen:
            return
        seen.add((harness, digest))
        directory = os.path.join(out, harness)
        if harness not in written:
            shutil.rmtree(directory, ignore_errors=True)
            os.makedirs(directory)
            written[harness] = 0
        safe = re.sub(r"[^A-Za-z0-9._+-]+", "_", label)[:100]
        with open(os.path.join(directory, f"{safe}-{digest[:8]}"), "wb") as f:
            f.write(content)
        written[harness] += 1

    patterns = {harness: re.compile(pattern) for harness, pattern in SEEDS.items()}
    for name, path in fixtures():
        for relative, full in root_files(path):
            for harness, pattern in patterns.items():
                if pattern.fullmatch(relative):
                    with open(full, "rb") as f:
                        write(harness, f"{name}-{relative}", f.read())
    for harness, label, content in custom_seeds():
        write(harness, label, content)
    print(", ".join(f"{harness}: {written[harness]}" for harness in sorted(written)), "seeds in", out)
    expected = set(SEEDS) | {"snapshot_manifest", "path_in_root", "visible_devices", "rules",
                             "triage", "runtime_result", "smoke_output", "offload_bundle", "ignore_rules", "pattern_set", "code_scan",
                             "fleet_report"}
    missing = sorted(expected - set(written))
    if missing:
        sys.exit(f"no seeds found for {', '.join(missing)}")


if __name__ == "__main__":
    main()
