"""Issue 20 (REPORT.md D3, D5, D6, D13): what a snapshot and --redact keep of fstab, the kernel
command line and log, distribution-named users, short host names and allow-listed values.
Run: test_redaction.py path/to/rocdoc"""
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from common import FIXTURES, Results, archive_text, run  # noqa: E402

BINARY = os.path.abspath(sys.argv[1])
results = Results()
check = results.check
WORK = tempfile.mkdtemp(prefix="rocdoc-redaction-")




def member(path, name):
    with tarfile.open(path) as archive:
        return archive.extractfile(name).read().decode("utf-8", "replace")


def minimal(name, manifest, files):
    """A snapshot directory: the manifest and root/ files."""
    root = os.path.join(WORK, name)
    os.makedirs(os.path.join(root, "root"))
    with open(os.path.join(root, "rocdoc-snapshot.json"), "w") as f:
        json.dump({"format": "rocdoc-snapshot/1", **manifest}, f)
    for path, text in files.items():
        full = os.path.join(root, "root", path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(text)
    return root


def statuses(*args):
    proc = run(BINARY, "check", "--json", *args)
    try:
        return {c["id"]: c["status"] for c in json.loads(proc.stdout)["checks"]}
    except (json.JSONDecodeError, KeyError):
        return None


# ---- D3: fstab goes into a snapshot only as the lines the probes read, without credentials --
fstab = ("# /etc/fstab\n"
         "//files.corp.example/share /mnt/share cifs username=zelda,password=Hunter2SecretPw 0 0\n"
         "nas.corp.example:/export /mnt/nfs nfs credentials=/root/.nfscred 0 0\n"
         "tmpfs /dev/shm tmpfs defaults,size=1G 0 0\n")
source = minimal("fstab", {"identity": {"user": "zelda", "uid": 1001, "gid": 1001}},
                 {"etc/passwd": "zelda:x:1001:1001:Zelda:/home/zelda:/bin/bash\n", "etc/fstab": fstab})
for mode in ([], ["--redact"]):
    packed = os.path.join(WORK, f"fstab{len(mode)}.tar.gz")
    proc = run(BINARY, "snapshot", "--root", source, *mode, "-o", packed)
    kept = member(packed, "root/etc/fstab") if proc.returncode == 0 else ""
    text = archive_text(packed) if proc.returncode == 0 else ""
    label = "snapshot " + " ".join(mode)
    check(kept.splitlines()[3:] == ["tmpfs /dev/shm tmpfs defaults,size=1G 0 0"],
          f"{label}: fstab keeps the /dev/shm line under its number ({kept!r})")
    for secret in ("Hunter2SecretPw", "password=", "files.corp.example", "nas.corp.example",
                   ".nfscred", "/mnt/share"):
        check(secret not in text, f"{label}: no {secret} in the archive")

# The noexec fixture with /dev in fstab: the same findings and fixes from its snapshot.
noexec = os.path.join(WORK, "noexec")
shutil.copytree(os.path.join(FIXTURES, "raven-apu-dev-noexec"), noexec, symlinks=True)
with open(os.path.join(noexec, "root", "etc", "fstab"), "a") as f:
    f.write("//srv/x /mnt/x cifs password=pw 0 0\nudev /dev devtmpfs noexec,nosuid 0 0\n")


def fixes(*args):
    document = json.loads(run(BINARY, "check", "--json", *args).stdout)
    return {c["id"]: (c["status"], [x.get("command") for x in c["fix"]]) for c in document["checks"]}


packed = os.path.join(WORK, "noexec.tar.gz")
check(run(BINARY, "snapshot", "--root", noexec, "-o", packed).returncode == 0, "snapshot of noexec")
before, after = fixes("--root", noexec), fixes("--snapshot", packed)
check(before == after and any("sed -i '14s/,noexec//" in (c or "") for c in before["driver.kfd-unusable"][1]),
      f"noexec: the same statuses and fixes (fstab line 14) from the snapshot ({before.get('driver.kfd-unusable')}, "
      f"{after.get('driver.kfd-unusable')})")

# ---- D5: every copy of the command line is redacted as a whole; so are serials ----------------
source = minimal("cmdline", {"kernel_log": {"lines": [
    "[    0.000000] Kernel command line: BOOT_IMAGE=/vmlinuz root=UUID=6f1c-SECRETUUID ro amd_iommu=on "
    "iommu=pt luks.key=TOPSECRETKEY ip=10.1.2.3::10.1.2.1:255.255.255.0:gpuhost42:eth0:none",
    "[   12.500000] amdgpu 0000:03:00.0: amdgpu: board serial PLANTEDSERIAL42"]}},
    {"proc/cmdline": 'BOOT_IMAGE=/vmlinuz root=UUID=6f1c-SECRETUUID amd_iommu=on secret="QUOTEDFIRST QUOTEDSECOND" '
                     "--addr 10.0.0.5:2024\n"})
packed = os.path.join(WORK, "cmdline.tar.gz")
proc = run(BINARY, "snapshot", "--root", source, "--redact", "-o", packed)
text = archive_text(packed) if proc.returncode == 0 else ""
check(proc.returncode == 0 and "amd_iommu=on iommu=pt" in text, "snapshot --redact keeps the IOMMU words")
for secret in ("SECRETUUID", "TOPSECRETKEY", "gpuhost42", "PLANTEDSERIAL42", "QUOTEDFIRST", "QUOTEDSECOND", "10.0.0.5",
               "--addr"):
    check(secret not in text, f"snapshot --redact: no {secret} in the archive")

# ---- D6: a user named like the distribution changes no verdict under --redact -------------------
# Every fixture, with the cloud images' default users added (uid 1001 on) and the user who runs
# rocdoc renamed ubuntu: each name is replaced (or not) on its own, so one run with all of them
# stands for one run per name.
NAMES = ["ubuntu", "debian", "admin", "fedora", "centos", "rocky", "almalinux", "ec2-user", "arch",
         "opensuse"]


def distro_named(name):
    copy = os.path.join(WORK, "users", name)
    shutil.copytree(os.path.join(FIXTURES, name), copy, symlinks=True)
    passwd = os.path.join(copy, "root", "etc", "passwd")
    os.makedirs(os.path.dirname(passwd), exist_ok=True)
    with open(passwd, "a") as f:
        for uid, user in enumerate(NAMES, start=1001):
            f.write(f"{user}:x:{uid}:{uid}:{user}:/home/{user}:/bin/bash\n")
    # The user who runs rocdoc is one of them too, as on an Ubuntu cloud image.
    manifest_path = os.path.join(copy, "rocdoc-snapshot.json")
    with open(manifest_path) as f:
        manifest = json.load(f)
    identity = manifest.get("identity") or {}
    if identity.get("user") not in (None, "", "root"):
        for group in identity.get("groups") or []:
            if group.get("name") == identity["user"]:
                group["name"] = "ubuntu"
        identity["user"] = "ubuntu"
        with open(manifest_path, "w") as f:
            json.dump(manifest, f)
    plain = statuses("--root", copy)
    redacted = statuses("--root", copy, "--redact")
    return name, plain, redacted


names = sorted(n for n in os.listdir(FIXTURES) if os.path.isdir(os.path.join(FIXTURES, n, "root")))
with concurrent.futures.ThreadPoolExecutor(max_workers=min(8, os.cpu_count() or 2)) as pool:
    for name, plain, redacted in pool.map(distro_named, names):
        check(plain is not None and plain == redacted,
              f"{name}: users named {', '.join(NAMES)}: --redact keeps every status: "
              + str({k: (v, (redacted or {}).get(k)) for k, v in (plain or {}).items()
                     if (redacted or {}).get(k) != v}))

# ---- D13: short host names, tokens inside path components, values of a known shape -------------
short = os.path.join(WORK, "short-host")
shutil.copytree(os.path.join(FIXTURES, "full-stack-healthy"), short, symlinks=True)
for path in ("proc/sys/kernel/hostname", "etc/hostname"):
    os.makedirs(os.path.dirname(os.path.join(short, "root", path)), exist_ok=True)
    with open(os.path.join(short, "root", path), "w") as f:
        f.write("n1\n")
here = os.path.join(WORK, "here")
os.makedirs(here)
proc = subprocess.run([BINARY, "snapshot", "--root", short, "--redact"], cwd=here, capture_output=True,
                      text=True, timeout=60)
written = os.listdir(here)
check(proc.returncode == 0 and len(written) == 1 and "-n1-" not in written[0] and "redacted-host" in written[0],
      f"snapshot --redact: the default file name holds no short host name ({written})")
if len(written) == 1:
    # The probes do not read the host name today; wherever a snapshot holds it, it is redacted.
    with tarfile.open(os.path.join(here, written[0])) as archive:
        for name in ("root/etc/hostname", "root/proc/sys/kernel/hostname"):
            if name in archive.getnames():
                check(archive.extractfile(name).read() == b"redacted-host-1\n",
                      f"snapshot --redact: {name} holds the placeholder")

with open(os.path.join(short, "rocdoc-snapshot.json")) as f:
    manifest = json.load(f)
manifest["env"].update({
    "VIRTUAL_ENV": "/home/u/venv-hf_AbCdEfGhIjKlMnOpQrStUvWx12",
    "PATH": "/opt/tok-ghp_abcdefghijklmnopqrstuvwxyz0123456789/bin:" + manifest["env"]["PATH"],
    "HSA_OVERRIDE_GFX_VERSION": "10.3.0 hunter2plainpw"})
with open(os.path.join(short, "rocdoc-snapshot.json"), "w") as f:
    json.dump(manifest, f)
plain = run(BINARY, "check", "--root", short, "--json").stdout
redacted = run(BINARY, "check", "--root", short, "--redact", "--json").stdout
for secret in ("hf_AbCdEfGhIjKlMnOpQrStUvWx12", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"):
    check(secret not in plain and secret not in redacted, f"check: no {secret[:8]}… after a '-' in a path")
check("hunter2plainpw" not in redacted and "venv-REDACTED-SECRET" in redacted,
      "check --redact: HSA_OVERRIDE_GFX_VERSION is kept only as a version")

shutil.rmtree(WORK, ignore_errors=True)
results.finish()
