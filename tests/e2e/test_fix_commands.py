"""Every printed fix command is safe to paste into a root shell, whatever the inspected data holds.

The fix commands of every fixture, and of hostile variants of fixtures whose group names,
user name, environment values, paths, kernel release, DKMS and modprobe.d file names carry
shell code (`$(rocdoc_injected_N)`, backticks, `;`, quotes, a newline, a redirection that
creates a marker file), are:

- parsed with `bash -n` (every fix must parse);
- pasted into bash with an empty PATH, HOME and the working directory in a scratch directory,
  `sudo` a function that runs its arguments, and a command_not_found_handle that logs every
  command name bash looks up. No `rocdoc_injected` name may be looked up and no marker file
  may appear. Builtins such as export run harmlessly in that child shell; newgrp, usermod and
  every other program are "not found". A command whose first word is a literal path (an
  interpreter such as /usr/bin/python3) is not run: a DEBUG trap skips it, so a fix can never
  start a program of this machine; a path with `$` or a backtick in it is run (it names nothing
  here), so an injection in it would still be caught. Each fix has a time limit.

Each hostile variant must still get its finding: a value that cannot be validated produces an
explanation instead of a command.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from common import FIXTURES, Results

binary = sys.argv[1]
results = Results()
BASH = shutil.which("bash") or "/bin/bash"
FIX_TIME_LIMIT = 10

PRELUDE = r"""
sudo() { case $1 in */*) return 0;; esac; "$@"; }
command_not_found_handle() { printf '%s\n' "$1" >> "$ROCDOC_TEST_LOG"; return 0; }
__rocdoc_guard() {
  local first=${BASH_COMMAND%%[[:space:]]*}
  case $first in
    *[\$\`]*) return 0;;
    */*) return 1;;
  esac
  return 0
}
shopt -s extdebug
trap __rocdoc_guard DEBUG
"""

# Shell code as a value from the machine may carry it; {m} is a name that must never run.
PAYLOADS = [
    "$({m})",
    "`{m}`",
    ";{m}",
    "'$({m})'",
    '"$({m})"',
    "\n{m}",
    "$(>{m})",
    "';{m};'",
    '";>{m};"',
    "&&{m}",
    "|{m}",
]

# Hundreds of snapshot copies: on a tmpfs when there is one (a disk-backed /tmp is slow).
SCRATCH_BASE = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None

counter = [0]


def marker():
    counter[0] += 1
    return f"rocdoc_injected_{counter[0]}"


def commands_of(root, *args):
    proc = subprocess.run([binary, "check", "--root", root, "--json", *args], capture_output=True,
                          timeout=60)
    if proc.returncode not in (0, 1):
        return None, proc.stderr.decode("utf-8", "replace")
    document = json.loads(proc.stdout)
    return document, [fix["command"] for check in document["checks"] for fix in check["fix"]
                      if fix["command"]]


def paste(fix, scratch):
    """Runs one fix as a user would paste it; returns what went wrong, or None."""
    if "\0" in fix:
        return "the fix holds a NUL byte"
    syntax = subprocess.run([BASH, "-n", "-c", "--", fix], capture_output=True, timeout=FIX_TIME_LIMIT)
    if syntax.returncode != 0:
        return f"bash -n rejects it: {syntax.stderr.decode('utf-8', 'replace').strip()}"
    work = tempfile.mkdtemp(dir=scratch)
    empty = os.path.join(work, "empty-path")
    os.mkdir(empty)
    log = os.path.join(scratch, os.path.basename(work) + ".log")
    open(log, "w").close()
    try:
        subprocess.run([BASH, "-c", "--", PRELUDE + "\n" + fix], cwd=work, stdin=subprocess.DEVNULL,
                       capture_output=True, timeout=FIX_TIME_LIMIT, start_new_session=True,
                       env={"PATH": empty, "HOME": work, "ROCDOC_TEST_LOG": log})
    except subprocess.TimeoutExpired:
        return f"it did not finish within {FIX_TIME_LIMIT} s"
    with open(log) as f:
        looked_up = f.read()
    created = []
    for directory, _, files in os.walk(work):
        created += [name for name in files if "rocdoc_injected" in name]
    shutil.rmtree(work)
    os.remove(log)
    ran = [line for line in looked_up.splitlines() if "rocdoc_injected" in line]
    if ran or created:
        return f"pasting it ran {ran} and created {created}"
    return None


def check_fixes(where, fixes, scratch):
    for fix in sorted(set(fixes)):
        problem = paste(fix, scratch)
        results.check(problem is None, f"{where}: fix {fix!r}: {problem}")


def status_of(document, check_id):
    for check in document["checks"]:
        if check["id"] == check_id:
            return check
    return None


# ---- every fixture -------------------------------------------------------------------------

with tempfile.TemporaryDirectory(dir=SCRATCH_BASE) as scratch:
    fixtures = sorted(name for name in os.listdir(FIXTURES)
                      if os.path.isfile(os.path.join(FIXTURES, name, "rocdoc-snapshot.json")))
    results.check(len(fixtures) > 50, f"fixtures found: {len(fixtures)}")
    for name in fixtures:
        document, fixes = commands_of(os.path.join(FIXTURES, name))
        results.check(document is not None, f"{name}: rocdoc check failed: {fixes}")
        if document is not None:
            check_fixes(name, fixes, scratch)


# ---- hostile variants ----------------------------------------------------------------------

def copy_fixture(name, scratch):
    d = tempfile.mkdtemp(dir=scratch)
    shutil.copytree(os.path.join(FIXTURES, name), d, symlinks=True, dirs_exist_ok=True)
    os.remove(os.path.join(d, "expect.json"))
    return d


def load(d):
    with open(os.path.join(d, "rocdoc-snapshot.json")) as f:
        return json.load(f)


def save(d, manifest):
    with open(os.path.join(d, "rocdoc-snapshot.json"), "w") as f:
        json.dump(manifest, f)


def rename_group(d, old, new):
    path = os.path.join(d, "root", "etc", "group")
    with open(path) as f:
        lines = f.read().splitlines()
    lines = [new + line[len(old):] if line.startswith(old + ":") else line for line in lines]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def manifest_only(edit):
    """Marks an edit that changes only the manifest: one copy of the fixture serves all payloads."""
    edit.manifest_only = True
    return edit


def set_env(name, value):
    def edit(d, m, p):
        m["env"][name] = value.format(p=p)
    return manifest_only(edit)


def edit_group_name(d, m, p):
    rename_group(d, "render", "render" + p)


def edit_udev_group(d, m, p):
    m["identity"]["groups"] = [g for g in m["identity"]["groups"] if g["gid"] != 110]
    m["nodes"]["/dev/kfd"].update({"mode": "0600", "access": "none", "errno": "EACCES"})
    rename_group(d, "render", "render" + p)


@manifest_only
def edit_user(d, m, p):
    m["identity"]["user"] = "alice" + p


def edit_release(d, m, p):
    old = m["uname"]["release"]
    m["uname"]["release"] = old + p
    log = os.path.join(d, "root/var/lib/dkms/amdgpu/6.12.12-2164967.24.04/build/make.log")
    with open(log) as f:
        text = f.read()
    with open(log, "w") as f:
        f.write(text.replace(f"for kernel {old} ", f"for kernel {old + p} ", 1))


def edit_dkms_dir(d, m, p):
    base = os.path.join(d, "root/var/lib/dkms/amdgpu")
    os.rename(os.path.join(base, "6.12.12-2164967.24.04"), os.path.join(base, "6.12.12" + p))


def edit_modprobe(d, m, p):
    base = os.path.join(d, "root/etc/modprobe.d")
    old = os.path.join(base, "blacklist-amdgpu.conf")
    new = os.path.join(base, "blacklist" + p + ".conf")
    os.rename(old, new)
    with open(new, "a") as f:
        f.write("blacklist amdgpu " + p + "\n")


def replace_strings(value, old, new):
    if isinstance(value, str):
        return value.replace(old, new)
    if isinstance(value, list):
        return [replace_strings(v, old, new) for v in value]
    if isinstance(value, dict):
        return {replace_strings(k, old, new): replace_strings(v, old, new) for k, v in value.items()}
    return value


def edit_venv(d, m, p):
    os.rename(os.path.join(d, "root/home/alice/venv"), os.path.join(d, "root/home/alice/venv" + p))
    renamed = replace_strings(m, "/home/alice/venv", "/home/alice/venv" + p)
    m.clear()
    m.update(renamed)


def edit_torch_version(d, m, p):
    for directory, _, files in os.walk(os.path.join(d, "root")):
        if os.path.basename(directory) == "torch" and "version.py" in files:
            path = os.path.join(directory, "version.py")
            with open(path) as f:
                text = f.read()
            with open(path, "w") as f:
                f.write(re.sub(r"__version__ = '([^']*)'",
                               lambda match: "__version__ = " + repr(match.group(1) + p), text))


# (name, fixture, edit, the check that must still find the problem, its statuses,
#  "validated": the value may never reach a command, file_line: the value sits in a text file)
VARIANTS = [
    ("render group name in usermod", "user-not-in-render", edit_group_name, "perm.kfd", {"fail"}, True, True),
    ("render group name in newgrp", "user-needs-relogin", edit_group_name, "perm.relogin", {"fail"}, True, True),
    ("render group name in the udev rule", "full-stack-healthy", edit_udev_group, "perm.kfd", {"fail"}, True, True),
    ("user name", "user-not-in-render", edit_user, "perm.kfd", {"fail"}, False, False),
    ("PYTORCH_ROCM_ARCH", "full-stack-healthy", set_env("PYTORCH_ROCM_ARCH", "gfx90a{p}"), "env.rocm-arch", {"warn"}, True, False),
    ("AMDGPU_TARGETS", "full-stack-healthy", set_env("AMDGPU_TARGETS", "gfx90a;gfx942{p}"), "env.rocm-arch", {"warn"}, True, False),
    ("GPU_TARGETS", "full-stack-healthy", set_env("GPU_TARGETS", "{p}gfx90a"), "env.rocm-arch", {"warn"}, True, False),
    ("HCC_AMDGPU_TARGET", "full-stack-healthy", set_env("HCC_AMDGPU_TARGET", "gfx90a,gfx1030{p}"), "env.rocm-arch", {"warn"}, True, False),
    ("HIP_VISIBLE_DEVICES bad index", "full-stack-healthy", set_env("HIP_VISIBLE_DEVICES", "7,{p}"), "env.visible-devices", {"fail"}, True, False),
    ("HIP_VISIBLE_DEVICES UUID", "full-stack-healthy", set_env("HIP_VISIBLE_DEVICES", "GPU-{p},7"), "env.visible-devices", {"fail"}, True, False),
    ("ROCR_VISIBLE_DEVICES", "full-stack-healthy", set_env("ROCR_VISIBLE_DEVICES", "0,7{p}"), "env.visible-devices", {"fail"}, True, False),
    ("CUDA_VISIBLE_DEVICES", "full-stack-healthy", set_env("CUDA_VISIBLE_DEVICES", "3{p}"), "env.visible-devices", {"fail"}, True, False),
    ("GPU_DEVICE_ORDINAL", "full-stack-healthy", set_env("GPU_DEVICE_ORDINAL", "9,{p}"), "env.visible-devices", {"warn"}, True, False),
    ("HSA_OVERRIDE_GFX_VERSION", "full-stack-healthy", set_env("HSA_OVERRIDE_GFX_VERSION", "11.0.0{p}"), "arch.override-wrong", {"fail"}, True, False),
    ("HSA_OVERRIDE_GFX_VERSION_1", "full-stack-healthy", set_env("HSA_OVERRIDE_GFX_VERSION_1", "{p}11.0.0"), "arch.override-wrong", {"fail"}, True, False),
    ("global override beside an iGPU", "igpu-dgpu-global-override", set_env("HSA_OVERRIDE_GFX_VERSION", "11.0.0{p}"), "arch.override-wrong", {"fail"}, True, False),
    ("ROCM_PATH", "full-stack-healthy", set_env("ROCM_PATH", "/opt/rocm-6.2{p}"), "env.rocm-path", {"warn"}, True, False),
    ("HIP_PATH", "full-stack-healthy", set_env("HIP_PATH", "/opt/hip{p}"), "env.rocm-path", {"warn"}, True, False),
    ("LD_LIBRARY_PATH", "torch-rocm61-system-rocm62", set_env("LD_LIBRARY_PATH", "/opt/rocm/lib:/opt/x{p}"), "torch.rocm-mismatch", {"warn"}, False, False),
    ("LD_LIBRARY_PATH of several ROCms", "rocm-multiple-disagree", set_env("LD_LIBRARY_PATH", "/opt/rocm-6.2.4/lib:/x{p}"), "rocm.multiple", {"warn"}, False, False),
    ("kernel release", "dkms-not-built-for-hwe-kernel", edit_release, "driver.dkms-build", {"warn"}, False, False),
    ("DKMS version directory", "dkms-not-built-for-hwe-kernel", edit_dkms_dir, "driver.dkms-build", {"warn"}, False, False),
    ("modprobe.d file name and line", "amdgpu-blacklisted", edit_modprobe, "driver.amdgpu-missing", {"fail"}, False, True),
    ("WSL_DISTRO_NAME", "wsl1", set_env("WSL_DISTRO_NAME", "Ubuntu{p}"), "wsl.version1", {"fail"}, True, False),
    ("python path of a CUDA torch", "cuda-wheel-pytorch-org", edit_venv, "torch.cuda-wheel", {"fail"}, False, False),
    ("python path of mismatched companions", "torchvision-cu-mismatch", edit_venv, "torch.companions", {"fail"}, False, False),
    ("python path of an unsupported GPU's remedy", "rx6700xt-no-override", edit_venv, "arch.unsupported", {"fail"}, False, False),
    ("torch version's local tag", "torchvision-cu-mismatch", edit_torch_version, None, set(), False, False),
]

EXPLANATIONS = {
    "perm.kfd": "is not a valid group name",
    "perm.relogin": "is not a valid group name",
    "env.rocm-arch": "is not a list of gfx targets",
    "wsl.version1": "is not a distribution name",
}

with tempfile.TemporaryDirectory(dir=SCRATCH_BASE) as scratch:
    for name, fixture, edit, check_id, statuses, validated, file_line in VARIANTS:
        shared = copy_fixture(fixture, scratch) if getattr(edit, "manifest_only", False) else None
        for template in PAYLOADS:
            if file_line and "\n" in template:
                continue  # a line break in a text file starts another line of it, not a value
            m = marker()
            payload = template.format(m=m)
            d = shared or copy_fixture(fixture, scratch)
            manifest = load(os.path.join(FIXTURES, fixture))
            edit(d, manifest, payload)
            save(d, manifest)
            where = f"{name} ({payload!r})"
            document, fixes = commands_of(d)
            results.check(document is not None, f"{where}: rocdoc check failed: {fixes}")
            if document is None:
                continue
            check_fixes(where, fixes, scratch)
            if check_id is not None:
                check = status_of(document, check_id)
                results.check(check is not None and check["status"] in statuses,
                              f"{where}: {check_id} still finds the problem: {check}")
                explanation = EXPLANATIONS.get(check_id) if validated else None
                if check is not None and explanation:
                    results.check(explanation in check["message"],
                                  f"{where}: {check_id} says what is wrong: {check['message']!r}")
            if validated:
                leaked = [fix for fix in fixes if m in fix]
                results.check(not leaked, f"{where}: the value reached a command: {leaked}")
            if shared is None:
                shutil.rmtree(d)

results.finish()
