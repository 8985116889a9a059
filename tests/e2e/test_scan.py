"""rocdoc scan and check --scan, end to end, on real code and hostile trees.

- tests/scan/real/: excerpts of files before real CUDA-to-ROCm ports (and of portable code,
  the ports' results among them; SOURCES.md cites each). Every case's findings are exactly its
  EXPECT file: a finding on each line the port had to change, none on portable code.
- the JSON validates against docs/scan.schema.json, the SARIF against the OASIS SARIF 2.1.0
  schema (tests/data/sarif-schema-2.1.0.json), the human lines have the path:line:col form;
- --fail-on and exit codes, inline suppressions, a baseline that survives moved lines and
  fails on a new finding only;
- hostile trees: a link out of the tree, a FIFO, a huge file, a binary file, deep nesting,
  a name with a newline, .gitignore, vendored directories;
- check --scan: the code.* checks join the report in JSON, Markdown and JUnit.
"""
import json
import os
import re
import shutil
import sys
import tempfile
import xml.etree.ElementTree as ET

from common import FIXTURES, SOURCE_DIR, Results, run, validate

binary = sys.argv[1]
results = Results()
REAL = os.path.join(SOURCE_DIR, "tests", "scan", "real")
SCAN_SCHEMA = os.path.join(SOURCE_DIR, "docs", "scan.schema.json")
SARIF_SCHEMA = os.path.join(SOURCE_DIR, "tests", "data", "sarif-schema-2.1.0.json")
HUMAN_LINE = re.compile(r"^(?P<path>[^\s:][^:]*):(?P<line>\d+):(?P<col>\d+): "
                        r"(?P<id>code\.[a-z-]+) (?P<sev>error|warning|info): .+$")


def scan_json(directory, *args):
    proc = run(binary, "scan", directory, "--format", "json", *args)
    try:
        return proc.returncode, json.loads(proc.stdout), proc.stderr
    except json.JSONDecodeError:
        return proc.returncode, None, proc.stderr


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


# 1. Real ports: each case's findings are its EXPECT, exactly.
cases = sorted(d for d in os.listdir(REAL) if os.path.isdir(os.path.join(REAL, d)))
results.check(len(cases) >= 10, f"the real-port cases are there ({len(cases)})")
positives = 0
for case in cases:
    with open(os.path.join(REAL, case, "EXPECT")) as f:
        expected = [line.strip() for line in f if line.strip()]
    expected = set() if expected == ["none"] else set(expected)
    positives += 1 if expected else 0
    code, document, err = scan_json(os.path.join(REAL, case), "--fail-on", "never")
    if document is None:
        results.check(False, f"{case}: no JSON ({err.strip()})")
        continue
    got = {f"{f['path']}:{f['line']} {f['id']}" for f in document["findings"]}
    results.check(got == expected,
                  f"{case}: missing {sorted(expected - got)}, unexpected {sorted(got - expected)}")
    results.check(code == 0, f"{case}: --fail-on never exits 0 ({code})")
    problem = validate(document, SCAN_SCHEMA)
    results.check(problem is None, f"{case}: the JSON validates against docs/scan.schema.json: {problem}")
results.check(positives >= 6, f"at least six real ports with findings ({positives})")

# 2. Output forms on one real port.
bnb = os.path.join(REAL, "bnb-gemv4bit-warpsize")
proc = run(binary, "scan", bnb)
lines = proc.stdout.splitlines()
located = [HUMAN_LINE.match(line) for line in lines if not line.startswith(" ")]
located = [m for m in located if m]
results.check(proc.returncode == 1, f"error findings: exit 1 ({proc.returncode})")
results.check(len(located) == 8 and located[0].group("path") == "csrc/kernels.hip"
              and located[0].group("id") == "code.warp-size" and located[0].group("sev") == "error",
              f"human: path:line:col: id severity: what ({lines[:1]})")
results.check(any(line.startswith("    fix: ") for line in lines), "human: each finding has its fix")
results.check(lines[-1].startswith("8 findings (6 errors, 2 warnings, 0 notes) in 1 file; 1 file scanned"),
              f"human: the summary line ({lines[-1]})")
proc = run(binary, "scan", bnb, "--format", "sarif")
try:
    sarif = json.loads(proc.stdout)
    problem = validate(sarif, SARIF_SCHEMA)
except json.JSONDecodeError as error:
    sarif, problem = None, str(error)
results.check(problem is None, f"SARIF validates against the OASIS 2.1.0 schema: {problem}")
if sarif:
    run0 = sarif["runs"][0]
    rule_ids = [r["id"] for r in run0["tool"]["driver"]["rules"]]
    results.check(rule_ids == ["code.warp-size", "code.inline-ptx", "code.cuda-only-api",
                               "code.nccl-env", "code.cuda-build", "code.cuda-container"],
                  f"SARIF: one rule per code check ({rule_ids})")
    first = run0["results"][0]
    region = first["locations"][0]["physicalLocation"]["region"]
    results.check(first["ruleId"] == "code.warp-size" and first["level"] == "error"
                  and rule_ids[first["ruleIndex"]] == first["ruleId"]
                  and region["startLine"] == 21 and region["startColumn"] == 11,
                  f"SARIF: the first result is placed ({first['ruleId']}, {region})")
    results.check(run0["originalUriBaseIds"]["SRCROOT"]["uri"].startswith("file:///")
                  and run0["originalUriBaseIds"]["SRCROOT"]["uri"].endswith("/bnb-gemv4bit-warpsize/"),
                  "SARIF: SRCROOT is the scanned directory's file URI")
    results.check(len(run0["results"]) == 8 and run0["invocations"][0]["exitCode"] == 1,
                  "SARIF: every finding, and the exit code")

# 3. Exit codes and arguments.
results.check(run(binary, "scan", bnb, "--fail-on", "never").returncode == 0, "--fail-on never: exit 0")
ssh_like = os.path.join(REAL, "deepspeed-fused-adam-nvcc-flags")  # warnings only
results.check(run(binary, "scan", ssh_like).returncode == 0, "warnings only, --fail-on error: exit 0")
results.check(run(binary, "scan", ssh_like, "--fail-on", "warning").returncode == 1,
              "warnings, --fail-on warning: exit 1")
for args, words in ((["scan"], "name the directory to scan"),
                    (["scan", "/nonexistent-rocdoc"], "/nonexistent-rocdoc"),
                    (["scan", os.path.join(bnb, "EXPECT")], "ot a directory"),
                    (["scan", bnb, "--format", "sarf"], "did you mean sarif?"),
                    (["scan", bnb, "--fail-on", "all"], "is not error, warning or never"),
                    (["scan", bnb, "--baseline", "/nonexistent-rocdoc.json"], "/nonexistent-rocdoc.json")):
    proc = run(binary, *args)
    results.check(proc.returncode == 2 and words in proc.stderr and proc.stdout == "",
                  f"{args}: exit 2 with '{words}' ({proc.returncode}, {proc.stderr.strip()})")

with tempfile.TemporaryDirectory(prefix="rocdoc-scan-") as tmp:
    # 4. Suppressions and the baseline.
    tree = os.path.join(tmp, "project")
    kernel = ("__global__ void k(float* x) {\n"
              "  int lane = threadIdx.x % 32;\n"
              "  x[lane] += __shfl_xor_sync(0xffffffff, x[lane], 1);  // rocdoc: ignore[code.warp-size]\n"
              "}\n")
    write(os.path.join(tree, "csrc", "k.cu"), kernel)
    write(os.path.join(tree, "docker", "Dockerfile"), "FROM nvidia/cuda:12.4.1-devel-ubuntu22.04\n")
    code, first, _ = scan_json(tree)
    results.check(code == 1 and [(f["path"], f["line"]) for f in first["findings"]]
                  == [("csrc/k.cu", 2), ("docker/Dockerfile", 1)] and first["suppressed_inline"] == 1,
                  f"inline suppression: line 3 silenced and counted ({first['findings'] if first else None})")
    baseline = os.path.join(tmp, "baseline.json")
    write(baseline, json.dumps(first))
    write(os.path.join(tree, "csrc", "k.cu"), "// a new first line\n\n" + kernel)
    code, again, _ = scan_json(tree, "--baseline", baseline)
    results.check(code == 0 and again["findings"] == [] and again["baselined"] == 2,
                  f"baseline: moved lines are still known, exit 0 ({code}, {again['baselined'] if again else None})")
    write(os.path.join(tree, "run.sh"), "#!/bin/sh\ndocker run --gpus all image\n")
    code, new, _ = scan_json(tree, "--baseline", baseline)
    results.check(code == 0 and [f["path"] for f in new["findings"]] == ["run.sh"],
                  "baseline: only the new finding is reported (a warning: exit 0)")
    proc = run(binary, "scan", tree, "--baseline", baseline, "--fail-on", "warning")
    results.check(proc.returncode == 1 and "1 in the baseline" not in proc.stdout
                  and "2 in the baseline" in proc.stdout, "baseline: a new warning fails --fail-on warning")
    write(baseline, json.dumps({"schema": "rocdoc-report/1"}))
    proc = run(binary, "scan", tree, "--baseline", baseline)
    results.check(proc.returncode == 2 and "not a rocdoc scan report" in proc.stderr,
                  f"a baseline of another schema: exit 2 ({proc.stderr.strip()})")

    # 5. Hostile trees.
    hostile = os.path.join(tmp, "hostile")
    outside = os.path.join(tmp, "outside")
    write(os.path.join(outside, "secret.cu"), "int lane = threadIdx.x % 32;\n")
    os.makedirs(hostile)
    os.symlink(outside, os.path.join(hostile, "linked"))
    os.symlink(os.path.join(outside, "secret.cu"), os.path.join(hostile, "linked.cu"))
    os.mkfifo(os.path.join(hostile, "pipe.py"))
    with open(os.path.join(hostile, "huge.cu"), "wb") as f:
        f.truncate(17 << 20)
    with open(os.path.join(hostile, "blob.h"), "wb") as f:
        f.write(b"\x7fELF\x00\x00int lane = threadIdx.x % 32;\n")
    deep = hostile
    for i in range(80):
        deep = os.path.join(deep, "d")
    write(os.path.join(deep, "k.cu"), "int lane = threadIdx.x % 32;\n")
    write(os.path.join(hostile, "odd\nname.cu"), "int lane = threadIdx.x % 32;\n")
    write(os.path.join(hostile, "third_party", "cutlass", "k.cu"), "int lane = threadIdx.x % 32;\n")
    write(os.path.join(hostile, "build", "gen.cu"), "int lane = threadIdx.x % 32;\n")
    write(os.path.join(hostile, ".gitignore"), "build/\n")
    code, document, err = scan_json(hostile, "--fail-on", "never")
    paths = [f["path"] for f in document["findings"]] if document else []
    skipped = {s["path"]: s["why"] for s in document["skipped"]} if document else {}
    results.check(paths == ["odd\\nname.cu"], f"hostile: only the odd name is found, escaped ({paths}, {err})")
    results.check("linked" in skipped and "linked.cu" in skipped and "not followed" in skipped["linked"],
                  f"hostile: links are listed, not followed ({skipped})")
    results.check(any(p.startswith("huge.cu") for p in skipped) and any(p.startswith("blob.h") for p in skipped),
                  "hostile: the huge and the binary file are listed as not scanned")
    results.check(any("deeper than" in why for why in skipped.values()), "hostile: deep nesting is bounded")
    results.check("third_party/" in skipped, "hostile: vendored directories are skipped and listed")
    results.check(problem is None and validate(document, SCAN_SCHEMA) is None, "hostile: the JSON validates")
    code, vendored, _ = scan_json(hostile, "--fail-on", "never", "--vendored")
    results.check(sorted(f["path"] for f in vendored["findings"]) == ["odd\\nname.cu", "third_party/cutlass/k.cu"],
                  "--vendored scans third_party/; .gitignore still keeps build/ out")
    proc = run(binary, "scan", hostile, "--fail-on", "never", "-v")
    results.check("linked: a symbolic link: not followed" in proc.stdout and proc.returncode == 0,
                  "-v lists what was not scanned")

    # 6. check --scan: the code checks join the report, in every format.
    healthy = os.path.join(FIXTURES, "mi300x-healthy")
    if not os.path.isdir(healthy):
        healthy = os.path.join(FIXTURES, sorted(os.listdir(FIXTURES))[0])
    proc = run(binary, "check", "--root", healthy, "--json", "--scan", bnb)
    report = json.loads(proc.stdout)
    by_id = {c["id"]: c for c in report["checks"]}
    results.check(by_id.get("code.warp-size", {}).get("status") == "fail"
                  and by_id["code.cuda-only-api"]["status"] == "warn"
                  and by_id["code.cuda-build"]["status"] == "pass",
                  f"check --scan: code checks judged ({ {k: v['status'] for k, v in by_id.items() if k.startswith('code.')} })")
    results.check(proc.returncode == 1, "check --scan: an error finding in the code fails check")
    results.check(any("csrc/kernels.hip:21:11" in e for e in by_id["code.warp-size"]["evidence"]),
                  "check --scan: the places are the evidence")
    results.check(len(report["facts"]["code_scan"]["findings"]) == 8, "check --scan: facts.code_scan")
    problem = validate(report)
    results.check(problem is None, f"check --scan: the report validates against report.schema.json: {problem}")
    junit = os.path.join(tmp, "junit.xml")
    proc = run(binary, "check", "--root", healthy, "--format", "markdown", "--scan", bnb, "--junit", junit)
    results.check("code.warp-size" in proc.stdout and "csrc/kernels.hip:21:11" in proc.stdout,
                  "check --scan --format markdown carries the code findings")
    cases_xml = {c.get("name"): c for c in ET.parse(junit).getroot().iter("testcase")}
    results.check("code.warp-size" in cases_xml and cases_xml["code.warp-size"].find("failure") is not None,
                  "check --scan --junit: code.warp-size is a failed testcase")
    proc = run(binary, "check", "--root", healthy, "--scan", bnb)
    results.check(f"verify: rocdoc check --only code.warp-size --scan {bnb}\n" in proc.stdout,
                  "check --scan: the verify command scans the same tree again")
    results.check("no such code in 1 file of" in proc.stdout, "check --scan: a pass says how much was read")
    proc = run(binary, "check", "--root", healthy, "--scan", "/nonexistent-rocdoc")
    results.check(proc.returncode == 2 and "check --scan" in proc.stderr, "check --scan of no directory: exit 2")

results.finish()
