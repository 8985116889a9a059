"""--smoke: torch run for real by each environment's interpreter, in a child (issue 23, 3).

1. Debian's python3-torch (a CPU build, scripts/install-test-deps.sh) run by /usr/bin/python3:
   torch.smoke fails with "is_available() is False: it is a CPU-only build" and names
   torch.cpu-wheel; the child ran without network where the kernel allows (root: always).
2. A fake ROCm torch (tests/smoke/fake_torch: the real CPU torch with torch.cuda answering as
   two RX 7900 XTX would) in a venv, one per mode, named with --python: every path of the
   check (pass, import error, not available, an exception, wrong results, invalid device
   function, out of memory, a hang past the deadline, a crash, a flood of output, a missing
   target, a device count that differs), and the child's environment (allow-listed variables
   only; the caches pointed at a directory that is gone afterwards).
3. Without --smoke nothing is run; snapshot --smoke records the runs and check --root replays
   them; --smoke with --root is a usage error (exit 2).
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from common import SOURCE_DIR, Results, run, validate

binary = sys.argv[1]
results = Results()
FAKE = os.path.join(SOURCE_DIR, "tests", "smoke", "fake_torch", "torch")


def smoke_json(*args, env=None):
    proc = run(binary, "check", "--json", "--smoke", *args, env=env)
    try:
        return proc, json.loads(proc.stdout)
    except json.JSONDecodeError:
        return proc, None


def check_of(document, check_id):
    return next(c for c in document["checks"] if c["id"] == check_id)


# ---- 1. Debian's torch -------------------------------------------------------------------------
debian_torch = "/usr/lib/python3/dist-packages/torch/version.py"
if not os.path.exists(debian_torch):
    print("SKIPPED the real-torch part: python3-torch is not installed (scripts/install-test-deps.sh)")
else:
    proc, document = smoke_json("--python", "/usr/bin/python3")
    smoke = check_of(document, "torch.smoke")
    results.check(smoke["status"] == "fail" and
                  "torch 1.13.0a0 (CPU-only) run by /usr/bin/python3: torch.cuda.is_available() is False: "
                  "it is a CPU-only build, with no GPU code" in smoke["message"],
                  f"Debian's CPU torch: {smoke['status']} {smoke['message']!r}")
    results.check(smoke["fix"][0]["command"] == "rocdoc check --only torch.cpu-wheel,torch.not-found",
                  f"the fix names torch.cpu-wheel: {smoke['fix']}")
    facts = document["facts"]["smoke"]["results"]
    results.check(len(facts) == 1 and facts[0]["torch_file"] == "/usr/lib/python3/dist-packages/torch/__init__.py"
                  and facts[0]["ending"] == "exited" and facts[0]["available"] is False,
                  f"the facts: {facts}")
    if os.geteuid() == 0:
        results.check(facts[0]["network_isolated"] is True, f"the child ran without network: {facts[0]}")
    results.check(validate(document) is None, f"schema: {validate(document)}")
    results.check(proc.stderr == "", f"nothing on stderr: {proc.stderr!r}")

# ---- 2. The fake ROCm torch --------------------------------------------------------------------
work = tempfile.mkdtemp(prefix="rocdoc-smoke-test-")
venvs = {}


def venv(mode):
    if mode not in venvs:
        path = os.path.join(work, mode)
        subprocess.run(["/usr/bin/python3", "-m", "venv", "--without-pip", "--system-site-packages", path],
                       check=True)
        site = glob.glob(os.path.join(path, "lib", "python3*", "site-packages"))[0]
        shutil.copytree(FAKE, os.path.join(site, "torch"))
        with open(os.path.join(site, "torch", "_rocdoc_fake_mode"), "w") as f:
            f.write(mode)
        venvs[mode] = os.path.join(path, "bin", "python3")
    return venvs[mode]


caches_before = set(glob.glob("/tmp/rocdoc-smoke-*"))
CASES = [
    # mode, status, words of the message, fix command (or None)
    ("ok", "pass", "torch ran on 2 GPUs in 1 environment: every product and convolution matched the CPU's",
     None),
    ("import_error", "fail", "import torch failed: ImportError: libamdhip64.so: cannot open shared object file",
     "rocdoc check --only 'torch.*,wsl.*'"),
    ("unavailable", "fail", "torch.cuda.is_available() is False: it found no GPU it may use (torch: \"CUDA "
     "initialization: HIP error: no ROCm-capable device is detected\")", "rocdoc check --only 'perm.*,env.visible-devices'"),
    ("available_error", "fail", "torch.cuda.is_available() raised RuntimeError: HIP error: hipErrorNoDevice", None),
    ("wrong", "fail", "on cuda:1 (AMD Radeon RX 7900 XTX, gfx1100), a fp16 matrix product differs from the CPU's result",
     "rocdoc check --deep --only runtime.hip-init,runtime.compute"),
    ("invalid_function", "fail", "on cuda:1 (AMD Radeon RX 7900 XTX, gfx1100), a fp32 matrix product raised "
     "RuntimeError: HIP error: invalid device function", "rocdoc check --only torch.arch-missing,arch.unsupported"),
    ("oom", "fail", "on cuda:1 (AMD Radeon RX 7900 XTX, gfx1100), a 64 MiB allocation raised RuntimeError: HIP out "
     "of memory", "amd-smi process"),
    ("hang", "fail", "did not finish torch's smoke test within 6 s (at step \"matmul-fp32 cuda:1\"); its process "
     "group was killed", None),
    ("crash", "fail", "crashed: killed by SIGSEGV (at step \"matmul-fp32 cuda:1\")", None),
    ("flood", "fail", "gave no result: it printed more than 1 MiB", None),
    ("no_arch", "fail", "cuda:0 is gfx1100, which torch.cuda.get_arch_list() lacks (gfx90a, gfx942)",
     "rocdoc check --only torch.arch-missing,arch.unsupported"),
]
for mode, status, words, fix in CASES:
    start = time.monotonic()
    proc, document = smoke_json("--timeout", "6", "--python", venv(mode))
    elapsed = time.monotonic() - start
    if document is None:
        results.check(False, f"{mode}: no JSON report: {proc.returncode} {proc.stderr!r}")
        continue
    smoke = check_of(document, "torch.smoke")
    results.check(smoke["status"] == status and words in smoke["message"],
                  f"{mode}: {status}, {words!r}: {smoke['status']} {smoke['message']!r}")
    if fix:
        results.check(any(f["command"] == fix for f in smoke["fix"]), f"{mode}: fix {fix!r}: {smoke['fix']}")
    results.check(proc.stderr == "" and validate(document) is None,
                  f"{mode}: nothing on stderr, the schema holds: {proc.stderr!r} {validate(document)}")
    results.check(elapsed < 6 + 5, f"{mode}: rocdoc ends in time: {elapsed:.1f} s")
    if mode == "ok":
        rows = [e for e in smoke["evidence"] if e.startswith("  cuda:")]
        results.check(rows == ["  cuda:%d  AMD Radeon RX 7900 XTX  gfx1100  fp32 ok  fp16 ok  bf16 ok  conv2d ok  "
                               "alloc ok  " % i + r.split("alloc ok  ")[1] for i, r in enumerate(rows)] and len(rows) == 2,
                      f"ok: one table row per GPU: {rows}")
        human = run(binary, "check", "--smoke", "--python", venv(mode), "--only", "torch.smoke", "-v")
        results.check("cuda:1  AMD Radeon RX 7900 XTX  gfx1100  fp32 ok" in human.stdout,
                      f"the human report shows the table: {human.stdout}")
    if mode == "flood":
        results.check(len(proc.stdout) < 1 << 20, f"flood: the output is not kept: {len(proc.stdout)} bytes")

# The child's environment: allow-listed variables that change torch's answer, nothing else.
secret_env = {"ROCDOC_TEST_SECRET": "hunter2", "AWS_SECRET_ACCESS_KEY": "x", "HIP_VISIBLE_DEVICES": "0,1",
              "HSA_OVERRIDE_GFX_VERSION": "11.0.0", "PYTHONPATH": "/nonexistent"}
proc, document = smoke_json("--python", venv("environment"), env=secret_env)
message = check_of(document, "torch.smoke")["message"]
names = message.split("environment: ")[-1].split(",") if "environment: " in message else []
results.check("HIP_VISIBLE_DEVICES" in names and "HSA_OVERRIDE_GFX_VERSION" in names,
              f"the masks and overrides reach the child: {names}")
results.check(not {"ROCDOC_TEST_SECRET", "AWS_SECRET_ACCESS_KEY", "PYTHONPATH"} & set(names),
              f"nothing else of rocdoc's environment does: {names}")
results.check({"XDG_CACHE_HOME", "MIOPEN_USER_DB_PATH"} <= set(names),
              f"the caches are pointed away from HOME: {names}")
results.check(set(glob.glob("/tmp/rocdoc-smoke-*")) <= caches_before,
              "the private cache directories are gone afterwards")

# ---- 3. Without --smoke, snapshots, usage ------------------------------------------------------
plain = json.loads(run(binary, "check", "--json", "--python", venv("ok")).stdout)
results.check(check_of(plain, "torch.smoke")["status"] == "skip" and plain["facts"]["smoke"] is None,
              "without --smoke torch.smoke skips and nothing ran")
snap = os.path.join(work, "snap")
made = run(binary, "snapshot", "--smoke", "--python", venv("wrong"), "--dir", snap)
results.check(made.returncode == 0, f"snapshot --smoke: {made.returncode} {made.stderr!r}")
with open(os.path.join(snap, "rocdoc-snapshot.json")) as f:
    manifest = json.load(f)
results.check(isinstance(manifest.get("smoke"), dict) and manifest["smoke"]["runs"],
              "the manifest holds the smoke key")
replay = json.loads(run(binary, "check", "--json", "--root", snap).stdout)
again = check_of(replay, "torch.smoke")
results.check(again["status"] == "fail" and "a fp16 matrix product differs" in again["message"],
              f"check --root replays the runs: {again['status']} {again['message']!r}")
for args, needle in ((["check", "--smoke", "--root", snap], "check --smoke: it runs this machine's torch"),
                     (["snapshot", "--smoke", "--root", snap], "snapshot --smoke: it runs this machine's torch"),
                     (["check", "--timeout", "5"], "add --deep or --smoke")):
    proc = run(binary, *args)
    results.check(proc.returncode == 2 and needle in proc.stderr, f"{args}: exit 2, {needle!r}: {proc.stderr!r}")

shutil.rmtree(work, ignore_errors=True)
results.finish()
