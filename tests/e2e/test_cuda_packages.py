"""python.cuda-packages on real files: a root filesystem (--sysroot) holding Debian's real
python3-torch and, beside it, packages whose build rocdoc tells without running anything.

- flash-attn's module is a real HIP-linked ELF (Debian's librocrand.so.1, which links
  libamdhip64.so.5): read from its dynamic section, it is the ROCm build, no finding;
- xformers' module is Debian's torch/_C (links libtorch_python only): unknown, not judged;
- bitsandbytes 0.46.0 with a CUDA library only, and a CUDA 12 runtime wheel: findings, with the
  exact fix commands of the distribution's interpreter;
- the JSON report validates against docs/report.schema.json.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

from common import Results, place, report, validate

binary = sys.argv[1]
results = Results()
SITE = "/usr/lib/python3/dist-packages"
ROCRAND = "/usr/lib/x86_64-linux-gnu/librocrand.so.1"
TORCH_C = SITE + "/torch/_C.cpython-311-x86_64-linux-gnu.so"


def copy_to(source, target):
    os.makedirs(os.path.dirname(target), exist_ok=True)
    shutil.copyfile(os.path.realpath(source), target)


def dist(tree, directory, name, version):
    path = os.path.join(tree + SITE, directory)
    os.makedirs(path)
    with open(os.path.join(path, "METADATA"), "w") as f:
        f.write(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")


for needed in (ROCRAND, TORCH_C):
    if not os.path.exists(needed):
        results.check(False, f"{needed} missing: scripts/install-test-deps.sh installs it")
        results.finish()

with tempfile.TemporaryDirectory() as base:
    image = os.path.join(base, "image")
    files = subprocess.run(["dpkg", "-L", "python3-torch"], capture_output=True, text=True,
                           check=True).stdout.split("\n")
    for path in filter(None, files):
        if path != "/.":
            place(path, image)
    for path in ["/usr/bin/python3", "/usr/bin/python3.11", "/etc/os-release", "/usr/lib/os-release"]:
        place(path, image)
    flash = "/flash_attn_2_cuda.cpython-311-x86_64-linux-gnu.so"
    dist(image, "flash_attn-2.7.4.post1.dist-info", "flash_attn", "2.7.4.post1")
    copy_to(ROCRAND, image + SITE + flash)
    dist(image, "xformers-0.0.30.dist-info", "xformers", "0.0.30")
    copy_to(TORCH_C, image + SITE + "/xformers/_C.so")
    dist(image, "bitsandbytes-0.46.0.dist-info", "bitsandbytes", "0.46.0")
    os.makedirs(image + SITE + "/bitsandbytes")
    open(image + SITE + "/bitsandbytes/libbitsandbytes_cuda126.so", "w").close()
    dist(image, "nvidia_cublas_cu12-12.1.3.1.dist-info", "nvidia-cublas-cu12", "12.1.3.1")

    code, document, stderr = report(binary, "--sysroot", image, "--gpu", "gfx1100")
    results.check(validate(document) is None, f"the report validates: {validate(document)}")
    checks = {c["id"]: c for c in document["checks"]}
    found = checks["python.cuda-packages"]
    results.check(found["status"] == "fail" and found["severity"] == "error",
                  f"bitsandbytes' CUDA build is an error: {found['status']} {found['message']}")
    results.check(code == 1, f"exit 1 for an error finding: {code} {stderr}")
    evidence = " ".join(found["evidence"])
    results.check("bitsandbytes 0.46.0" in evidence and "nvidia-cublas-cu12 12.1.3.1" in evidence,
                  f"both CUDA packages are named: {found['evidence']}")
    results.check("flash-attn" not in evidence and "xformers" not in evidence,
                  f"the HIP-linked module and the unknown one are not findings: {found['evidence']}")
    commands = [f["command"] for f in found["fix"] if f["command"]]
    results.check(commands == ["/usr/bin/python3 -m pip uninstall -y bitsandbytes nvidia-cublas-cu12",
                               '/usr/bin/python3 -m pip install "bitsandbytes>=0.49.0"'],
                  f"the fixes use the distribution's interpreter: {commands}")
    environments = document["facts"]["python"]["environments"]
    files = {name: entries for e in environments for name, entries in e.get("package_files", {}).items()}
    flash_files = files.get("flash-attn", [])
    results.check(len(flash_files) == 1 and flash_files[0]["path"] == SITE + flash
                  and "libamdhip64.so.5" in (flash_files[0]["needed"] or []),
                  f"the module's libraries were read from its dynamic section: {flash_files}")
    xformers_files = files.get("xformers", [])
    results.check(len(xformers_files) == 1 and xformers_files[0]["needed"] is not None
                  and all("cuda" not in n and "hip" not in n for n in xformers_files[0]["needed"]),
                  f"torch/_C links neither runtime: {xformers_files}")

    # A hostile distribution name (from the .dist-info directory's name, as pip lists it) that
    # the rules' nvidia-*-cu12 wildcard would match: pip never writes such a name (PEP 503), so it
    # is no distribution and never reaches a fix; the fix lines stay what they were.
    dist(image, "nvidia_$(touch rocdocpwned)_cu12-12.0.dist-info", "nvidia-x-cu12", "12.0")
    code, document, stderr = report(binary, "--sysroot", image, "--gpu", "gfx1100")
    found = {c["id"]: c for c in document["checks"]}["python.cuda-packages"]
    hostile_commands = [f["command"] for f in found["fix"] if f["command"]]
    results.check(hostile_commands == commands and "rocdocpwned" not in json.dumps(found),
                  f"a hostile package name is no distribution: not judged, not in a fix: {hostile_commands}")
    scratch = os.path.join(base, "scratch")
    os.makedirs(scratch)
    for command in hostile_commands:
        subprocess.run(["sh", "-n", "-c", command], cwd=scratch, check=False)
    results.check(os.listdir(scratch) == [], "the fix lines parse as shell and create nothing")

results.finish()
