#!/usr/bin/python3
"""rocdoc triage on real logs from public threads (tests/triage/, cited in SOURCES.md), on
standard input, and on input that is missing, empty, huge or binary.

Usage: test_triage.py ROCDOC_BINARY
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from common import SOURCE_DIR, Results, run, validate  # noqa: E402

LOGS = os.path.join(SOURCE_DIR, "tests", "triage")

# Each real log: {check id: (status, [quoted line numbers])}, and facts that must be found.
EXPECT = {
    "kfd-enomem-pitcairn.log": {
        "findings": {"driver.kfd-unusable": ("fail", [3, 9]), "rocm.agents": ("fail", [12])},
        "signatures": {"kfd-enomem", "hsa-out-of-resources", "not-supported-in-kfd"},
        "exit": 1,
    },
    "kfd-enomem-mi100.log": {
        "findings": {"driver.kfd-unusable": ("fail", [3, 14])},
        "exit": 1,
    },
    "kfd-eperm-popos.log": {"findings": {"driver.kfd-unusable": ("fail", [1])}, "exit": 1},
    "kfd-einval-mi300x-container.log": {"findings": {"driver.kfd-unusable": ("fail", [3])}, "exit": 1},
    "pcie-atomics-rx580.log": {
        # The PCI id names the GPU (gfx803): arch.unsupported follows from the facts, as
        # `rocdoc check --gpu gfx803` says.
        "findings": {"pcie.atomics": ("fail", [1]), "arch.unsupported": ("fail", [1])},
        "facts": {"gfx_targets": [("gfx803", 1)]},
        "exit": 1,
    },
    "docker-no-kfd.log": {"findings": {"driver.kfd-missing": ("fail", [1])}, "exit": 1},
    "torchvision-nms-rocm-pytorch-image.log": {
        # The untagged (PyPI) torchvision beside AMD's +rocm torch is also found from the facts
        # (issue 22 §3), so the fact lines are quoted too.
        "findings": {"torch.companions": ("fail", [3, 13, 15, 16])},
        "facts": {"torch": ("2.9.1+rocm7.2.1.lw.gitff65f5bc", 15), "torchvision": ("0.24.1", 16),
                  "torch_build": "rocm",
                  "site_packages": ("/opt/venv/lib/python3.12/site-packages", 3)},
        "exit": 1,
    },
    "tensile-gfx1201-migraphx.log": {
        "findings": {"arch.unsupported": ("fail", [1])},
        # the TensileLibrary_lazy_gfx*.dat list names library files, not the GPU
        "facts": {"gfx_targets": [("gfx1201", 1)]},
        "exit": 1,
    },
    "tensile-no-paths-gfx906.log": {
        "findings": {"arch.unsupported": ("fail", [3, 5])},
        "signatures": {"tensile-library-missing", "tensile-no-paths-matched"},
        "facts": {"gfx_targets": [("gfx906", 3)]},
        "exit": 1,
    },
    "hip-no-binary-a1111.log": {"findings": {"arch.unsupported": ("fail", [9])}, "exit": 1},
    "torch-not-compiled-cuda-comfyui.log": {"findings": {"torch.cpu-wheel": ("fail", [3])}, "exit": 1},
    "no-nvidia-driver-sd-webui-amdgpu.log": {"findings": {"torch.cuda-wheel": ("fail", [3])}, "exit": 1},
    "collect-env-gfx1010-nightly.log": {
        # N4: a pytorch.org nightly is judged by the targets of every pytorch.org release, none
        # of which has gfx1010; the GPU is named in the log's words (RX 5700 XT).
        "findings": {"arch.unsupported": ("fail", [1, 17])},
        "messages": {"arch.unsupported": "no code for gfx1010 (Radeon RX 5700 XT) in torch "
                                         "2.7.0.dev20250123+rocm6.3"},
        "facts": {"gfx_targets": [("gfx1010", 17)], "torch": ("2.7.0.dev20250123+rocm6.3", 1),
                  "torch_build": "rocm", "rocm": ("6.3.42131-fa1d09cbd", 4)},
        "tools": [("collect_env", 1)],
        "exit": 1,
    },
    "rocm-terminal-container-kfd-denied.log": {
        # Issue 22 (N7): in a container the fix is the host's gids at `docker run`, never usermod.
        "findings": {"perm.kfd": ("fail", [1, 5])},
        "facts": {"container": ("docker", 1)},
        "fixes": {"perm.kfd": ['--group-add "$(stat -c %g /dev/kfd)" --group-add '
                               '"$(stat -c %g /dev/dri/renderD128)"']},
        "exit": 1,
    },
    "ollama-override-610m.log": {
        "findings": {},
        "overrides": [("HSA_OVERRIDE_GFX_VERSION", "10.3.0", 1)],
        "exit": 0,
    },
}


TRIAGE_SCHEMA = os.path.join(SOURCE_DIR, "docs", "triage.schema.json")


def triage(binary, *args, stdin=None, timeout=120):
    merged = dict(os.environ)
    return subprocess.run([binary, "triage", *args], input=stdin, capture_output=True,
                          env=merged, timeout=timeout)


def check_real_logs(binary, results):
    on_disk = sorted(name for name in os.listdir(LOGS) if name.endswith(".log"))
    results.check(sorted(EXPECT) == on_disk, f"every real log has expectations: {on_disk}")
    signatures = set()
    with open(os.path.join(LOGS, "SOURCES.md"), encoding="utf-8") as f:
        sources = f.read()
    for name, expect in sorted(EXPECT.items()):
        results.check(f"`{name}`" in sources, f"{name} is cited in SOURCES.md")
        path = os.path.join(LOGS, name)
        proc = triage(binary, "--json", path)
        results.check(proc.returncode == expect["exit"], f"{name}: exit {proc.returncode}, stderr {proc.stderr!r}")
        doc = json.loads(proc.stdout)
        results.check(doc["schema"] == "rocdoc-triage/1", f"{name}: schema")
        problem = validate(doc, TRIAGE_SCHEMA)
        results.check(problem is None, f"{name}: matches docs/triage.schema.json: {problem}")
        got = {f["id"]: (f["status"], [line["number"] for line in f["lines"]]) for f in doc["findings"]}
        results.check(got == expect["findings"], f"{name}: findings {got} != {expect['findings']}")
        for finding in doc["findings"]:
            signatures.update(finding["signatures"])
            results.check(finding["fix"] or finding["id"] == "arch.unsupported",
                          f"{name}: {finding['id']} names a fix")
        for check_id, words in expect.get("messages", {}).items():
            finding = next((f for f in doc["findings"] if f["id"] == check_id), {"message": ""})
            results.check(words in finding["message"], f"{name}: {check_id} says {words!r}")
        for check_id, commands in expect.get("fixes", {}).items():
            finding = next(f for f in doc["findings"] if f["id"] == check_id)
            got_commands = [f["command"] for f in finding["fix"]]
            results.check(got_commands == commands, f"{name}: {check_id} fixes {got_commands}")
        if "signatures" in expect:
            found = {s for f in doc["findings"] for s in f["signatures"]}
            results.check(found == expect["signatures"], f"{name}: signatures {found}")
        facts = doc["facts"]
        for key, value in expect.get("facts", {}).items():
            if key == "gfx_targets":
                got_value = [(v["value"], v["line"]) for v in facts[key]]
            elif key == "torch_build":
                got_value = facts[key]
            else:
                got_value = (facts[key]["value"], facts[key]["line"]) if facts[key] else None
            results.check(got_value == value, f"{name}: fact {key} {got_value!r} != {value!r}")
        if "tools" in expect:
            got_value = [(v["value"], v["line"]) for v in facts["tools"]]
            results.check(got_value == expect["tools"], f"{name}: tool outputs {got_value}")
        if expect["exit"] == 0 and not expect["findings"]:
            # Issue 27 §3: no all-clear; what was not in the text is said.
            results.check(doc["not_in_log"] and doc["signatures"] >= 20, f"{name}: not_in_log {doc['not_in_log']}")
            plain = triage(binary, "--no-color", path).stdout.decode()
            results.check("Nothing known is wrong in this text" in plain and "no all-clear" in plain
                          and "show no problem" not in plain, f"{name}: honest wording {plain!r}")
        if "overrides" in expect:
            got_value = [(v["variable"], v["value"], v["line"]) for v in facts["overrides"]]
            results.check(got_value == expect["overrides"], f"{name}: overrides {got_value}")
        human = triage(binary, path)
        results.check(human.returncode == expect["exit"], f"{name}: human exit {human.returncode}")
        text = human.stdout.decode()
        for check_id in expect["findings"]:
            results.check(check_id in text, f"{name}: human output names {check_id}")
        markdown = triage(binary, "--format", "markdown", path)
        results.check(markdown.returncode == expect["exit"] and markdown.stdout.startswith(b"## rocdoc triage"),
                      f"{name}: markdown")
    results.check(len(signatures) >= 8, f"at least 8 distinct signatures on real logs: {sorted(signatures)}")


def check_same_fix_as_check(binary, results):
    """The fix triage gives for the GPU and torch of a log is the one check gives that machine."""
    proc = run(binary, "check", "--json", "--root", os.path.join(SOURCE_DIR, "tests", "fixtures", "rx6700xt-no-override"))
    report = json.loads(proc.stdout)
    check_fix = next(c["fix"] for c in report["checks"] if c["id"] == "arch.unsupported")
    log = (
        "  Name:                    gfx1031\n"
        '  File "/home/alice/venv/lib/python3.10/site-packages/torch/cuda/__init__.py", line 9\n'
        "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\n"
        "[pip3] torch==2.6.0+rocm6.2.4\n"
    )
    triaged = triage(binary, "--json", "-", stdin=log.encode())
    results.check(triaged.returncode == 1, f"stdin log: exit {triaged.returncode}")
    doc = json.loads(triaged.stdout)
    results.check(doc["input"]["name"] == "standard input", "stdin is named standard input")
    finding = next((f for f in doc["findings"] if f["id"] == "arch.unsupported"), None)
    results.check(finding is not None and finding["fix_from"] == "facts", "triage computed the fix from the facts")
    if finding:
        ours = [(f["description"], f["command"]) for f in finding["fix"]]
        theirs = [(f["description"], f["command"]) for f in check_fix]
        results.check(ours == theirs, f"triage's fix {ours} == check's {theirs}")


def check_same_fixes_as_fixture(binary, results):
    """The RX 580 whose kernel log says "PCI rejects atomics": the fixture of that machine and
    the real log give the same fixes for pcie.atomics and arch.unsupported."""
    fixture = os.path.join(SOURCE_DIR, "tests", "fixtures", "rx580-pci-rejects-atomics")
    if not os.path.isdir(fixture):
        return
    report = json.loads(run(binary, "check", "--json", "--root", fixture).stdout)
    doc = json.loads(triage(binary, "--json", os.path.join(LOGS, "pcie-atomics-rx580.log")).stdout)
    for check_id in ("pcie.atomics", "arch.unsupported"):
        theirs = next(c["fix"] for c in report["checks"] if c["id"] == check_id)
        ours = next(f["fix"] for f in doc["findings"] if f["id"] == check_id)
        results.check([(f["description"], f["command"], f["kind"]) for f in ours]
                      == [(f["description"], f["command"], f["kind"]) for f in theirs],
                      f"{check_id}: triage's fix {ours} == check's {theirs}")
    eperm = json.loads(triage(binary, "--json", os.path.join(LOGS, "kfd-eperm-popos.log")).stdout)
    fix = eperm["findings"][0]["fix"][0]
    results.check(fix["command"] == "--device=/dev/kfd --device=/dev/dri" and fix["kind"] == "container_flag",
                  f"a docker flag is a container_flag fix ({fix})")


def check_bad_input(binary, results):
    with tempfile.TemporaryDirectory() as tmp:
        missing = os.path.join(tmp, "no-such.log")
        proc = triage(binary, missing)
        results.check(proc.returncode == 2 and missing.encode() in proc.stderr and not proc.stdout,
                      f"missing file: exit 2 naming it ({proc.returncode}, {proc.stderr!r})")
        proc = triage(binary, tmp)
        results.check(proc.returncode == 2 and b"directory" in proc.stderr, f"a directory: exit 2 ({proc.stderr!r})")

        empty = os.path.join(tmp, "empty.log")
        open(empty, "wb").close()
        proc = triage(binary, "--json", empty)
        results.check(proc.returncode == 0, f"empty file: exit 0 ({proc.returncode})")
        doc = json.loads(proc.stdout)
        results.check(doc["input"]["lines"] == 0 and doc["findings"] == [], "empty file: nothing")

        huge = os.path.join(tmp, "huge.log")
        with open(huge, "wb") as f:
            f.write(b"hipErrorNoBinaryForGpu\n" * (20 * 1024 * 1024 // 23 + 1))
        proc = triage(binary, huge)
        results.check(proc.returncode == 2 and b"16777216 bytes (16 MiB)" in proc.stderr and not proc.stdout,
                      f"20 MB file: exit 2 naming the limit ({proc.stderr!r})")
        with open(huge, "rb") as f:
            proc = subprocess.run([binary, "triage", "-"], stdin=f, capture_output=True, timeout=120)
        results.check(proc.returncode == 2 and b"16 MiB" in proc.stderr,
                      f"20 MB on standard input: exit 2 ({proc.stderr!r})")

        long_line = os.path.join(tmp, "long.log")
        with open(long_line, "wb") as f:
            f.write(b"x" * (10 * 1024 * 1024) + b"hipErrorNoBinaryForGpu")
        proc = triage(binary, "--json", long_line)
        results.check(proc.returncode == 0, f"10 MB line: exit 0 ({proc.returncode}, {proc.stderr!r})")
        doc = json.loads(proc.stdout)
        results.check(doc["input"]["lines"] == 1 and doc["input"]["cut_lines"] == 1,
                      f"10 MB line: one line, cut ({doc['input']})")

        garbage = os.path.join(tmp, "garbage.log")
        with open(garbage, "wb") as f:
            f.write(bytes(range(256)) * 4096 + b"\x1b[2J\xffhipErrorNoBinaryForGpu\x00\n")
        for args in (["--json"], [], ["--format", "markdown"]):
            proc = triage(binary, *args, garbage)
            results.check(proc.returncode in (0, 1), f"binary garbage {args}: exit {proc.returncode}")
            results.check(b"\x1b" not in proc.stdout and b"\xff" not in proc.stdout,
                          f"binary garbage {args}: output printable")
        doc = json.loads(triage(binary, "--json", garbage).stdout)
        results.check(validate(doc, TRIAGE_SCHEMA) is None, "binary garbage: the JSON matches its schema")
        results.check(any(f["id"] == "arch.unsupported" for f in doc["findings"]),
                      "binary garbage: the signature after it is still found")

    with tempfile.TemporaryDirectory() as rules:
        with open(os.path.join(rules, "triage.yaml"), "w") as f:
            f.write("signatures:\n  - id: made-up\n    match: [\"some error\"]\n"
                    "    check: arch.made-up\n    severity: error\n    message: m\n    source: s\n")
        proc = run(binary, "rules", "lint", rules)
        results.check(proc.returncode == 2 and "arch.made-up" in proc.stderr,
                      f"rules lint refuses a signature naming an unknown check ({proc.stderr!r})")
        proc = triage(binary, "--rules", rules, "-", stdin=b"some error\n")
        results.check(proc.returncode == 2 and b"not in the check table" in proc.stderr,
                      f"triage --rules refuses it too ({proc.stderr!r})")
        with open(os.path.join(rules, "triage.yaml"), "w") as f:
            f.write("signatures:\n  - id: made-up\n    match: [\"some error\"]\n"
                    "    check: perm.kfd\n    severity: warning\n    message: m\n    source: s\n")
        proc = triage(binary, "--json", "--rules", rules, "-", stdin=b"x\nSOME ERROR here\n")
        doc = json.loads(proc.stdout)
        results.check(proc.returncode == 0 and [(f["id"], f["status"], f["lines"][0]["number"]) for f in doc["findings"]]
                      == [("perm.kfd", "warn", 2)], f"a signature from --rules is used ({proc.stdout!r})")

    proc = triage(binary, "--format", "yaml", "-", stdin=b"")
    results.check(proc.returncode == 2 and b"--format" in proc.stderr, "bad --format: exit 2")
    proc = triage(binary, "--fail-on", "warning", "-",
                  stdin=b"amdgpu: ring comp_1.1.0 timeout, signaled seq=7, emitted seq=9\n")
    results.check(proc.returncode == 1, f"--fail-on warning: a warning is exit 1 ({proc.returncode})")
    proc = triage(binary, "-", stdin=b"amdgpu: ring comp_1.1.0 timeout, signaled seq=7, emitted seq=9\n")
    results.check(proc.returncode == 0, f"a warning alone is exit 0 ({proc.returncode})")
    proc = triage(binary, "--help")
    results.check(proc.returncode == 0 and b"Exit codes:" in proc.stdout, "triage --help has exit codes")
    proc = run(binary, "triag")
    results.check(proc.returncode == 2 and "did you mean triage?" in proc.stderr, f"did you mean triage ({proc.stderr!r})")


def check_dialect(binary, results):
    """Triage speaks check's dialect (issue 22, N26): glyph, message, [id], lower-case fix:,
    the command under it; [FAIL] only where the locale is not UTF-8; colour only on request."""
    log = os.path.join(LOGS, "kfd-einval-mi300x-container.log")
    env = {k: v for k, v in os.environ.items() if k not in ("LC_ALL", "LC_CTYPE", "LANG", "NO_COLOR")}
    utf8 = subprocess.run([binary, "triage", log], capture_output=True, text=True,
                          env={**env, "LC_ALL": "C.UTF-8"}).stdout
    results.check("\n✗ Opening /dev/kfd fails with EINVAL" in utf8 and "  [driver.kfd-unusable]\n" in utf8,
                  f"triage: glyph, message and [id] as check prints them: {utf8!r}")
    results.check("\n    fix: Look for a wedged GPU" in utf8 and
                  "\n      sudo dmesg | grep -iE 'amdgpu|kfd'\n" in utf8,
                  f"triage: 'fix:' with the command under it: {utf8!r}")
    results.check("[FAIL]" not in utf8 and "Fix:" not in utf8 and "\x1b" not in utf8,
                  "triage: no [FAIL], no 'Fix:', no colour into a pipe")
    ascii = subprocess.run([binary, "triage", log], capture_output=True, text=True,
                           env={**env, "LC_ALL": "C"}).stdout
    results.check("\n[FAIL] Opening /dev/kfd" in ascii and all(ord(c) < 128 for c in ascii),
                  f"triage: ASCII glyphs where the locale is not UTF-8: {ascii!r}")
    forced = subprocess.run([binary, "triage", log], capture_output=True, text=True,
                            env={**env, "LC_ALL": "C.UTF-8", "CLICOLOR_FORCE": "1"}).stdout
    results.check("\x1b[31m✗\x1b[0m" in forced, f"triage: colour with CLICOLOR_FORCE: {forced[:200]!r}")
    plain = subprocess.run([binary, "triage", "--no-color", log], capture_output=True, text=True,
                           env={**env, "LC_ALL": "C.UTF-8", "CLICOLOR_FORCE": "1"}).stdout
    results.check("\x1b" not in plain, "triage --no-color: no colour even with CLICOLOR_FORCE")


def check_blocking_input(binary, results):
    """11-blocking-inputs.sh: a FIFO or a device named as the log is refused at once (the unfixed
    open or read waited for a writer, or for the next kernel message, forever); a stream is read
    from standard input, a pipe included."""
    def bounded(*args, stdin=None):
        try:
            return triage(binary, *args, stdin=stdin, timeout=20)
        except subprocess.TimeoutExpired:
            return None

    with tempfile.TemporaryDirectory() as tmp:
        fifo = os.path.join(tmp, "log.fifo")
        os.mkfifo(fifo)
        proc = bounded(fifo)
        results.check(proc is not None and proc.returncode == 2 and not proc.stdout and
                      proc.stderr.decode() == f"rocdoc: triage: {fifo}: a FIFO, not a log file; pipe a "
                      "stream to standard input instead (dmesg | rocdoc triage -)\n",
                      f"a FIFO: exit 2 at once ({proc and (proc.returncode, proc.stderr)})")
    devices = ["/dev/zero"] + (["/dev/kmsg"] if os.access("/dev/kmsg", os.R_OK) else [])
    for device in devices:
        proc = bounded(device)
        results.check(proc is not None and proc.returncode == 2 and
                      f"{device}: a character device, not a log file".encode() in proc.stderr,
                      f"{device}: exit 2 at once ({proc and (proc.returncode, proc.stderr)})")
    log = b"amdgpu: ring comp_1.1.0 timeout, signaled seq=7, emitted seq=9\n"
    for args in (("--json",), ("--json", "-")):
        proc = bounded(*args, stdin=log)  # a pipe, as cat log | rocdoc triage
        lines = json.loads(proc.stdout)["input"]["lines"] if proc and proc.returncode == 0 else None
        results.check(lines == 1, f"triage {args} reads a pipe on standard input ({lines} line)")


def main():
    binary = sys.argv[1]
    results = Results()
    check_real_logs(binary, results)
    check_same_fix_as_check(binary, results)
    check_same_fixes_as_fixture(binary, results)
    check_bad_input(binary, results)
    check_blocking_input(binary, results)
    check_dialect(binary, results)
    results.finish()


if __name__ == "__main__":
    main()
