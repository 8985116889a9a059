"""check --format prometheus (issue 13, section 2): every fixture's exposition passes Debian's
promtool (`promtool check metrics`), its samples equal the JSON report's verdicts, and a real
prometheus-node-exporter (the package's binary, started here on 127.0.0.1 and stopped here)
serves the file written with --output through its textfile collector without a scrape error.
contrib/prometheus/'s alerting rules pass `promtool check rules` and their unit tests."""
import calendar
import json
import os
import re
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

from common import FIXTURES, SOURCE_DIR, Results, run

binary = sys.argv[1]
os.umask(0o022)  # the rocdoc started here inherits it: its --output file is then 0644
results = Results()
PROMTOOL = shutil.which("promtool")  # Debian: prometheus (scripts/install-test-deps.sh)
NODE_EXPORTER = shutil.which("prometheus-node-exporter") or "/usr/bin/prometheus-node-exporter"
CONTRIB = os.path.join(SOURCE_DIR, "contrib", "prometheus")
if PROMTOOL is None or not os.access(NODE_EXPORTER, os.X_OK):
    print("FAILED: promtool or prometheus-node-exporter is missing: run scripts/install-test-deps.sh")
    sys.exit(1)
STATUS = {"pass": 0, "warn": 1, "fail": 2, "skip": -1}
SAMPLE = re.compile(r'^([a-z_]+)(?:\{(.*)\})? (-?[0-9.e+]+)$')
LABEL = re.compile(r'([a-z_]+)="((?:[^"\\]|\\.)*)"')


def samples(text):
    """{(name, frozenset of (label, value)): value} of an exposition; comments skipped."""
    found = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        match = SAMPLE.match(line)
        if not match:
            results.check(False, f"a sample line: {line!r}")
            continue
        labels = frozenset(LABEL.findall(match.group(2) or ""))
        found[(match.group(1), labels)] = float(match.group(3))
    return found


def promtool_check(text):
    proc = subprocess.run([PROMTOOL, "check", "metrics"], input=text, capture_output=True,
                          text=True, timeout=60)
    return proc.returncode, proc.stdout + proc.stderr


def check_fixture(name):
    root = os.path.join(FIXTURES, name)
    prom = run(binary, "check", "--root", root, "--format", "prometheus")
    js = run(binary, "check", "--root", root, "--json")
    return name, prom, js


# 1. Every fixture: promtool accepts the exposition; samples equal the JSON report.
fixtures = sorted(d for d in os.listdir(FIXTURES) if os.path.isdir(os.path.join(FIXTURES, d)))
with ThreadPoolExecutor(max_workers=2) as pool:
    outputs = list(pool.map(check_fixture, fixtures))
with ThreadPoolExecutor(max_workers=4) as pool:
    verdicts = list(pool.map(lambda o: promtool_check(o[1].stdout), outputs))
for (name, prom, js), (rc, lint) in zip(outputs, verdicts):
    results.check(prom.returncode == js.returncode and prom.returncode in (0, 1),
                  f"{name}: exit {prom.returncode}, as --json ({js.returncode})")
    results.check(rc == 0 and lint.strip() == "", f"{name}: promtool check metrics: {rc} {lint!r}")
    report = json.loads(js.stdout)
    got = samples(prom.stdout)
    statuses = {dict(k[1])["check"]: v for k, v in got.items() if k[0] == "rocdoc_check_status"}
    results.check(statuses == {c["id"]: STATUS[c["status"]] for c in report["checks"]},
                  f"{name}: rocdoc_check_status equals the report's statuses")
    # The severity label of a finding is the report's (issue 22, N18: numa.balancing is an
    # error on Instinct, its default a warning).
    severities = {dict(k[1])["check"]: dict(k[1])["severity"] for k in got
                  if k[0] == "rocdoc_check_status"}
    for c in report["checks"]:
        if c["status"] in ("warn", "fail"):
            results.check(severities.get(c["id"]) == c["severity"],
                          f"{name}: {c['id']} severity label {severities.get(c['id'])} == {c['severity']}")
    summary = report["summary"]
    for severity, key in (("error", "errors"), ("warning", "warnings"), ("info", "notices")):
        value = got.get(("rocdoc_findings", frozenset({("severity", severity)})))
        results.check(value == summary[key],
                      f"{name}: rocdoc_findings{{severity={severity}}} {value} == {summary[key]}")
    results.check(got.get(("rocdoc_exit_code", frozenset())) == js.returncode,
                  f"{name}: rocdoc_exit_code")
    gpus = report["inventory"]["gpus"]
    info = sorted((dict(k[1]) for k in got if k[0] == "rocdoc_gpu_info"), key=lambda l: int(l["gpu"]))
    results.check(len(info) == len(gpus) and got.get(("rocdoc_gpus", frozenset())) == len(gpus),
                  f"{name}: one rocdoc_gpu_info per GPU ({len(info)} of {len(gpus)})")
    for labels, gpu in zip(info, gpus):
        results.check(labels["gfx"] == (gpu["gfx_target"] or "unknown") and
                      labels["bdf"] == (gpu["bdf"] or "unknown") and
                      labels["driver"] == (gpu["driver"] or "none") and
                      labels["name"] == gpu["name"],
                      f"{name}: gpu_info {labels} names {gpu}")
    revision = report["rules"]["revision"]
    results.check(got.get(("rocdoc_rules_revision_info", frozenset({("revision", revision)}))) == 1,
                  f"{name}: rocdoc_rules_revision_info{{revision={revision}}} 1")
    created = calendar.timegm(time.strptime(report["created"], "%Y-%m-%dT%H:%M:%SZ"))
    stamp = got.get(("rocdoc_last_run_timestamp_seconds", frozenset()))
    results.check(stamp is not None and abs(stamp - created) <= 5,
                  f"{name}: rocdoc_last_run_timestamp_seconds {stamp} is the report's {created}")

# 2. Exact samples of two fixtures.
by_name = {name: samples(prom.stdout) for name, prom, _ in outputs}
relogin = by_name["user-not-in-render"]
expected = {
    ("rocdoc_check_status", frozenset({("check", "perm.kfd"), ("area", "Permissions"),
                                       ("severity", "error")})): 2,
    ("rocdoc_findings", frozenset({("severity", "error")})): 2,
    ("rocdoc_findings", frozenset({("severity", "warning")})): 0,
    ("rocdoc_exit_code", frozenset()): 1,
}
for key, value in expected.items():
    results.check(relogin.get(key) == value, f"user-not-in-render: {key} = {relogin.get(key)}, not {value}")
mi300 = by_name["mi300x-cpx-partitions"]
results.check(mi300.get(("rocdoc_gpu_info", frozenset({
    ("gpu", "0"), ("bdf", "0000:05:00.0"), ("gfx", "gfx942"), ("name", "Instinct MI300X"),
    ("driver", "amdgpu")}))) == 1, "mi300x-cpx-partitions: the first GPU's gpu_info")
results.check(mi300.get(("rocdoc_gpus", frozenset())) == 8, "mi300x-cpx-partitions: 8 GPUs")
links = {k: v for k, v in by_name["mi300x-xgmi-link-down"].items() if k[0] == "rocdoc_gpu_link"}
results.check(len(links) == 28 and links.get(("rocdoc_gpu_link", frozenset({("gpu", "2"), ("peer", "5"), ("type", "pcie_across_numa")}))) == 0
              and links.get(("rocdoc_gpu_link", frozenset({("gpu", "0"), ("peer", "1"), ("type", "xgmi")}))) == 1,
              f"mi300x-xgmi-link-down: a link gauge per pair, 0 for the pair whose XGMI link is down: {sorted(links.items())[:3]}")
results.check(not any(k[0] == "rocdoc_gpu_link" for k in by_name["full-stack-healthy"]),
              "full-stack-healthy: one GPU, no link gauge")
healthy = by_name["full-stack-healthy"]
results.check(healthy.get(("rocdoc_exit_code", frozenset())) == 0 and
              all(v in (0, -1) for k, v in healthy.items() if k[0] == "rocdoc_check_status"),
              "full-stack-healthy: exit 0, no check warns or fails")

# 3. promtool is not lenient: a broken exposition fails (so the checks above can fail).
rc, _ = promtool_check("# TYPE rocdoc_x gauge\nrocdoc_x{a=\"1\"} 1\nrocdoc_x{a=\"1\"} 2\nrocdoc_y{ 1\n")
results.check(rc != 0, "promtool check metrics rejects a broken exposition")

# 4. A real node_exporter's textfile collector serves the file --output writes.
def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def scrape(port):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as response:
        return response.read().decode()


work = tempfile.mkdtemp(prefix="rocdoc-prom-")
exporter = None
try:
    textfiles = os.path.join(work, "textfile")
    os.mkdir(textfiles)
    target = os.path.join(textfiles, "rocdoc.prom")
    unhealthy = os.path.join(FIXTURES, "user-not-in-render")
    proc = run(binary, "check", "--root", unhealthy, "--format", "prometheus", "--output", target)
    results.check(proc.returncode == 1 and proc.stdout == "" and os.path.isfile(target),
                  f"--output with findings: exit 1, nothing on stdout, the file written ({proc.returncode})")
    mode = stat.S_IMODE(os.stat(target).st_mode)
    results.check(mode == 0o644, f"the file's mode is 0666 less the umask 022 ({oct(mode)})")
    first_inode = os.stat(target).st_ino
    port = free_port()
    exporter = subprocess.Popen(
        [NODE_EXPORTER, f"--web.listen-address=127.0.0.1:{port}", "--collector.disable-defaults",
         "--collector.textfile", f"--collector.textfile.directory={textfiles}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    body = ""
    for _ in range(100):
        try:
            body = scrape(port)
            break
        except OSError:
            if exporter.poll() is not None:
                break
            time.sleep(0.1)
    results.check("node_textfile_scrape_error 0" in body.splitlines(),
                  "node_exporter: node_textfile_scrape_error 0")
    # node_exporter writes labels in alphabetical order.
    results.check('rocdoc_check_status{area="Permissions",check="perm.kfd",severity="error"} 2'
                  in body.splitlines(), "node_exporter serves rocdoc_check_status of perm.kfd: 2")
    results.check('rocdoc_findings{severity="error"} 2' in body.splitlines(),
                  "node_exporter serves rocdoc_findings")
    results.check(any(line.startswith("rocdoc_last_run_timestamp_seconds ") for line in body.splitlines()),
                  "node_exporter serves rocdoc_last_run_timestamp_seconds")
    rc, lint = promtool_check(body)
    results.check(rc == 0, f"promtool check metrics accepts node_exporter's page: {lint!r}")
    # A second run replaces the file by rename (a new inode), never in place; no temporary left.
    proc = run(binary, "check", "--root", os.path.join(FIXTURES, "full-stack-healthy"),
               "--format", "prometheus", "--output", target)
    results.check(proc.returncode == 0 and os.stat(target).st_ino != first_inode,
                  "a second --output replaces the file by rename")
    results.check(os.listdir(textfiles) == ["rocdoc.prom"], f"only rocdoc.prom: {os.listdir(textfiles)}")
    body = scrape(port)
    results.check('rocdoc_exit_code 0' in body.splitlines() and
                  "node_textfile_scrape_error 0" in body.splitlines(),
                  "node_exporter serves the new file")
    # A directory that cannot be written: exit 2, one line, nothing left behind.
    missing = os.path.join(work, "missing", "rocdoc.prom")
    proc = run(binary, "check", "--root", unhealthy, "--format", "prometheus", "--output", missing)
    results.check(proc.returncode == 2 and proc.stdout == "" and
                  proc.stderr.startswith("rocdoc: cannot write the report: "),
                  f"an unwritable --output is exit 2 ({proc.returncode}, {proc.stderr!r})")
finally:
    if exporter is not None:
        exporter.terminate()
        try:
            exporter.wait(timeout=10)
        except subprocess.TimeoutExpired:
            exporter.kill()
            exporter.wait()
    shutil.rmtree(work, ignore_errors=True)

# 5. The example alerting rules: valid, and their unit tests pass.
proc = subprocess.run([PROMTOOL, "check", "rules", os.path.join(CONTRIB, "rocdoc-alerts.yml")],
                      capture_output=True, text=True, timeout=60)
results.check(proc.returncode == 0 and "SUCCESS: 3 rules found" in proc.stdout,
              f"promtool check rules: {proc.stdout}{proc.stderr}")
proc = subprocess.run([PROMTOOL, "test", "rules", "rocdoc-alerts-test.yml"], cwd=CONTRIB,
                      capture_output=True, text=True, timeout=60)
results.check(proc.returncode == 0 and "SUCCESS" in proc.stdout,
              f"promtool test rules: {proc.stdout}{proc.stderr}")

# 6. prometheus and npd are formats of check only.
proc = run(binary, "explain", "perm.kfd", "--format", "prometheus")
results.check(proc.returncode == 2 and proc.stdout == "" and
              "explain --format: prometheus is a format of check only" in proc.stderr,
              f"explain --format prometheus: exit 2 ({proc.returncode}, {proc.stderr!r})")

results.finish()
