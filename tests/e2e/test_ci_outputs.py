"""What CI relies on (issue 9, sections 1 and 4): write errors are exit 2, --require, area globs,
--output/--json-output/--junit (the JUnit file read by a real JUnit parser, Debian's
python3-junitparser, and by xml.etree), list-checks --json, and the command line's words."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

import junitparser  # Debian: python3-junitparser (scripts/install-test-deps.sh)

from common import FIXTURES, SOURCE_DIR, Results, run, validate

binary = sys.argv[1]
results = Results()
FULL = "rocdoc: cannot write the report: No space left on device\n"
healthy = os.path.join(FIXTURES, "full-stack-healthy")
relogin = os.path.join(FIXTURES, "user-needs-relogin")


def run_to(stdout, *args, env=None):
    """Runs rocdoc with standard output on `stdout` (a file object, a descriptor or None)."""
    merged = dict(os.environ)
    merged.pop("NO_COLOR", None)
    merged.update(env or {})
    return subprocess.run([binary, *args], stdout=stdout, stderr=subprocess.PIPE, text=True,
                          env=merged, timeout=60)


# 1. A report that cannot be written is exit 2 with one line, never 0 or 1.
with open("/dev/full", "w") as full:
    for args in (["check", "--root", healthy], ["check", "--json", "--root", healthy],
                 ["check", "--root", relogin], ["rules", "show", "gfx1100"], ["list-checks"],
                 ["list-checks", "--json"], ["--help"], ["--version"]):
        proc = run_to(full, *args)
        results.check(proc.returncode == 2 and proc.stderr == FULL,
                      f"{' '.join(args)} > /dev/full: exit 2 and {FULL!r} ({proc.returncode}, {proc.stderr!r})")

# Standard output closed (`>&-`): EBADF. A file rocdoc opens never becomes its standard output.
out_file = tempfile.NamedTemporaryFile(delete=False)
out_file.close()
for args in (["list-checks"], ["check", "--root", relogin], ["rules", "show", "gfx1100"]):
    proc = subprocess.run(["sh", "-c", 'exec "$0" "$@" >&-', binary, *args],
                          stderr=subprocess.PIPE, text=True, timeout=60)
    results.check(proc.returncode == 2 and proc.stderr == "rocdoc: cannot write the report: Bad file descriptor\n",
                  f"{' '.join(args)} >&-: exit 2 ({proc.returncode}, {proc.stderr!r})")
proc = subprocess.run(["sh", "-c", 'exec "$0" check --root "$1" --output "$2" >&-', binary, healthy,
                       out_file.name], stderr=subprocess.PIPE, text=True, timeout=60)
with open(out_file.name) as f:
    written = f.read()
results.check(proc.returncode == 0 and "No issues found" in written and proc.stderr == "",
              f"--output FILE with standard output closed: the file has the report ({proc.returncode}, {proc.stderr!r})")
os.unlink(out_file.name)

# A reader that went away: EPIPE is an error (exit 2), not a silent death by SIGPIPE.
read_end, write_end = os.pipe()
os.close(read_end)
proc = run_to(write_end, "check", "--root", relogin)
os.close(write_end)
results.check(proc.returncode == 2 and proc.stderr == "rocdoc: cannot write the report: Broken pipe\n",
              f"closed pipe: exit 2, Broken pipe ({proc.returncode}, {proc.stderr!r})")

# rocdoc catches SIGPIPE with a handler, so a program it runs (--python) still gets the default:
# an ignored SIGPIPE would be inherited across exec.
with tempfile.TemporaryDirectory() as scratch:
    fake = os.path.join(scratch, "python")
    with open(fake, "w") as f:
        f.write('#!/bin/sh\n'
                'ignored=$(sed -n "s/^SigIgn:[[:space:]]*//p" /proc/$$/status)\n'
                'if [ $(( 0x$ignored & 0x1000 )) -ne 0 ]; then exit 3; fi\n'
                'echo "[]"\n')
    os.chmod(fake, 0o755)
    proc = run(binary, "check", "--only", "gpu.none", "--python", fake)
    results.check(proc.returncode in (0, 1), f"--python gets SIGPIPE not ignored ({proc.returncode}, {proc.stderr!r})")

# 2. --require: exit 1, verdict "unchecked", the human report says which and why.
proc = run(binary, "check", "--root", healthy, "--require", "shm.small,perm.kfd")
results.check(proc.returncode == 1 and "required check shm.small did not run: not in a container, and fewer than two GPUs\n" in proc.stdout,
              f"--require a skipped check: exit 1 and why ({proc.returncode}, {proc.stdout[-300:]!r})")
proc = run(binary, "check", "--json", "--root", healthy, "--only", "perm.kfd", "--require", "perm.*")
document = json.loads(proc.stdout)
results.check(proc.returncode == 1 and document["verdict"] == "unchecked" and document["exit_code"] == 1
              and document["require"] == ["perm.container-groups", "perm.kfd", "perm.relogin", "perm.render"],
              f"--require perm.* with --only perm.kfd: unchecked, exit 1 ({proc.returncode}, {document['verdict']}, {document['require']})")
results.check(validate(document) is None, f"--require report matches the schema: {validate(document)}")
proc = run(binary, "check", "--json", "--root", relogin, "--require", "perm.kfd")
document = json.loads(proc.stdout)
results.check(proc.returncode == 1 and document["verdict"] == "fail", "a required check that failed: verdict fail")
proc = run(binary, "check", "--root", healthy, "--require", "perm.kfd", "--fail-on", "never")
results.check(proc.returncode == 0, f"--require of a check that ran: exit 0 ({proc.returncode})")

# 3. Areas: --only/--skip/--require AREA.*; an unknown area is exit 2 with a did-you-mean.
proc = run(binary, "check", "--json", "--root", healthy, "--only", "torch.*,perm.kfd")
ids = [c["id"] for c in json.loads(proc.stdout)["checks"]]
results.check(proc.returncode == 0 and "perm.kfd" in ids and all(i == "perm.kfd" or i.startswith("torch.") for i in ids)
              and len(ids) > 3, f"--only torch.*,perm.kfd: {ids}")
proc = run(binary, "check", "--root", healthy, "--skip", "prem.*")
results.check(proc.returncode == 2 and proc.stdout == ""
              and proc.stderr == "rocdoc: check --skip: unknown area 'prem.*'; did you mean perm.*?\n",
              f"unknown area: exit 2 with did-you-mean ({proc.returncode}, {proc.stderr!r})")

# 4. --output, --json-output, --junit.
with tempfile.TemporaryDirectory() as scratch:
    human = os.path.join(scratch, "rocdoc.txt")
    json_file = os.path.join(scratch, "rocdoc.json")
    junit_file = os.path.join(scratch, "rocdoc.xml")
    proc = run(binary, "check", "--root", relogin, "--json-output", json_file, "--junit", junit_file)
    reference = run(binary, "check", "--root", relogin)
    results.check(proc.returncode == 1 and proc.stdout == reference.stdout,
                  "--json-output and --junit leave the human report on standard output")
    with open(json_file) as f:
        written = json.load(f)
    results.check(validate(written) is None and written["exit_code"] == 1 and written["verdict"] == "fail",
                  f"--json-output: a valid report ({validate(written)})")
    proc = run(binary, "check", "--root", relogin, "--output", human)
    with open(human) as f:
        text = f.read()
    results.check(proc.returncode == 1 and proc.stdout == "" and text == reference.stdout,
                  "--output FILE: the human report in FILE, nothing on standard output")
    proc = run(binary, "check", "--root", relogin, "--json", "--output", json_file)
    with open(json_file) as f:
        results.check(proc.stdout == "" and json.load(f)["schema"] == "rocdoc-report/1", "--json --output FILE")
    proc = run(binary, "check", "--root", healthy, "--junit", "/dev/full")
    results.check(proc.returncode == 2 and proc.stdout == ""
                  and proc.stderr == "rocdoc: cannot write the report: /dev/full: No space left on device\n",
                  f"--junit /dev/full: exit 2 ({proc.returncode}, {proc.stderr!r})")
    proc = run(binary, "check", "--root", healthy, "--output", os.path.join(scratch, "none", "x"))
    results.check(proc.returncode == 2 and "No such file or directory" in proc.stderr,
                  f"--output in a missing directory: exit 2 ({proc.stderr!r})")


def junit_cases(path):
    """{check id: (kind, type, message, text)} through junitparser; also parsed by xml.etree."""
    root = ET.parse(path).getroot()
    suites = list(root) if root.tag == "testsuites" else [root]
    xml_suite = suites[0]
    parsed = junitparser.JUnitXml.fromfile(path)
    suite = next(iter(parsed))
    cases = {}
    for case in suite:
        kinds = [(type(r).__name__.lower(), r.type, r.message, r.text) for r in case.result]
        cases[case.name] = (case.classname, kinds, case.system_out)
    return root, xml_suite, suite, cases


def check_junit(fixture, *extra):
    with tempfile.TemporaryDirectory() as scratch:
        junit_file = os.path.join(scratch, "junit.xml")
        proc = run(binary, "check", "--json", "--root", fixture, "--junit", junit_file, *extra)
        document = json.loads(proc.stdout)
        name = f"{os.path.basename(fixture)} {' '.join(extra)}".strip()
        root, xml_suite, suite, cases = junit_cases(junit_file)
    results.check(root.tag == "testsuites" and len(root) == 1 and xml_suite.get("name") == "rocdoc",
                  f"{name}: one <testsuite name=\"rocdoc\">")
    checks = document["checks"]
    results.check(suite.tests == len(checks) == len(cases) and int(xml_suite.get("tests")) == len(checks),
                  f"{name}: one testcase per check ({suite.tests}, {len(checks)}, {len(cases)})")
    fail_on = document["fail_on"]
    failures = skipped = 0
    for check in checks:
        classname, kinds, system_out = cases[check["id"]]
        results.check(classname == "rocdoc." + check["id"].split(".")[0], f"{name}: {check['id']} classname {classname}")
        counts = check["status"] == "fail" or (fail_on == "warning" and check["status"] == "warn"
                                                and check["severity"] == "warning")
        if fail_on == "never":
            counts = False
        if check["status"] == "skip":
            skipped += 1
            results.check(kinds == [("skipped", None, check["message"], None)],
                          f"{name}: {check['id']} skipped with its reason: {kinds}")
        elif counts:
            failures += 1
            ok = len(kinds) == 1 and kinds[0][0] == "failure" and kinds[0][1] == check["severity"] \
                and kinds[0][2] == check["message"] and check["message"] in kinds[0][3]
            for fix in check["fix"]:
                ok = ok and (not fix["command"] or fix["command"] in kinds[0][3])
            for line in check["evidence"]:
                ok = ok and line in kinds[0][3]
            results.check(ok, f"{name}: {check['id']} is a failure with message, evidence and fixes: {kinds}")
        else:
            results.check(kinds == [] and check["message"] in (system_out or ""),
                          f"{name}: {check['id']} ({check['status']}/{check['severity']}) passes and says it: {kinds} {system_out!r}")
            if check["status"] == "warn":
                results.check(f"{check['severity']}, not a failure under --fail-on {fail_on}" in system_out,
                              f"{name}: {check['id']} says why it is not a failure: {system_out!r}")
    results.check(suite.failures == failures and int(xml_suite.get("failures")) == failures
                  and suite.skipped == skipped and int(xml_suite.get("skipped")) == skipped
                  and suite.errors == 0, f"{name}: counts {suite.failures}/{failures} {suite.skipped}/{skipped}")
    properties = {p.get("name"): p.get("value") for p in xml_suite.iter("property")}
    results.check(properties.get("rocdoc.verdict") == document["verdict"]
                  and properties.get("rocdoc.exit_code") == str(document["exit_code"]),
                  f"{name}: verdict and exit code as properties: {properties}")
    return cases


check_junit(healthy)
cases = check_junit(relogin)
results.check(cases["perm.kfd"][1][0][1] == "error" and "newgrp render" in cases["perm.relogin"][1][0][3],
              "user-needs-relogin: perm.relogin fails with its fix command")
warning_fixture = os.path.join(FIXTURES, "pcie-link-degraded")
cases = check_junit(warning_fixture)
results.check(cases["pcie.link-degraded"][1] == [], "a warning under --fail-on error is a passed testcase")
cases = check_junit(warning_fixture, "--fail-on", "warning")
results.check(cases["pcie.link-degraded"][1][0][:2] == ("failure", "warning"),
              "a warning under --fail-on warning is a <failure type=\"warning\">")
check_junit(relogin, "--fail-on", "never")
check_junit(os.path.join(FIXTURES, "wsl2"))  # os.wsl: a notice, passed

# A required check that was not selected has a failed testcase of its own.
with tempfile.TemporaryDirectory() as scratch:
    junit_file = os.path.join(scratch, "junit.xml")
    proc = run(binary, "check", "--root", healthy, "--only", "perm.kfd", "--require", "shm.small",
               "--junit", junit_file)
    _, _, suite, cases = junit_cases(junit_file)
    results.check(proc.returncode == 1 and suite.tests == 2 and cases["shm.small"][1][0][:2] == ("failure", "required"),
                  f"--require of a check not selected: a failed testcase ({cases})")

# Hostile text from the inspected machine stays well-formed XML: markup, control characters and
# U+FFFE (valid UTF-8, not an XML character).
with tempfile.TemporaryDirectory() as scratch:
    hostile = os.path.join(scratch, "snapshot")
    shutil.copytree(os.path.join(FIXTURES, "rx6700xt-no-override"), hostile)
    manifest = os.path.join(hostile, "rocdoc-snapshot.json")
    with open(manifest) as f:
        data = json.load(f)
    data.setdefault("env", {})["HSA_OVERRIDE_GFX_VERSION"] = "1\x01\x1b[31m<&\"'>]]>\ufffe\u0085\x7f"
    with open(manifest, "w") as f:
        json.dump(data, f)
    junit_file = os.path.join(scratch, "junit.xml")
    proc = run(binary, "check", "--json", "--root", hostile, "--junit", junit_file)
    document = json.loads(proc.stdout)
    try:
        _, _, suite, cases = junit_cases(junit_file)
        message = next(c["message"] for c in document["checks"] if c["id"] == "arch.override-wrong")
        escaped = message
        for raw, escape in (("\x01", "\\x01"), ("\x1b", "\\x1b"), ("\ufffe", "\\ufffe"),
                            ("\x85", "\\u0085"), ("\x7f", "\\x7f")):
            escaped = escaped.replace(raw, escape)
        results.check("\x1b" in message and cases["arch.override-wrong"][1][0][2] == escaped,
                      f"hostile value: the failure message is the report's ({cases['arch.override-wrong'][1]})")
    except ET.ParseError as error:
        results.check(False, f"hostile value: the JUnit file is not well-formed XML: {error}")

# 5. list-checks --json, and the human list's columns.
proc = run(binary, "list-checks", "--json")
listed = json.loads(proc.stdout)
results.check(proc.returncode == 0 and all(set(c) == {"id", "area", "title", "severity", "scope", "needs"} for c in listed),
              "list-checks --json: {id, area, title, severity, scope, needs}")
# The code.* checks run only with --scan: with it, the report holds every check of the list.
portable = os.path.join(SOURCE_DIR, "tests", "scan", "real", "vllm-cuda-compat-portable")
report_ids = [c["id"] for c in json.loads(run(binary, "check", "--json", "--root", healthy,
                                              "--scan", portable).stdout)["checks"]]
results.check([c["id"] for c in listed] == report_ids, "list-checks --json lists the checks in report order")
plain_ids = [c["id"] for c in json.loads(run(binary, "check", "--json", "--root", healthy).stdout)["checks"]]
results.check(plain_ids == [i for i in report_ids if not i.startswith("code.")],
              "without --scan the report holds every check but the code.* ones")
human_lines = run(binary, "list-checks").stdout.splitlines()
results.check(all(re.split(r"\s{2,}", line) == [c["id"], c["severity"], c["area"], c["title"]]
                  for c, line in zip(listed, human_lines)) and len(human_lines) == len(listed),
              "list-checks: the area and the title are two spaces apart at least")

# 6. The command line.
plain = run(binary, "check", "--root", healthy)
for args, what in ((["--root", healthy], "rocdoc --root DIR"), (["--json", "--root", healthy], "rocdoc --json")):
    proc = run(binary, *args)
    results.check(proc.returncode == 0 and (proc.stdout == plain.stdout if "--json" not in args
                                            else json.loads(proc.stdout)["schema"] == "rocdoc-report/1"),
                  f"{what} runs check")
for args in (["help"], ["version"], ["-V"], ["--version"], ["help", "check"], ["help", "rules", "show"]):
    proc = run(binary, *args)
    results.check(proc.returncode == 0 and proc.stdout and proc.stderr == "", f"rocdoc {' '.join(args)}: exit 0")
results.check(run(binary, "help", "check").stdout == run(binary, "check", "--help").stdout, "help check = check --help")
results.check(run(binary, "-V").stdout.startswith("rocdoc "), "-V prints the version")
for args, expected in (
        (["chek"], "rocdoc: unknown command 'chek'; did you mean check?\nRun 'rocdoc --help' for usage.\n"),
        (["check", "--jsn"], "rocdoc: check: unknown option --jsn; did you mean --json?\nRun 'rocdoc check --help' for usage.\n"),
        (["--no-colour"], "rocdoc: check: unknown option --no-colour; did you mean --no-color?\nRun 'rocdoc check --help' for usage.\n"),
        (["rules", "show"], "rocdoc: rules show: say what to show (a gfx target, PCI id, product name, torch or ROCm version)\n"
                            "Run 'rocdoc rules show --help' for usage.\n"),
        (["rules", "lint", "/nonexistent"], "rocdoc: rules lint: /nonexistent: no such directory\n"
                                            "Run 'rocdoc rules lint --help' for usage.\n"),
        (["check", "--fail-on"], "rocdoc: check --fail-on: needs a value: error, warning or never\n"
                                 "Run 'rocdoc check --help' for usage.\n")):
    proc = run(binary, *args)
    results.check(proc.returncode == 2 and proc.stdout == "" and proc.stderr == expected,
                  f"rocdoc {' '.join(args)}: {proc.returncode} {proc.stderr!r}")
for command, codes in ((["check"], "1  a finding reached"), (["rules", "lint"], "0  the rules are valid"),
                       (["rules", "show"], "0  the knowledge base knows it"), (["list-checks"], "0  the list was printed")):
    out = run(binary, *command, "--help").stdout
    results.check(codes in out and f"Usage: rocdoc {' '.join(command)} " in out,
                  f"{' '.join(command)} --help: its own usage line and exit codes")

# 7. rules lint on a directory without rules files (empty, or /etc) is exit 2; so is check --rules.
with tempfile.TemporaryDirectory() as empty:
    for args in (["rules", "lint", empty], ["rules", "lint", "/etc"], ["check", "--root", healthy, "--rules", empty]):
        proc = run(binary, *args)
        results.check(proc.returncode == 2 and proc.stdout == "" and "no rules files here" in proc.stderr
                      and proc.stderr.count("\n") == 1,
                      f"{' '.join(args)}: exit 2, one line ({proc.returncode}, {proc.stderr!r})")

# rules show --json (issue 22, N27): every kind of query, against docs/rules-show.schema.json.
RULES_SHOW_SCHEMA = os.path.join(SOURCE_DIR, "docs", "rules-show.schema.json")
for query, kind in ((["gfx1031"], "gfx_target"), (["73df"], "pci_id"), (["Ryzen AI MAX+ 395"], "product"),
                    (["torch==2.7.1"], "torch"), (["2.12.0+cu130"], "torch_version"), (["7.2.1"], "rocm"),
                    (["6.19.14.31400000"], "driver"), (["31.40"], "driver"), (["7.15"], "rocm")):
    proc = run(binary, "rules", "show", *query, "--json")
    document = json.loads(proc.stdout) if proc.returncode == 0 else {}
    problem = validate(document, RULES_SHOW_SCHEMA) if document else "no JSON"
    results.check(problem is None and document.get("kind") == kind,
                  f"rules show {query} --json: kind {document.get('kind')}, schema: {problem}")
# A version newer than the rules: exit 2, nothing on standard output, one line on standard error.
proc = run(binary, "rules", "show", "11.0", "--json")
results.check(proc.returncode == 2 and proc.stdout == "" and "newer than these rules" in proc.stderr,
              f"rules show 11.0 --json: exit 2, said on stderr ({proc.returncode}, {proc.stderr!r})")
hip = json.loads(run(binary, "rules", "show", "7.15", "--json").stdout)
results.check(hip["rocm_release"]["rocm"] == "10.0" and hip["rocm_release"]["hip"] == "7.15"
              and "HIP 7.15 is ROCm 10.0's" in hip["note"], f"rules show 7.15 --json: {hip}")
gfx1031 = json.loads(run(binary, "rules", "show", "gfx1031", "--json").stdout)["targets"][0]
results.check(gfx1031["torch_wheels"] == [] and gfx1031["amd_wheels"] and gfx1031["override"]["value"] == "10.3.0",
              f"rules show gfx1031 --json: AMD's builds and the override: {gfx1031}")
cuda = json.loads(run(binary, "rules", "show", "2.12.0+cu130", "--json").stdout)["torch_version"]
results.check(cuda == {"version": "2.12.0+cu130", "build": "cuda", "origin": "pytorch.org wheel (cu130 index)"},
              f"rules show 2.12.0+cu130 --json: a CUDA build: {cuda}")
proc = run(binary, "rules", "show", "Voodoo 5", "--json")
results.check(proc.returncode == 2 and proc.stdout == "" and "knows nothing called 'Voodoo 5'" in proc.stderr,
              f"rules show --json of nothing known: exit 2 ({proc.returncode})")

results.finish()
