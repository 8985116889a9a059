"""GPU-less mode: `check --gpu` judges the software as if the named GPUs were present, and
`--sysroot DIR` reads a plain root filesystem (an unpacked container image) without a manifest.

- An image-like tree holding Debian's real python3-torch (its `dpkg -L` files, copied here) is
  judged for gfx942 and gfx1100: the CPU-only torch fails torch.cpu-wheel, the machine checks
  are skipped with the mode's reason, and nothing outside the tree is read (an absolute link and
  a ../ escape point at decoy torch installs and a decoy passwd outside it; strace shows no read
  of the reading machine's files).
- A tree holding the ROCm torch 2.7.1+rocm6.3 venv of the full-stack-healthy fixture (copied
  without the manifest) passes for gfx942 and gfx1100 and fails arch.unsupported for gfx1031,
  unless the image's HSA_OVERRIDE_GFX_VERSION=10.3.0 is given with --env.
- Bad arguments are exit 2: an unknown target (with "did you mean"), a missing or non-directory
  --sysroot, --sysroot with --root, --sysroot without --gpu, --env outside the allow-list.
- --gpu on the live machine judges its software against the declared GPU.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from common import FIXTURES, Results, place, report, run, validate

binary = sys.argv[1]
results = Results()
REASON = "GPU-less mode (--gpu): hardware, driver and permissions are not judged"
MACHINE_CHECKS = ["gpu.none", "gpu.not-bound", "driver.amdgpu-missing", "driver.kfd-missing",
                  "rocm.agents", "perm.kfd", "perm.render", "perm.container-groups",
                  "env.visible-devices", "numa.balancing", "shm.small"]
DEBIAN_TORCH = "/usr/lib/python3/dist-packages/torch/version.py"


def debian_version(path):
    with open(path) as f:
        return re.search(r"^__version__ = '([^']+)'", f.read(), re.M).group(1)


def by_id(document):
    return {c["id"]: c for c in document["checks"]}


def torch_versions(document):
    return {e["site_dir"]: e["torch"]["version"]
            for e in document["facts"]["python"]["environments"] if e.get("torch")}


if not os.path.exists(DEBIAN_TORCH):
    results.check(False, f"{DEBIAN_TORCH} missing: scripts/install-test-deps.sh installs python3-torch")
    results.finish()

with tempfile.TemporaryDirectory() as base:
    image = os.path.join(base, "image")
    outside = os.path.join(base, "outside")
    os.makedirs(image)
    # The image: Debian's python3-torch as dpkg installed it, its interpreter and os-release.
    files = subprocess.run(["dpkg", "-L", "python3-torch"], capture_output=True, text=True,
                           check=True).stdout.split("\n")
    for path in filter(None, files):
        if path != "/.":
            place(path, image)
    for path in ["/usr/bin/python3", "/usr/bin/python3.11", "/usr/lib/python3.11/os.py",
                 "/etc/os-release", "/usr/lib/os-release"]:
        place(path, image)

    # Decoys outside the image that a link of the image points at: an absolute link (it must
    # restart at the image's root) and a ../ escape (it must stop there).
    leak_home = os.path.join(image, "leakhome/.local/lib/python3.11/site-packages/torch")
    os.makedirs(leak_home)
    with open(os.path.join(leak_home, "version.py"), "w") as f:
        f.write("__version__ = '6.6.6+passwd-leak'\ncuda = None\nhip = '6.2'\n")
    os.makedirs(os.path.join(outside, "pyroot/python3.11/dist-packages/torch"))
    with open(os.path.join(outside, "pyroot/python3.11/dist-packages/torch/version.py"), "w") as f:
        f.write("__version__ = '7.7.7+escape'\ncuda = None\nhip = '6.2'\n")
    with open(os.path.join(outside, "passwd"), "w") as f:
        f.write("root:x:0:0:root:/leakhome:/bin/sh\n")
    os.makedirs(os.path.join(image, "etc"), exist_ok=True)
    os.symlink(os.path.join(outside, "passwd"), os.path.join(image, "etc/passwd"))
    os.makedirs(os.path.join(image, "usr/local/lib"), exist_ok=True)
    os.symlink(os.path.relpath(os.path.join(outside, "pyroot/python3.11"),
                               os.path.join(image, "usr/local/lib")),
               os.path.join(image, "usr/local/lib/python3.11"))
    results.check(os.path.exists(os.path.join(image, "usr/local/lib/python3.11/dist-packages")),
                  "the ../ escape leads outside the image on this machine (the decoy is real)")

    code, document, stderr = report(binary, "--sysroot", image, "--gpu", "gfx942,gfx1100")
    checks = by_id(document)
    human = run(binary, "check", "--sysroot", image, "--gpu", "gfx942,gfx1100", "--no-color").stdout
    system_line = next((line for line in human.splitlines() if line.strip().startswith("System")), "")
    results.check("bare metal" not in system_line and "an image's files" in system_line,
                  f"the human report does not call an image's files bare metal: {system_line!r}")
    results.check(code == 1, f"a CPU-only torch fails the image for gfx942,gfx1100: exit {code} ({stderr!r})")
    results.check(validate(document) is None, f"the report matches the schema: {validate(document)}")
    results.check(document["host"]["kind"] == "sysroot" and document["host"]["origin"] == image,
                  f"host is the sysroot: {document['host']}")
    results.check([g["gfx_target"] for g in document["host"].get("assumed_gpus", [])] == ["gfx942", "gfx1100"]
                  and [g["given"] for g in document["host"]["assumed_gpus"]] == ["gfx942", "gfx1100"],
                  f"host.assumed_gpus names the declared GPUs: {document['host'].get('assumed_gpus')}")
    results.check([(g["gfx_target"], g["bdf"], g["driver"]) for g in document["inventory"]["gpus"]] ==
                  [("gfx942", None, None), ("gfx1100", None, None)],
                  f"the inventory lists the assumed GPUs: {document['inventory']['gpus']}")
    expected = debian_version(DEBIAN_TORCH)
    versions = torch_versions(document)
    results.check(versions == {"/usr/lib/python3/dist-packages": expected},
                  f"Debian's torch {expected} is found in the image, and only it: {versions}")
    cpu = checks["torch.cpu-wheel"]
    results.check(cpu["status"] == "fail" and
                  any(e.startswith(f"torch {expected} (CPU only) in /usr/lib/python3/dist-packages")
                      for e in cpu["evidence"]),
                  f"torch.cpu-wheel fails for the declared AMD GPUs: {cpu}")
    results.check(any("pip" in (f["command"] or "") and "rocm" in (f["command"] or "") for f in cpu["fix"]),
                  f"torch.cpu-wheel proposes a ROCm wheel: {cpu['fix']}")
    for check_id in MACHINE_CHECKS:
        results.check(checks[check_id]["status"] == "skip" and checks[check_id]["message"] == REASON,
                      f"{check_id} is skipped in GPU-less mode: {checks[check_id]}")
    results.check(document["notes"][0] ==
                  "GPU-less mode (--gpu gfx942,gfx1100): the software is judged as if these GPUs "
                  "were present: Instinct MI300X (gfx942), Radeon RX 7900 XTX (gfx1100); hardware, "
                  "driver and permissions are not judged", f"the first note says so: {document['notes']}")
    results.check(any(f"{image} is a plain root filesystem (--sysroot)" in n for n in document["notes"]),
                  f"a note says what a sysroot cannot tell: {document['notes']}")
    text = json.dumps(document)
    results.check("leak" not in text and "7.7.7" not in text and outside + "/" not in text,
                  "nothing outside the image is reported (absolute link and ../ escape stay inside)")
    system = document["facts"].get("system") or {}
    results.check(system.get("uname", {}).get("release", "") == "",
                  f"the kernel of an image is unknown: {system.get('uname')}")

    # No read of the reading machine's files: every path given to the kernel as an absolute
    # path is the image's, or the loader's and the runtime's own.
    if shutil.which("strace"):
        trace_env = dict(os.environ)
        if os.environ.get("ROCDOC_SANITIZED"):
            trace_env["ASAN_OPTIONS"] = "detect_leaks=0"
        trace = subprocess.run(["strace", "-f", "-e", "trace=%file", binary, "check", "--sysroot", image,
                                "--gpu", "gfx942", "--json"], capture_output=True, text=True, env=trace_env)
        paths = re.findall(r'^(?:\[pid +\d+\] )?\w+\((?:AT_FDCWD, )?"(/[^"]*)"', trace.stderr, re.M)
        probe_paths = ("/etc/", "/sys/", "/dev/kfd", "/dev/dri", "/opt", "/usr/lib/python3",
                       "/usr/local/lib/python3", "/home", "/root", "/proc/cmdline", "/proc/sys",
                       "/proc/mounts", "/proc/1/", "/usr/bin/python3", base + "/outside")
        leaked = [p for p in paths if p.startswith(probe_paths) and not p.startswith(image)
                  and not p.startswith(("/etc/ld.so", "/sys/devices/system/cpu"))]
        results.check(paths and not leaked, f"no file of this machine is read for the image: {leaked}")

    # The human report runs too, and says it is GPU-less.
    human = run(binary, "check", "--sysroot", image, "--gpu", "gfx942,gfx1100", "--no-color")
    results.check(human.returncode == 1 and "GPU-less mode" in human.stdout,
                  f"the human report says GPU-less mode: exit {human.returncode}, {human.stderr!r}")

    # A ROCm torch: the full-stack-healthy fixture's venv, copied into a plain tree (no manifest).
    rocm_image = os.path.join(base, "rocm-image")
    fixture_root = os.path.join(FIXTURES, "full-stack-healthy", "root")
    shutil.copytree(os.path.join(fixture_root, "home/alice/venv"), os.path.join(rocm_image, "opt/venv"),
                    symlinks=True)
    for part in ["usr", "etc/os-release", "opt/rocm-6.4.2"]:
        source = os.path.join(fixture_root, part)
        target = os.path.join(rocm_image, part)
        if os.path.isdir(source):
            shutil.copytree(source, target, symlinks=True)
        else:
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copy2(source, target)
    os.symlink("rocm-6.4.2", os.path.join(rocm_image, "opt/rocm"))
    venv_env = ["--env", "PATH=/opt/venv/bin:/usr/bin:/bin", "--env", "VIRTUAL_ENV=/opt/venv"]

    code, document, stderr = report(binary, "--sysroot", rocm_image, "--gpu", "gfx942,gfx1100", *venv_env)
    checks = by_id(document)
    results.check(validate(document) is None, f"the ROCm image report matches the schema: {validate(document)}")
    results.check(torch_versions(document) == {"/opt/venv/lib/python3.12/site-packages": "2.7.1+rocm6.3"},
                  f"the venv named with --env is found: {torch_versions(document)}")
    results.check(code == 0, f"torch 2.7.1+rocm6.3 passes for gfx942,gfx1100: exit {code}, "
                             f"{[(c['id'], c['message']) for c in document['checks'] if c['status'] == 'fail']}")
    results.check(checks["arch.unsupported"]["status"] == "pass",
                  f"arch.unsupported passes for gfx942,gfx1100: {checks['arch.unsupported']}")
    results.check(checks["torch.cpu-wheel"]["status"] == "pass", "torch.cpu-wheel passes on a ROCm torch")

    code, document, stderr = report(binary, "--sysroot", rocm_image, "--gpu", "gfx1031", *venv_env)
    arch = by_id(document)["arch.unsupported"]
    results.check(code == 1 and arch["status"] == "fail" and "gfx1031" in arch["message"],
                  f"gfx1031 has no code in the wheel: exit {code}, {arch}")

    code, document, stderr = report(binary, "--sysroot", rocm_image, "--gpu", "gfx1031", *venv_env,
                                    "--env", "HSA_OVERRIDE_GFX_VERSION=10.3.0")
    arch = by_id(document)["arch.unsupported"]
    results.check(code == 0 and arch["status"] == "pass" and
                  any("runs as gfx1030 (HSA_OVERRIDE_GFX_VERSION=10.3.0)" in e for e in arch["evidence"]),
                  f"the image's override (--env) is judged for the declared gfx1031: exit {code}, {arch}")

    code, document, stderr = report(binary, "--sysroot", rocm_image, "--gpu", "gfx942")
    results.check(torch_versions(document) == {} and by_id(document)["torch.not-found"]["status"] == "warn",
                  f"without --env the venv is not on PATH: nothing tells rocdoc of it: {torch_versions(document)}")

    # Arguments that cannot work are exit 2, in rocdoc's words.
    proc = run(binary, "check", "--sysroot", image, "--gpu", "gfx9422")
    results.check(proc.returncode == 2 and "--gpu 'gfx9422': not a GPU these rules know; did you mean gfx942?"
                  in proc.stderr, f"an unknown target is exit 2 with did-you-mean: {proc.returncode} {proc.stderr!r}")
    proc = run(binary, "check", "--sysroot", os.path.join(base, "missing"), "--gpu", "gfx942")
    results.check(proc.returncode == 2 and "no such directory" in proc.stderr,
                  f"a missing --sysroot is exit 2: {proc.returncode} {proc.stderr!r}")
    proc = run(binary, "check", "--sysroot", os.path.join(outside, "passwd"), "--gpu", "gfx942")
    results.check(proc.returncode == 2 and "not a directory" in proc.stderr,
                  f"a file as --sysroot is exit 2: {proc.returncode} {proc.stderr!r}")
    proc = run(binary, "check", "--sysroot", image, "--root", os.path.join(FIXTURES, "full-stack-healthy"),
               "--gpu", "gfx942")
    results.check(proc.returncode == 2 and "--sysroot and --root" in proc.stderr,
                  f"--sysroot with --root is exit 2: {proc.returncode} {proc.stderr!r}")
    proc = run(binary, "check", "--sysroot", image)
    results.check(proc.returncode == 2 and "add --gpu" in proc.stderr,
                  f"--sysroot without --gpu is exit 2: {proc.returncode} {proc.stderr!r}")
    proc = run(binary, "check", "--sysroot", image, "--gpu", "gfx942", "--env", "AWS_SECRET_ACCESS_KEY=x")
    results.check(proc.returncode == 2 and "allow-list" in proc.stderr and "AWS_SECRET" in proc.stderr,
                  f"--env outside the allow-list is exit 2: {proc.returncode} {proc.stderr!r}")
    proc = run(binary, "check", "--gpu", "gfx942", "--env", "PATH=/bin")
    results.check(proc.returncode == 2 and "--env" in proc.stderr,
                  f"--env without --sysroot is exit 2: {proc.returncode} {proc.stderr!r}")
    # A python3 on the image's PATH that no environment explains: the note does not offer
    # --python, which cannot run an image's interpreter.
    shim_image = os.path.join(base, "shim-image")
    os.makedirs(os.path.join(shim_image, "etc"))
    os.makedirs(os.path.join(shim_image, "opt", "shims"))
    shutil.copy("/etc/os-release", os.path.join(shim_image, "etc", "os-release"))
    with open(os.path.join(shim_image, "opt", "shims", "python3"), "w") as f:
        f.write('#!/bin/sh\nexec python3.11 "$@"\n')
    os.chmod(os.path.join(shim_image, "opt", "shims", "python3"), 0o755)
    code, document, stderr = report(binary, "--sysroot", shim_image, "--gpu", "gfx942",
                                    "--env", "PATH=/opt/shims:/usr/bin")
    shim_notes = [n for n in document["notes"] if n.startswith("python3 on PATH is /opt/shims/python3")]
    results.check(len(shim_notes) == 1 and "--python" not in shim_notes[0] and
                  "never runs its interpreter" in shim_notes[0],
                  f"an image's uninspected python3 is noted without offering --python: {document['notes']}")

    # Every one of them in the form of every other argument error: one line naming the command
    # and flag, then the hint to check's own help.
    for args in (["--sysroot", image, "--gpu", "gfx9422"], ["--sysroot", image],
                 ["--sysroot", os.path.join(base, "missing"), "--gpu", "gfx942"],
                 ["--sysroot", image, "--gpu", "gfx942", "--env", "NOEQUALS"],
                 ["--gpu", "gfx942", "--env", "PATH=/bin"]):
        proc = run(binary, "check", *args)
        lines = proc.stderr.splitlines()
        results.check(proc.returncode == 2 and proc.stdout == "" and len(lines) == 2 and
                      lines[0].startswith("rocdoc: check --") and
                      lines[1] == "Run 'rocdoc check --help' for usage.",
                      f"{args}: one line naming the flag, then the hint: {proc.stderr!r}")

# --gpu on this machine (no AMD GPU): its software is judged for the declared GPU.
code, document, stderr = report(binary, "--gpu", "RX 7900 XTX")
checks = by_id(document)
results.check(document["host"]["kind"] == "live" and
              [g["gfx_target"] for g in document["inventory"]["gpus"]] == ["gfx1100"],
              f"live --gpu assumes the named GPU: {document['inventory']}")
results.check(checks["gpu.none"]["status"] == "skip" and checks["gpu.none"]["message"] == REASON,
              f"gpu.none is not judged in GPU-less mode: {checks['gpu.none']}")
results.check(checks["torch.cpu-wheel"]["status"] == "fail" and code == 1,
              f"this machine's CPU-only torch fails for the declared GPU: exit {code}, {checks['torch.cpu-wheel']}")

results.finish()
