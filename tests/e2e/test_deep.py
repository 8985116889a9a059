"""--deep: the HIP runtime, rocm_smi_lib and the HSA runtime loaded for real, in children.

1. Debian's libamdhip64-5, librocm-smi64-1 and libhsa-runtime64-1 (scripts/install-test-deps.sh)
   on this machine without a GPU: HIP 5.2 loads and says hipErrorNoDevice, rsmi_init fails with
   8 (printing two lines on its stderr, which must not reach rocdoc's), hsa_init with 0x1008;
   both checks pass; without --deep both skip and nothing is forked; snapshot --deep keeps the
   answers and check --root replays them, with or without --deep.
2. Fake runtimes built by the tests (tests/deep/, under ROCDOC_FAKE_ROCM/<mode>/lib, reached
   through ROCM_PATH): a hang (timed out, group killed, no process left), a crash (SIGSEGV), a
   library that floods stdout/stderr and writes garbage on every descriptor (bounded, never
   leaked, unreadable result), two GPUs (gfx90a, gfx1100) against no KFD GPU, error statuses
   mapped to their causes, rocm_smi with two devices joined by XGMI, and a library whose
   processes escape to a session and a group of their own (ended all the same).
3. --timeout is validated (exit 2).
"""
import json
import os
import subprocess
import sys
import tempfile
import time

from common import Results, run, validate

binary = sys.argv[1]
results = Results()
fake_root = os.environ.get("ROCDOC_FAKE_ROCM", "")


def deep_json(*args, env=None):
    proc = run(binary, "check", "--json", "--deep", *args, env=env)
    try:
        document = json.loads(proc.stdout)
    except json.JSONDecodeError:
        document = None
    return proc, document


def check_of(document, check_id):
    return next(c for c in document["checks"] if c["id"] == check_id)


def call(load, function):
    return next((c for c in load["calls"] if c["function"] == function), None)


# ---- 1. Debian's libraries --------------------------------------------------------------------
debian = ["/usr/lib/x86_64-linux-gnu/libamdhip64.so.5", "/usr/lib/librocm_smi64.so.1",
          "/usr/lib/x86_64-linux-gnu/libhsa-runtime64.so.1"]
missing = [path for path in debian if not os.path.exists(path)]
if missing:
    print(f"SKIPPED the real-library part: {missing} not installed "
          "(scripts/install-test-deps.sh installs libamdhip64-5, librocm-smi64-1, libhsa-runtime64-1)")
else:
    env = {"ROCM_PATH": "", "HIP_VISIBLE_DEVICES": "", "ROCR_VISIBLE_DEVICES": ""}
    clean = {k: v for k, v in os.environ.items() if k not in env}
    proc = subprocess.run([binary, "check", "--json", "--deep"], capture_output=True, text=True,
                          env=clean, timeout=60)
    document = json.loads(proc.stdout)
    results.check(proc.returncode == 1, f"check --deep exits 1 (gpu.none) here: {proc.returncode}")
    results.check(validate(document) is None, f"--deep report matches the schema: {validate(document)}")
    results.check(proc.stderr == "", f"nothing on rocdoc's stderr with --deep: {proc.stderr!r}")
    runtime = document["facts"]["runtime"]
    hip = runtime["hip"]
    results.check(hip["load"]["loaded"] == os.path.realpath(debian[0]),
                  f"HIP loaded from Debian's file: {hip['load']['loaded']}")
    results.check(hip["runtime_version"] is not None and hip["runtime_version"] // 100000 == 502,
                  f"HIP 5.2.x: {hip['runtime_version']}")
    count = call(hip["load"], "hipGetDeviceCount")
    results.check(count is not None and count["status"] == 100 and count["name"] == "hipErrorNoDevice",
                  f"hipGetDeviceCount: hipErrorNoDevice (100): {count}")
    results.check([f["candidate"] for f in hip["load"]["failed"]] == ["libamdhip64.so.7", "libamdhip64.so.6"],
                  f"the newer sonames were tried first, with dlerror: {hip['load']['failed']}")
    results.check(hip["load"]["ending"] == "exited" and hip["load"]["complete"], "the HIP child finished")
    smi = runtime["smi"]
    init = call(smi["load"], "rsmi_init")
    results.check(init is not None and init["status"] == 8 and init["name"] == "RSMI_STATUS_INIT_ERROR",
                  f"rsmi_init: RSMI_STATUS_INIT_ERROR (8): {init}")
    results.check(smi["load"]["loaded"] == os.path.realpath(debian[1]), f"rocm_smi from Debian: {smi['load']['loaded']}")
    results.check(smi["load"]["stderr"]["lines"] >= 1 and
                  "Failed to open drm root directory" in smi["load"]["stderr"]["first_lines"][0],
                  f"rsmi's stderr is kept, summarised, in the JSON: {smi['load']['stderr']}")
    hsa_init = call(runtime["hsa"]["load"], "hsa_init")
    results.check(hsa_init is not None and hsa_init["status"] == 0x1008 and
                  hsa_init["name"] == "HSA_STATUS_ERROR_OUT_OF_RESOURCES",
                  f"hsa_init: HSA_STATUS_ERROR_OUT_OF_RESOURCES (0x1008): {hsa_init}")
    hip_init = check_of(document, "runtime.hip-init")
    results.check(hip_init["status"] == "pass" and hip_init["message"] ==
                  f"HIP 5.2.21153 loaded from {os.path.realpath(debian[0])}: no device "
                  "(hipErrorNoDevice), as the kernel shows none",
                  f"runtime.hip-init passes, saying so: {hip_init['status']} {hip_init['message']!r}")
    results.check(any("hsa_init returned HSA_STATUS_ERROR_OUT_OF_RESOURCES (0x1008)" in e
                      for e in hip_init["evidence"]), f"hsa_init's status is evidence: {hip_init['evidence']}")
    smi_check = check_of(document, "runtime.smi")
    results.check(smi_check["status"] == "pass" and "rsmi_init failed with RSMI_STATUS_INIT_ERROR (8), "
                  "as expected: the kernel shows no AMD GPU" in smi_check["message"],
                  f"runtime.smi passes: {smi_check['status']} {smi_check['message']!r}")
    human = subprocess.run([binary, "check", "--deep", "-v"], capture_output=True, text=True,
                           env=clean, timeout=60)
    results.check("no device (hipErrorNoDevice), as the kernel shows none" in human.stdout,
                  "the human report has the one-line summary")
    for noise in ("Failed to open drm", "Exception caught"):
        results.check(noise not in human.stdout and noise not in human.stderr,
                      f"the library's stderr ({noise!r}) reaches neither rocdoc's stdout nor stderr")

    # Without --deep: both skip, and nothing is forked (one execve, no clone).
    plain = json.loads(subprocess.run([binary, "check", "--json"], capture_output=True, text=True,
                                      env=clean, timeout=60).stdout)
    for check_id in ("runtime.hip-init", "runtime.smi"):
        c = check_of(plain, check_id)
        results.check(c["status"] == "skip" and "run with --deep" in c["message"],
                      f"{check_id} skips without --deep: {c['message']!r}")
    results.check(plain["facts"]["runtime"] is None, "facts.runtime is null without --deep")
    trace_env = dict(clean)
    trace_env["ASAN_OPTIONS"] = ":".join(filter(None, [trace_env.get("ASAN_OPTIONS"), "detect_leaks=0"]))
    for args, forks in ((["check"], False), (["check", "--deep"], True)):
        trace = subprocess.run(["strace", "-f", "-e", "trace=execve,fork,vfork,clone,clone3", binary, *args],
                               capture_output=True, text=True, env=trace_env, timeout=60)
        # rocdoc's own threads (the probes run side by side: CLONE_THREAD) are no child.
        calls = [line for line in trace.stderr.splitlines()
                 if line.split("]", 1)[-1].strip().startswith(("clone", "fork", "vfork"))
                 and "CLONE_THREAD" not in line]
        results.check(bool(calls) == forks, f"{args}: forks {'' if forks else 'nothing'}: {calls[:4]}")

    # snapshot --deep keeps the answers; check replays them with or without --deep.
    with tempfile.TemporaryDirectory() as tmp:
        snap = os.path.join(tmp, "snap")
        made = subprocess.run([binary, "snapshot", "--deep", "--dir", snap], capture_output=True, text=True,
                              env=clean, timeout=60)
        results.check(made.returncode == 0, f"snapshot --deep: {made.returncode} {made.stderr!r}")
        with open(os.path.join(snap, "rocdoc-snapshot.json")) as f:
            manifest = json.load(f)
        results.check(isinstance(manifest.get("runtime"), dict) and manifest["runtime"]["hip"]["result"],
                      "the manifest holds the runtime key")
        replay = json.loads(run(binary, "check", "--json", "--root", snap).stdout)
        for check_id in ("runtime.hip-init", "runtime.smi"):
            live, again = check_of(document, check_id), check_of(replay, check_id)
            results.check((live["status"], live["message"]) == (again["status"], again["message"]),
                          f"{check_id} replays from the snapshot: {again['status']} {again['message']!r}")
        refused = run(binary, "check", "--deep", "--root", snap)
        results.check(refused.returncode == 2 and "check --deep: it loads this machine's runtimes" in refused.stderr,
                      f"--deep with --root is a usage error: {refused.returncode} {refused.stderr!r}")

# ---- 2. Fakes ---------------------------------------------------------------------------------
if not fake_root or not os.path.isdir(fake_root):
    results.check(False, f"the fake runtimes are built (ROCDOC_FAKE_ROCM={fake_root!r})")
else:
    def fake(mode, *args, extra=None):
        env = {"ROCM_PATH": os.path.join(fake_root, mode)}
        env.update(extra or {})
        start = time.monotonic()
        proc, document = deep_json(*args, env=env)
        return proc, document, time.monotonic() - start

    def alive(marker):
        found = []
        for pid in os.listdir("/proc"):
            if pid.isdigit():
                try:
                    with open(f"/proc/{pid}/cmdline", "rb") as f:
                        if marker in f.read():
                            found.append(pid)
                except OSError:
                    pass
        return found

    proc, document, elapsed = fake("hang", "--timeout", "1")
    hip_init = check_of(document, "runtime.hip-init")
    results.check(hip_init["status"] == "fail" and "timed out after 1 s in hipGetDeviceCount" in hip_init["message"],
                  f"a hang is a finding: {hip_init['message']!r}")
    results.check(elapsed < 1 + 4, f"--timeout 1 ends the hang in time: {elapsed:.1f} s")
    results.check(document["facts"]["runtime"]["hip"]["load"]["ending"] == "timed_out", "ending: timed_out")
    time.sleep(0.2)
    results.check(alive(b"4242.5") == [], "the hung library's grandchild was killed with its group")
    results.check(proc.stderr == "", f"nothing on stderr: {proc.stderr!r}")

    # Under ASan (the sanitizer build of CI) the runtime's SEGV handler would turn the child's
    # crash into "exited with status 1"; handle_segv=0 keeps what a user's rocdoc sees.
    segv_env = {"ASAN_OPTIONS": ":".join(filter(None, [os.environ.get("ASAN_OPTIONS"), "handle_segv=0"]))}
    proc, document, _ = fake("segv", extra=segv_env)
    hip_init = check_of(document, "runtime.hip-init")
    results.check(hip_init["status"] == "fail" and
                  "the HIP runtime crashed: the child was killed by SIGSEGV in hipGetDeviceCount" in hip_init["message"],
                  f"a crash is a finding: {hip_init['message']!r}")
    results.check(proc.returncode == 1 and proc.stderr == "", f"rocdoc itself is fine: {proc.returncode} {proc.stderr!r}")

    proc, document, _ = fake("garbage")
    hip_init = check_of(document, "runtime.hip-init")
    load = document["facts"]["runtime"]["hip"]["load"]
    results.check(hip_init["status"] == "fail" and "gave an unreadable result" in hip_init["message"],
                  f"garbage on the result channel is a finding: {hip_init['message']!r}")
    results.check(load["stdout"]["bytes"] >= 2 << 20 and load["stderr"]["bytes"] >= 2 << 20,
                  f"the flood was counted: {load['stdout']['bytes']} / {load['stderr']['bytes']}")
    results.check(len(proc.stdout) < 1 << 20 and proc.stderr == "",
                  f"and neither kept nor leaked: report {len(proc.stdout)} bytes, stderr {len(proc.stderr)}")
    results.check(all("\x1b" not in line for line in load["stdout"]["first_lines"]),
                  "the first lines kept are printable")
    human = run(binary, "check", "--deep", "-v", env={"ROCM_PATH": os.path.join(fake_root, "garbage")})
    results.check("\x1b[31m" not in human.stdout and "Failed to open drm" not in human.stdout,
                  "the human report shows none of it")
    results.check(validate(document) is None, f"schema: {validate(document)}")

    proc, document, _ = fake("two_gpus")
    hip_init = check_of(document, "runtime.hip-init")
    results.check(hip_init["status"] == "fail" and hip_init["message"].endswith(
        "sees 2 device(s), more than the 0 KFD shows: HIP gfx90a, gfx1100; KFD none"),
                  f"two runtime GPUs against no KFD GPU: {hip_init['message']!r}")
    hip = document["facts"]["runtime"]["hip"]
    results.check([d["gcn_arch_name"] for d in hip["devices"]] == ["gfx90a:sramecc+:xnack-", "gfx1100"],
                  f"the devices' properties were read: {hip['devices']}")
    smi = document["facts"]["runtime"]["smi"]
    results.check(smi["links"] == [{"from": 0, "to": 1, "type": 2, "hops": 1}],
                  f"rocm_smi's XGMI link: {smi['links']}")
    results.check([(d["temperature_edge"], d["ecc_uncorrectable"], d["firmware_mec"]) for d in smi["devices"]] ==
                  [(45000, 0, 0x4a), (45000, 0, 0x4a)], f"rocm_smi's readings: {smi['devices']}")
    smi_check = check_of(document, "runtime.smi")
    results.check(smi_check["status"] == "warn" and smi_check["message"].startswith("amd-smi loaded from ") and
                  "it counts 2 device(s), KFD shows 0 GPU node(s)" in smi_check["message"],
                  f"runtime.smi judges amd-smi's library where it loads: {smi_check['message']!r}")
    amdsmi = document["facts"]["runtime"]["amdsmi"]
    results.check([(d["market_name"], d["ecc_uncorrectable"], d["temperature_edge"]) for d in amdsmi["devices"]] ==
                  [("AMD Instinct MI210", 0, 34), ("AMD Instinct MI210", 2, 41)],
                  f"amd-smi's readings (fake libamd_smi from amdsmi.h): {amdsmi['devices']}")
    results.check([(d["firmware_mec"], d["firmware_smc"]) for d in amdsmi["devices"]] == [(0x4a, 0x44e00)] * 2,
                  f"amd-smi's MEC1 and PM firmware, by libamd_smi.so.26's numbering: {amdsmi['devices']}")
    results.check(amdsmi["driver_version"] == "6.10.5", f"amd-smi's driver version: {amdsmi['driver_version']!r}")
    results.check("device 1 (0000:43:00.0) AMD Instinct MI210: ECC 12 correctable, 2 uncorrectable; edge 41 °C; "
                  "firmware MEC 0x4a SMC 0x44e00" in smi_check["evidence"],
                  f"the readings are evidence: {smi_check['evidence']}")
    _, unknown, _ = fake("unknown_soname")
    unknown_smi = unknown["facts"]["runtime"]["amdsmi"]
    results.check(unknown_smi["load"]["loaded"].endswith("libamd_smi.so.99") and
                  [(d["market_name"], d["firmware_mec"], d["firmware_smc"]) for d in unknown_smi["devices"]] ==
                  [("AMD Instinct MI210", None, None)] * 2 and
                  "amdsmi_get_fw_info" not in [c["function"] for c in unknown_smi["load"]["calls"]],
                  f"a soname whose firmware numbering is unknown: firmware not read, the rest is: {unknown_smi}")
    proc, refused, _ = fake("two_gpus", extra={"ROCDOC_FAKE_AMDSMI_STATUS": "18"})
    smi_check = check_of(refused, "runtime.smi")
    results.check(smi_check["status"] == "pass" and "amdsmi_init failed with AMDSMI_STATUS_INIT_ERROR (18), as "
                  "expected: the kernel shows no AMD GPU" in smi_check["message"],
                  f"amdsmi_init's error is named: {smi_check['message']!r}")

    # runtime.compute: the fake's two GPUs fill, read back and copy host memory; each
    # ROCDOC_FAKE_HIP_COMPUTE mode makes GPU 1 fail one way (tests/deep/fake_hip.cpp).
    compute = check_of(document, "runtime.compute")
    results.check(compute["status"] == "pass" and compute["message"] ==
                  "2 GPUs did real work: memory filled by the runtime's own kernel and read back intact",
                  f"runtime.compute passes on the fake's two GPUs: {compute['status']} {compute['message']!r}")
    tests = [d["compute"] for d in hip["devices"]]
    results.check(all(t and t["complete"] and t["pinned"] and t["wrong_words"] == 0 and t["bytes"] == 256 << 20
                      and t["checked_bytes"] and t["host_to_device"] and t["device_to_host"] for t in tests),
                  f"each GPU's compute test is in the facts: {tests}")
    results.check(all(c["function"] != "hipMemsetD32" for c in hip["load"]["calls"]),
                  "the compute calls are the devices', not the load's")
    # The hung fill is on GPU 1; GPU 0 first does its real work (256 MiB filled, copied both ways,
    # freed), which under the sanitizers (ASan's free of 256 MiB) can pass 2 s on a busy 2-core
    # box: the deadline is 4 s there, so the hang, not GPU 0's work, meets it.
    hang_timeout = 4 if os.environ.get("ROCDOC_SANITIZED") else 2
    for mode, status, needle, fix in (
            ("alloc", "fail", "GPU 1 (Fake Radeon RX 7900 XTX, gfx1100): hipMalloc returned hipErrorOutOfMemory (2)",
             "amd-smi process"),
            ("kernel", "fail", "hipDeviceSynchronize returned hipErrorLaunchFailure (719)",
             "sudo dmesg | grep -iE 'amdgpu|kfd'"),
            # How many words were compared depends on the read-back's time budget (a slow or
            # sanitized machine compares fewer): the first chunk, where the wrong word is, always.
            ("wrong", "fail", "256 MiB filled on the GPU came back wrong: 1 of ", "rocdoc snapshot --deep --redact"),
            ("hang", "fail", f"hipMemsetD32 did not return: the GPU hung (timed out after {hang_timeout} s", None),
            ("crash", "fail", "the runtime crashed in hipMemsetD32 (killed by SIGSEGV)", None),
            ("slow", "pass", "2 GPUs did real work", None),
            ("unpinned", "pass", "2 GPUs did real work", None)):
        extra = {"ROCDOC_FAKE_HIP_COMPUTE": mode}
        if mode == "crash":
            extra.update(segv_env)
        proc, document, elapsed = fake("two_gpus", "--timeout", str(hang_timeout) if mode == "hang" else "8",
                                       extra=extra)
        compute = check_of(document, "runtime.compute")
        hip_init = check_of(document, "runtime.hip-init")
        results.check(compute["status"] == status and needle in compute["message"],
                      f"compute {mode}: {status}, {needle!r}: {compute['status']} {compute['message']!r}")
        if fix:
            results.check(any(f["command"] == fix for f in compute["fix"]), f"compute {mode}: fix {fix!r}: {compute['fix']}")
        results.check("did not answer" not in hip_init["message"] and "crashed" not in hip_init["message"],
                      f"compute {mode}: runtime.hip-init does not repeat it: {hip_init['message']!r}")
        results.check(proc.stderr == "" and validate(document) is None,
                      f"compute {mode}: nothing on stderr, schema holds: {proc.stderr!r} {validate(document)}")
        first = document["facts"]["runtime"]["hip"]["devices"][0]["compute"]
        results.check(first["complete"] and first["wrong_words"] == 0, f"compute {mode}: GPU 0 still worked: {first}")
        if mode == "slow":
            # About 0.5 GB/s: each direction stops at its time budget (0.3 s a GPU, two thirds
            # to read back), after at least two chunks. The fake's fill touches 256 MiB of host
            # memory per GPU, which a real GPU's does not: the bound leaves room for that.
            copy = sum(first[d]["nanoseconds"] for d in ("host_to_device", "device_to_host")) / 1e9
            results.check(copy < 0.45, f"slow copies stay within GPU 0's budget: {copy:.2f} s")
            # Under the sanitizers on a busy 2-core box the fake's fill alone can take seconds
            # (7 s seen with three suites side by side): there, within the --timeout given.
            ends_by = 8 if os.environ.get("ROCDOC_SANITIZED") else 5
            results.check(elapsed < ends_by, f"and rocdoc ends in time: {elapsed:.2f} s for two GPUs")
            rate = first["device_to_host"]["bytes_per_second"]
            results.check(rate is not None and rate < 1e9 and first["checked_bytes"] < 256 << 20,
                          f"slow: the rate is measured and the read-back stopped early: {rate} {first['checked_bytes']}")
        if mode == "wrong":
            results.check("words read back differ, the first at byte 17284 (0x5eec0001 where 0x5eed0001 was "
                          "written)" in compute["message"], f"wrong: the first wrong word: {compute['message']!r}")
        if mode == "unpinned":
            results.check(first["pinned"] is False and "(ordinary memory: not judged)" in compute["evidence"][0],
                          f"unpinned: ordinary memory is said and not judged: {compute['evidence'][0]!r}")
        if mode == "hang":
            results.check(elapsed < hang_timeout + 4, f"the hung fill ends at the deadline: {elapsed:.1f} s")

    for status, name, cause in ((35, "hipErrorInsufficientDriver", "older than this HIP runtime needs"),
                                (209, "hipErrorNoBinaryForGpu", "no binary for this GPU's gfx target")):
        proc, document, _ = fake("errors", extra={"ROCDOC_FAKE_HIP_STATUS": str(status)})
        hip_init = check_of(document, "runtime.hip-init")
        results.check(hip_init["status"] == "fail" and
                      f"HIP 6.2.41134 loaded from {os.path.join(fake_root, 'errors', 'lib', 'libamdhip64.so.6')}: "
                      f"hipGetDeviceCount failed with {name}" in hip_init["message"] and cause in hip_init["message"],
                      f"{name} is mapped to its cause: {hip_init['message']!r}")
        results.check(hip_init["fix"], f"{name}: a fix is named")

    # A library that starts processes in a session (setsid) and a group (setpgid) of their own,
    # out of reach of the child's group kill (09-deep-setsid-orphan.sh): rocdoc adopts them as
    # a subreaper and ends them, when the child answers and at the deadline alike.
    def kill_escaped():
        for pid in alive(b"rocdoc-fake-escaped-"):
            try:
                os.kill(int(pid), 9)
            except OSError:
                pass

    for label, args, extra in (("answers", (), None),
                               ("hangs", ("--timeout", "1"), {"ROCDOC_FAKE_HIP_HANG": "1"})):
        proc, document, elapsed = fake("escape", *args, extra=extra)
        time.sleep(0.2)
        left = alive(b"rocdoc-fake-escaped-")
        kill_escaped()
        results.check(left == [], f"the library {label}: nothing it started in a session or group "
                                  f"of its own outlives rocdoc: {left}")
        ending = document["facts"]["runtime"]["hip"]["load"]["ending"] if document else None
        results.check(ending == ("exited" if label == "answers" else "timed_out") and proc.stderr == "",
                      f"the library {label}: the child's ending is kept ({ending}), stderr {proc.stderr!r}")
        results.check(elapsed < 1 + 4, f"the library {label}: rocdoc ends in time: {elapsed:.1f} s")

# ---- 3. --timeout ----------------------------------------------------------------------------
for args, needle in ((["--deep", "--timeout", "abc"], "check --timeout: 'abc' is not a number of seconds"),
                     (["--deep", "--timeout", "0"], "check --timeout: '0' is not a number of seconds"),
                     (["--deep", "--timeout", "601"], "is not a number of seconds from 0.1 to 600"),
                     (["--timeout", "5"], "check --timeout: it bounds the runtimes that --deep loads and the torch runs of --smoke; add --deep or --smoke")):
    proc = run(binary, "check", *args)
    results.check(proc.returncode == 2 and needle in proc.stderr, f"check {args}: exit 2, {needle!r}: {proc.stderr!r}")
proc = run(binary, "snapshot", "--timeout", "5")
results.check(proc.returncode == 2 and "snapshot --timeout: it bounds" in proc.stderr, f"snapshot --timeout alone: {proc.stderr!r}")

results.finish()
