"""Issue 10: rocdoc snapshot, check --snapshot FILE, --redact, secrets, hostile archives,
kernel-log evidence. Run: test_snapshots.py path/to/rocdoc"""
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from common import FIXTURES, Results, archive_text, run, validate  # noqa: E402

BINARY = os.path.abspath(sys.argv[1])
results = Results()
check = results.check
WORK = tempfile.mkdtemp(prefix="rocdoc-snapshots-")


def fixtures():
    return sorted(name for name in os.listdir(FIXTURES)
                  if os.path.exists(os.path.join(FIXTURES, name, "rocdoc-snapshot.json")))


def findings(*args, env=None):
    proc = run(BINARY, "check", "--json", *args, env=env)
    try:
        document = json.loads(proc.stdout)
    except json.JSONDecodeError:
        return None, proc
    return {c["id"]: (c["status"], c["message"], json.dumps(c["fix"], sort_keys=True))
            for c in document["checks"]}, proc


def statuses_of(found):
    return None if found is None else {k: v[0] for k, v in found.items()}


def statuses(*args):
    return statuses_of(findings(*args)[0])


def archive_names(path):
    with tarfile.open(path) as archive:
        return archive.getnames()




def fresh(name):
    path = os.path.join(WORK, name)
    shutil.rmtree(path, ignore_errors=True)
    return path


# ---- 1. the live machine: snapshot, then check on it: the same findings -------------------
live_file = fresh("live.tar.gz")
proc = run(BINARY, "snapshot", "-o", live_file)
check(proc.returncode == 0, f"snapshot of the live machine exits 0 ({proc.returncode}: {proc.stderr})")
check(os.path.getsize(live_file) < 1 << 20, f"a typical snapshot is under 1 MB ({os.path.getsize(live_file)})")
check("rocdoc check --snapshot " in proc.stdout, "snapshot says how to diagnose it again")
names = archive_names(live_file)
check(names[0] == "rocdoc-snapshot.json", f"the manifest comes first in the archive ({names[:2]})")
check("report.json" in names, "the archive holds the report of capture time")
live, _ = findings()
again, proc = findings("--snapshot", live_file)
check(again is not None and again == live,
      "check --snapshot FILE gives the live machine's findings: "
      + str({k: (live[k], again.get(k)) for k in live if again and live[k] != again.get(k)}))
document = json.loads(proc.stdout)
snapshot_info = document["host"].get("snapshot")
check(snapshot_info is not None and snapshot_info["changes"] == [] and snapshot_info["capture_report"],
      f"the report describes the snapshot and finds no change ({snapshot_info})")
check(validate(document) is None, f"the snapshot report validates: {validate(document)}")
check(any(n.startswith("snapshot made ") for n in document["notes"]),
      f"a note says when and with what the snapshot was made ({document['notes']})")
check(document["facts"]["kernel_log"] is not None and
      document["facts"]["kernel_log"]["state"] in ("read", "unreadable"),
      "the kernel log state was recorded in the snapshot")
live_dir = fresh("live-dir")
proc = run(BINARY, "snapshot", "--dir", live_dir)
check(proc.returncode == 0, "snapshot --dir writes a directory")
again, _ = findings("--root", live_dir)
check(again == live, "check --root on the snapshot directory gives the live findings")
# Without -o: rocdoc-snapshot-HOST-UTCTIME.tar.gz in the current directory.
default_dir = fresh("default-name")
os.makedirs(default_dir)
proc = subprocess.run([BINARY, "snapshot"], cwd=default_dir, capture_output=True, text=True,
                      timeout=60)
made = os.listdir(default_dir)
check(proc.returncode == 0 and len(made) == 1 and made[0].startswith("rocdoc-snapshot-") and
      made[0].endswith("Z.tar.gz") and made[0] in proc.stdout,
      f"the default name is rocdoc-snapshot-HOST-TIME.tar.gz here ({made})")
proc = run(BINARY, "snapshot", "-o", live_file)
check(proc.returncode == 2 and "already exists" in proc.stderr,
      f"an existing -o file is never replaced ({proc.returncode}: {proc.stderr.strip()})")
proc = run(BINARY, "snapshot", "--dir", live_dir)
check(proc.returncode == 2 and "already holds a snapshot" in proc.stderr,
      f"a directory that holds a snapshot is not written into ({proc.stderr.strip()})")
# Issue 22, N21: nor one that holds anything else (`--dir .` in a work directory).
busy_dir = fresh("busy-dir")
os.makedirs(busy_dir)
with open(os.path.join(busy_dir, "notes.txt"), "w") as f:
    f.write("mine\n")
proc = run(BINARY, "snapshot", "--dir", busy_dir)
check(proc.returncode == 2 and "is not empty" in proc.stderr and
      sorted(os.listdir(busy_dir)) == ["notes.txt"],
      f"a non-empty directory is not written into ({proc.returncode}: {proc.stderr.strip()})")

# --python: the interpreter's sys.path is asked once and kept in the manifest.
python_file = fresh("python.tar.gz")
proc = run(BINARY, "snapshot", "--python", sys.executable, "-o", python_file)
check(proc.returncode == 0, f"snapshot --python exits 0 ({proc.stderr.strip()})")
with tarfile.open(python_file) as archive:
    kept = json.load(archive.extractfile("rocdoc-snapshot.json"))
check([i["path"] for i in kept.get("interpreters", [])] == [sys.executable],
      "the manifest keeps the interpreter named with --python")
with_python, _ = findings("--python", sys.executable)
again, proc = findings("--snapshot", python_file)
check(again == with_python, "check --snapshot of snapshot --python gives check --python's findings")
proc = run(BINARY, "snapshot", "--python", sys.executable, "--root", live_dir)
check(proc.returncode == 2 and "cannot go with --root" in proc.stderr, "snapshot --python with --root")

# A snapshot made on another machine (tests/snapshots/README.md): the same findings here.
h200 = os.path.join(os.path.dirname(FIXTURES), "snapshots", "h200-cuda-wheel-ubuntu2404.tar.gz")
proc = run(BINARY, "check", "--json", "--snapshot", h200)
document = json.loads(proc.stdout)
# Checks newer than the capture that cannot run on it (runtime.* without a recorded `runtime`),
# and skips or passes in other words or each other's place (torch.arch-missing's skip reason,
# rocm.multiple's skip where no ROCm is installed), change no finding.
check(document["host"]["snapshot"]["created"] == "2026-12-01T22:43:10Z" and
      document["host"]["snapshot"]["changes"] == [],
      f"the H200 snapshot reads with no change since capture ({document['host'].get('snapshot')})")
# Checks left out with --only are not "absent now" (found on the H200 host with check --only).
proc = run(BINARY, "check", "--json", "--snapshot", h200, "--only", "gpu.none,torch.*")
only = json.loads(proc.stdout)["host"]["snapshot"]
check(only["changes"] == [], f"--only leaves the other checks out of the comparison ({only})")
check([c["id"] for c in document["checks"] if c["status"] == "fail"] == ["gpu.none"] and
      any((e.get("torch") or {}).get("version") == "2.11.0+cu130"
          for e in document["facts"]["python"]["environments"]),
      "the H200 snapshot: no AMD GPU, and the CUDA wheel in /opt/torch/.venv")

# ---- 2. every fixture: capture it again, check the archive: the same findings -------------
for name in fixtures():
    source = os.path.join(FIXTURES, name)
    packed = fresh(f"{name}.tar.gz")
    proc = run(BINARY, "snapshot", "--root", source, "-o", packed)
    if proc.returncode != 0:
        check(False, f"{name}: snapshot --root exits 0 ({proc.stderr.strip()})")
        continue
    before, _ = findings("--root", source)
    after, _ = findings("--snapshot", packed)
    check(before is not None and before == after,
          f"{name}: the same findings from the snapshot as from the source: "
          + str({k: (before[k][:2], (after or {}).get(k, ("", ""))[:2])
                 for k in (before or {}) if after is None or before[k] != after.get(k)}))
    # --redact: the diagnosis is unchanged (ids, statuses, number of fixes).
    redacted = fresh(f"{name}-redacted.tar.gz")
    proc = run(BINARY, "snapshot", "--redact", "--root", source, "-o", redacted)
    plain = statuses_of(before)
    check(statuses("--root", source, "--redact") == plain, f"{name}: check --redact keeps every status")
    check(proc.returncode == 0 and statuses("--snapshot", redacted) == plain,
          f"{name}: a redacted snapshot keeps every status")

# ---- 3. only what was read; nothing personal; redaction replaces it ------------------------
planted = fresh("planted")
shutil.copytree(os.path.join(FIXTURES, "rx7900xtx-healthy"), planted, symlinks=True)
secrets = {
    "home/alice/.netrc": "machine huggingface.co login alice password NETRC-SECRET-4711\n",
    "home/alice/.cache/huggingface/token": "hf_HOMEsecretTOKENvalue0123456789abcd\n",
    "home/alice/.aws/credentials": "[default]\naws_secret_access_key = AWSHOMESECRETabc123XYZ\n",
    "home/alice/.bash_history": "export OPENAI_API_KEY=sk-HISTORYsecret0123456789abcdef\n",
    "etc/decoy-never-read": "DECOY-NOT-READ\n",
    "etc/hostname": "gpu-box-4711\n",
    "proc/sys/kernel/hostname": "gpu-box-4711\n",
}
for path, text in secrets.items():
    full = os.path.join(planted, "root", path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        f.write(text)
with open(os.path.join(planted, "root/proc/cmdline")) as f:
    cmdline = f.read()
with open(os.path.join(planted, "root/proc/cmdline"), "w") as f:
    f.write(cmdline.strip() + " root=UUID=CMDLINE-SECRET-UUID-0042 amd_iommu=on\n")
props = os.path.join(planted, "root/sys/class/kfd/kfd/topology/nodes/1/properties")
unique_id = [l.split()[1] for l in open(props) if l.startswith("unique_id ")]
manifest_path = os.path.join(planted, "rocdoc-snapshot.json")
manifest = json.load(open(manifest_path))
if unique_id:
    manifest.setdefault("env", {})["ROCR_VISIBLE_DEVICES"] = "GPU-%016X" % int(unique_id[0])
json.dump(manifest, open(manifest_path, "w"))
never = ["NETRC-SECRET-4711", "hf_HOMEsecretTOKENvalue", "AWSHOMESECRET", "sk-HISTORYsecret",
         "DECOY-NOT-READ"]
# The host name is read by no probe: it must not appear either way; the rest is read.
personal = ["alice", "CMDLINE-SECRET-UUID-0042"] + unique_id
never.append("gpu-box-4711")
plain_file = fresh("planted.tar.gz")
redacted_file = fresh("planted-redacted.tar.gz")
check(run(BINARY, "snapshot", "--root", planted, "-o", plain_file).returncode == 0, "planted: snapshot")
check(run(BINARY, "snapshot", "--root", planted, "--redact", "-o", redacted_file).returncode == 0,
      "planted: snapshot --redact")
plain_text = archive_text(plain_file)
redacted_text = archive_text(redacted_file)
for secret in never:
    check(secret not in plain_text and secret not in redacted_text,
          f"a file no probe reads is not in the snapshot ({secret})")
check("root/etc/decoy-never-read" not in archive_names(plain_file), "the decoy file is not in the archive")
for word in personal:
    check(word in plain_text, f"without --redact the snapshot holds what was read ({word})")
    check(word not in redacted_text, f"--redact leaves no {word} in the snapshot")
check("redacted-user-1" in redacted_text and "redacted-value-" in redacted_text,
      "placeholders replace the user and the kernel command-line value")
check(statuses("--root", planted) == statuses("--snapshot", redacted_file),
      "the redacted snapshot of the planted fixture has the same findings")
outputs = {}
for label, args in {"human": [], "json": ["--json"], "markdown": ["--format", "markdown"]}.items():
    proc = run(BINARY, "check", "--root", planted, "--redact", "-v", *args)
    outputs[label] = proc.stdout + proc.stderr
junit = os.path.join(WORK, "planted.xml")
run(BINARY, "check", "--root", planted, "--redact", "--junit", junit)
outputs["junit"] = open(junit).read()
for label, text in outputs.items():
    for word in personal + never:
        check(word not in text, f"check --redact ({label}) holds no {word}")

# ---- 4. secrets in the environment never reach any output, redacted or not ---------------
token_dir = os.path.join(WORK, "ghp_PATHsecretTOKEN0123456789abcdefXYZ", "bin")
os.makedirs(token_dir, exist_ok=True)
env = {
    "HF_TOKEN": "hf_ENVsecretTOKEN0123456789abcdefgh",
    "AWS_SECRET_ACCESS_KEY": "AWSENVSECRETwJalrXUtnFEMI/K7MDENG",
    "GITHUB_TOKEN": "ghp_GITHUBenvSECRET0123456789abcdefgh",
    "OPENAI_API_KEY": "sk-OPENAIenvSECRET0123456789abcdef",
    "HTTPS_PROXY": "http://proxyuser:PROXYPASSWORD42@proxy.example:3128",
    "PATH": token_dir + ":" + os.environ.get("PATH", "/usr/bin:/bin"),
    "LD_LIBRARY_PATH": "/opt/sk-LDLIBsecretTOKEN0123456789abcdef/lib:/opt/rocm/lib",
    "PYTHONPATH": "http://pyuser:PYPATHPASSWORD7@example.org/x",
}
env_secrets = ["hf_ENVsecretTOKEN", "AWSENVSECRET", "ghp_GITHUBenvSECRET", "sk-OPENAIenvSECRET",
               "PROXYPASSWORD42", "ghp_PATHsecretTOKEN", "sk-LDLIBsecretTOKEN", "PYPATHPASSWORD7"]
texts = {}
for label, args in {"human": ["-v"], "json": ["--json"], "markdown": ["--format", "markdown"],
                    "redacted-json": ["--json", "--redact"]}.items():
    proc = run(BINARY, "check", *args, env=env)
    texts[label] = proc.stdout + proc.stderr
junit = os.path.join(WORK, "env.xml")
run(BINARY, "check", "--junit", junit, env=env)
texts["junit"] = open(junit).read()
for label, redact in (("snapshot", []), ("snapshot --redact", ["--redact"])):
    packed = fresh(f"env-{len(redact)}.tar.gz")
    proc = run(BINARY, "snapshot", *redact, "-o", packed, env=env)
    check(proc.returncode == 0, f"{label} with secrets in the environment")
    texts[label] = archive_text(packed)
for label, text in texts.items():
    for secret in env_secrets:
        check(secret not in text, f"{label}: no {secret[:12]}… in the output")
check("REDACTED-SECRET" in texts["json"], "the token in PATH is replaced by REDACTED-SECRET")

# ---- 5. capture-time report: findings that changed are named -----------------------------
changed_dir = fresh("changed")
check(run(BINARY, "snapshot", "--root", os.path.join(FIXTURES, "user-not-in-render"),
          "--dir", changed_dir).returncode == 0, "snapshot --dir of user-not-in-render")
report_path = os.path.join(changed_dir, "report.json")
old = json.load(open(report_path))
flipped = next(c for c in old["checks"] if c["status"] == "fail")
flipped["status"] = "pass"
json.dump(old, open(report_path, "w"))
proc = run(BINARY, "check", "--json", "--root", changed_dir)
document = json.loads(proc.stdout)
changes = document["host"]["snapshot"]["changes"]
check(changes == [{"id": flipped["id"], "then": "pass", "now": "fail", "message_changed": False}],
      f"a finding that differs from the capture-time report is named ({changes})")
human = run(BINARY, "check", "--root", changed_dir).stdout
check(f"findings changed since capture time: {flipped['id']} (pass then, fail now)" in human,
      "the human report says which finding changed")

# ---- 6. hostile archives: exit 2 naming the entry, nothing written ------------------------


def tar_with(members, name, compress=True):
    path = fresh(name)
    with tarfile.open(path, "w:gz" if compress else "w") as archive:
        manifest = json.dumps({"format": "rocdoc-snapshot/1"}).encode()
        info = tarfile.TarInfo("rocdoc-snapshot.json")
        info.size = len(manifest)
        archive.addfile(info, io.BytesIO(manifest))
        for info, data in members:
            archive.addfile(info, io.BytesIO(data) if data is not None else None)
    return path


def member(name, kind=tarfile.REGTYPE, data=b"", link=""):
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = link
    if kind == tarfile.REGTYPE:
        info.size = len(data)
        return info, data
    return info, None


class Zeros(io.RawIOBase):
    def __init__(self, size):
        self.left = size

    def readinto(self, buffer):
        n = min(len(buffer), self.left)
        buffer[:n] = b"\0" * n
        self.left -= n
        return n


def big_member(name, size):
    info = tarfile.TarInfo(name)
    info.size = size
    return info, size


hostile = {
    "absolute": ([member("/etc/passwd", data=b"x")], "/etc/passwd", "absolute path"),
    "dotdot": ([member("root/../../escape", data=b"x")], "root/../../escape", "\"..\""),
    "device": ([member("root/dev/sda", tarfile.BLKTYPE)], "root/dev/sda", "device file"),
    "chardev": ([member("root/dev/kfd", tarfile.CHRTYPE)], "root/dev/kfd", "device file"),
    "fifo": ([member("root/tmp/fifo", tarfile.FIFOTYPE)], "root/tmp/fifo", "FIFO"),
    "hardlink": ([member("root/etc/x", tarfile.LNKTYPE, link="/etc/shadow")], "root/etc/x", "hard link"),
    "escaping-link": ([member("root/etc/os-release", tarfile.SYMTYPE, link="../../../../etc/os-release")],
                      "root/etc/os-release", "leaves root/"),
}
scratch = tempfile.mkdtemp(prefix="rocdoc-tmpdir-")
for label, (members, entry, words) in hostile.items():
    path = tar_with(members, f"hostile-{label}.tar.gz")
    proc = run(BINARY, "check", "--snapshot", path, env={"TMPDIR": scratch})
    check(proc.returncode == 2 and entry in proc.stderr and words in proc.stderr,
          f"hostile archive ({label}): exit 2 naming {entry} ({proc.returncode}: {proc.stderr.strip()})")
check(not os.path.exists(os.path.join(WORK, "escape")), "nothing was written outside")
# Size bombs: one entry over 16 MiB, and 70 MiB in entries of 15 MiB (gzip makes them small).
for label, sizes, words in (("entry", [17 << 20], "more than rocdoc reads of one file"),
                            ("total", [15 << 20] * 5, "unpacks to more than")):
    path = fresh(f"bomb-{label}.tar.gz")
    with tarfile.open(path, "w:gz", compresslevel=1) as archive:
        for i, size in enumerate(sizes):
            info, _ = big_member(f"root/zeros{i}", size)
            archive.addfile(info, Zeros(size))
    check(os.path.getsize(path) < 1 << 20, f"bomb {label} is small packed")
    proc = run(BINARY, "check", "--snapshot", path, env={"TMPDIR": scratch})
    check(proc.returncode == 2 and words in proc.stderr and "root/zeros" in proc.stderr,
          f"bomb ({label}): exit 2 naming the entry ({proc.stderr.strip()})")
path = fresh("many.tar")
with tarfile.open(path, "w") as archive:
    for i in range(100_001):
        archive.addfile(tarfile.TarInfo(f"root/d/{i}"), io.BytesIO(b""))
proc = run(BINARY, "check", "--snapshot", path)
check(proc.returncode == 2 and "more than 100000 entries" in proc.stderr,
      f"an entry-count bomb is refused ({proc.stderr.strip()})")
for label, data, words in (("garbage", b"\x1f\x8b\x08garbage" * 100, "not a snapshot archive"),
                           ("empty", b"", "not a snapshot archive")):
    path = fresh(f"{label}.tar.gz")
    open(path, "wb").write(data)
    proc = run(BINARY, "check", "--snapshot", path)
    check(proc.returncode == 2 and words in proc.stderr, f"{label} archive: exit 2 ({proc.stderr.strip()})")
path = fresh("no-manifest.tar.gz")
with tarfile.open(path, "w:gz") as archive:
    info, data = member("root/etc/os-release", data=b"ID=x\n")
    archive.addfile(info, io.BytesIO(data))
proc = run(BINARY, "check", "--snapshot", path)
check(proc.returncode == 2 and "no rocdoc-snapshot.json" in proc.stderr, f"no manifest: {proc.stderr.strip()}")
proc = run(BINARY, "check", "--snapshot", os.path.join(WORK, "missing.tar.gz"))
check(proc.returncode == 2 and "no such file" in proc.stderr, "a missing archive is exit 2")
check(os.listdir(scratch) == [], f"nothing was written to TMPDIR ({os.listdir(scratch)})")
# A tarball of a snapshot directory (tar czf x.tar.gz DIR) works as well.
path = fresh("wrapped.tar.gz")
with tarfile.open(path, "w:gz") as archive:
    archive.add(os.path.join(FIXTURES, "user-not-in-render"), arcname="ticket-1234")
check(statuses("--snapshot", path) == statuses("--root", os.path.join(FIXTURES, "user-not-in-render")),
      "a snapshot directory packed with tar inside one folder reads as the directory")

# ---- 7. kernel-log evidence -------------------------------------------------------------
unreadable = fresh("kmsg-unreadable")
shutil.copytree(os.path.join(FIXTURES, "rx7900xtx-healthy"), unreadable, symlinks=True)
manifest_path = os.path.join(unreadable, "rocdoc-snapshot.json")
manifest = json.load(open(manifest_path))
manifest["kernel_log"] = {"error": "EPERM"}
json.dump(manifest, open(manifest_path, "w"))
document = json.loads(run(BINARY, "check", "--json", "--root", unreadable).stdout)
check(document["facts"]["kernel_log"] == {"state": "unreadable", "error": "EPERM", "lines": [],
                                          "events": []}, "a recorded EPERM reads as unreadable")
check(any("the kernel log (/dev/kmsg) was not readable (EPERM)" in n and
          "sudo sysctl kernel.dmesg_restrict=0" in n for n in document["notes"]),
      f"the report says what would make the kernel log readable ({document['notes']})")
document = json.loads(run(BINARY, "check", "--json", "--root",
                          os.path.join(FIXTURES, "rx7900xtx-healthy")).stdout)
check(document["facts"]["kernel_log"]["state"] == "not_available" and
      not any("kernel log" in n for n in document["notes"]),
      "a snapshot without kernel_log says nothing of it")
document = json.loads(run(BINARY, "check", "--json", "--root",
                          os.path.join(FIXTURES, "rx580-pci-rejects-atomics")).stdout)
atomics = next(c for c in document["checks"] if c["id"] == "pcie.atomics")
check(atomics["status"] == "fail" and any("PCI rejects atomics" in e for e in atomics["evidence"]),
      "the kernel's 'PCI rejects atomics' line is pcie.atomics' evidence")
if os.geteuid() == 0:
    live_log = json.loads(run(BINARY, "check", "--json").stdout)["facts"]["kernel_log"]
    check(live_log["state"] == "read", f"root reads /dev/kmsg ({live_log['state']})")
    check(all(any(w in line.lower() for w in ("amdgpu", "kfd", "iommu", "amd-vi", "radeon",
                                              "lockdown", "module", "secure boot"))
              for line in live_log["lines"]), "only GPU lines of the kernel log are kept")
    setpriv = shutil.which("setpriv")
    restricted = open("/proc/sys/kernel/dmesg_restrict").read().strip() == "1"
    if setpriv and restricted:
        copy = os.path.join(WORK, "rocdoc-as-nobody")
        shutil.copy(BINARY, copy)
        os.chmod(copy, 0o755)
        os.chmod(WORK, 0o755)
        proc = subprocess.run([setpriv, "--reuid=65534", "--regid=65534", "--clear-groups",
                               copy, "check", "--json"], capture_output=True, text=True, timeout=60)
        log = json.loads(proc.stdout)["facts"]["kernel_log"]
        check(log["state"] == "unreadable" and log["error"] == "EPERM",
              f"an unprivileged user under dmesg_restrict=1 gets EPERM ({log})")

# ---- 8. a snapshot killed while it writes leaves no temporary file ------------------------
signals_dir = fresh("signals")
os.makedirs(signals_dir)
import random  # noqa: E402
import signal  # noqa: E402
import time  # noqa: E402
for i in range(30):
    proc = subprocess.Popen([BINARY, "snapshot", "-o", os.path.join(signals_dir, f"s{i}.tar.gz")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(random.uniform(0, 0.03))
    proc.send_signal(random.choice([signal.SIGTERM, signal.SIGINT]))
    proc.wait()
left = [n for n in os.listdir(signals_dir) if not n.endswith(".tar.gz")]
check(left == [], f"no temporary file is left after a signal ({left})")
for name in os.listdir(signals_dir):
    check(tarfile.is_tarfile(os.path.join(signals_dir, name)),
          f"a snapshot file that exists is complete ({name})")

shutil.rmtree(WORK, ignore_errors=True)
shutil.rmtree(scratch, ignore_errors=True)
results.finish()
