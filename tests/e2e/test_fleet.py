"""Issue 13 §4: `rocdoc fleet` merges many nodes' reports. Run: test_fleet.py path/to/rocdoc

The reports are real: `rocdoc check --root tests/fixtures/X --json` of mi355x-rocm71-torch214-healthy (copied
to node001…node008, some changed the way a fleet drifts: another ROCm, another torch, perm.kfd
failing with perm.render following from it, one a day old) and of user-not-in-render (gpu01),
plus a real snapshot archive (tests/snapshots/, diagnosed as check --snapshot does), a report
cut in half, a triage report, and a node of --nodes that sent nothing. Every count, cause,
outlier, host list and exit code is asserted exactly, in the three formats; the JSON is
validated against docs/fleet.schema.json.
"""
import copy
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from common import FIXTURES, SOURCE_DIR, Results, run  # noqa: E402
from common import validate as common_validate  # noqa: E402

BINARY = os.path.abspath(sys.argv[1])
results = Results()
check = results.check
NOW = "2026-12-02T12:00:00Z"
SNAPSHOT = os.path.join(SOURCE_DIR, "tests", "snapshots", "h200-cuda-wheel-ubuntu2404.tar.gz")


def real_report(fixture):
    proc = run(BINARY, "check", "--root", os.path.join(FIXTURES, fixture), "--json")
    return json.loads(proc.stdout)


def causes(report):
    """A report's root causes by the rule of docs/fleet.md, computed independently."""
    return sorted(c["id"] for c in report["checks"]
                  if (c["status"] == "fail" or (c["status"] == "warn" and c["severity"] == "warning"))
                  and not c["caused_by"])


def set_check(report, check_id, status, caused_by):
    for entry in report["checks"]:
        if entry["id"] == check_id:
            entry.update(status=status, severity="error", caused_by=caused_by,
                         message="changed by test_fleet.py")
            return
    raise KeyError(check_id)


def fleet(*args):
    proc = run(BINARY, "fleet", *args)
    return proc.returncode, proc.stdout, proc.stderr


def fleet_bounded(*args, timeout=20):
    """fleet that must answer: (None, '', 'timed out') when it blocks (the unfixed FIFO reads)."""
    try:
        proc = subprocess.run([BINARY, "fleet", *args], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "", f"timed out after {timeout} s"
    return proc.returncode, proc.stdout, proc.stderr


def validate(document):
    return common_validate(document, os.path.join(SOURCE_DIR, "docs", "fleet.schema.json"))


healthy = real_report("mi355x-rocm71-torch214-healthy")
other = real_report("user-not-in-render")
check(causes(healthy) == [], f"mi355x-rocm71-torch214-healthy has no root cause: {causes(healthy)}")
check(causes(other) == ["perm.kfd"], f"user-not-in-render's root causes: {causes(other)}")
rocm = healthy["facts"]["rocm"]["opt_rocm_version"]
torch = [e["torch"]["version"] for e in healthy["facts"]["python"]["environments"] if e["torch"]]
check(len(torch) == 1, f"mi355x-rocm71-torch214-healthy has one torch: {torch}")

with tempfile.TemporaryDirectory() as scratch:
    reports = os.path.join(scratch, "reports")
    os.mkdir(reports)

    def write(name, report):
        with open(os.path.join(reports, name), "w") as f:
            f.write(report if isinstance(report, str) else json.dumps(report, indent=2))

    for i in range(1, 9):
        node = copy.deepcopy(healthy)
        node["created"] = "2026-12-02T11:00:00Z"
        if i == 3:
            node["facts"]["rocm"]["opt_rocm_version"] = "6.2.0-99"
        if i == 4:
            next(e for e in node["facts"]["python"]["environments"] if e["torch"])["torch"][
                "version"] = "2.5.1+rocm6.2"
        if i in (5, 6, 7):
            set_check(node, "perm.kfd", "fail", [])
            set_check(node, "perm.render", "fail", ["perm.kfd"])
        if i == 8:
            node["created"] = "2026-11-30T10:30:00Z"
        for device in node["facts"]["pci"]["devices"]:  # GPU firmware, as a probe records it
            if device["gpu"] == "amd":
                device["firmware"] = {"mes": "0x00000083" if i == 2 else "0x00000080",
                                      "sos": "0x00270041"}
        write(f"node{i:03d}.json", node)
    write("node009.json", json.dumps(healthy)[:5000])  # cut short
    write("node011.json", '{"schema": "rocdoc-triage/1", "findings": []}')
    other["created"] = "2026-12-02T11:30:00Z"
    write("gpu01.json", other)
    shutil.copy(SNAPSHOT, os.path.join(reports, "snap01.tar.gz"))
    write(".hidden.json", "not read")
    write("README.txt", "not read")
    nodes = os.path.join(scratch, "nodes.txt")
    with open(nodes, "w") as f:
        f.write("# the fleet\n" + "".join(f"node{i:03d}\n" for i in range(1, 12)) +
                "gpu01\n\n  node001  \n")  # a name twice, with blanks: once
    snap = json.loads(run(BINARY, "check", "--snapshot", SNAPSHOT, "--json").stdout)
    snap_causes = causes(snap)
    snap_created = snap["host"]["snapshot"]["created"]

    # --- JSON ---------------------------------------------------------------------------
    code, out, err = fleet(reports, "--nodes", nodes, "--max-age", "2h", "--now", NOW, "--json")
    check(code == 1, f"findings: exit 1 ({code}, {err})")
    summary = json.loads(out)
    check(validate(summary) is None, f"valid against fleet.schema.json: {validate(summary)}")
    counts = summary["counts"]
    snap_has_findings = bool(snap_causes)
    check(counts == {"inputs": 12, "nodes": 12, "healthy": 5 + (not snap_has_findings),
                     "with_findings": 4 + snap_has_findings, "unreadable": 2, "expected": 12,
                     "missing": 1, "unexpected": 1, "stale": 1 + 1}, f"counts: {counts}")
    by_id = {c["id"]: c for c in summary["causes"]}
    check(by_id.get("perm.kfd", {}).get("nodes") == ["gpu01", "node005", "node006", "node007"],
          f"perm.kfd's nodes: {by_id.get('perm.kfd')}")
    check(by_id.get("perm.kfd", {}).get("hostlist") == "gpu01,node[005-007]",
          f"perm.kfd's host list: {by_id.get('perm.kfd')}")
    check(by_id.get("perm.kfd", {}).get("count") == 4 and by_id["perm.kfd"]["severity"] == "error",
          "perm.kfd: 4 nodes, error")
    check(summary["causes"][0]["id"] == "perm.kfd", "the largest cause first")
    check("perm.render" not in by_id, "perm.render follows from perm.kfd: not a root cause")
    expected_causes = {"perm.kfd": 4}
    for cause in snap_causes:
        expected_causes[cause] = expected_causes.get(cause, 0) + 1
    check({c["id"]: c["count"] for c in summary["causes"]} == expected_causes,
          f"every cause: {[(c['id'], c['count']) for c in summary['causes']]} vs {expected_causes}")
    outliers = [(o["dimension"], o["majority"], o["majority_count"],
                 [(x["value"], x["count"], x["hostlist"]) for x in o["others"]])
                for o in summary["outliers"]]
    snap_kernel = snap["host"]["kernel"]
    check(outliers == [
        ("rocm", rocm, 7, [("none", 2, "gpu01,snap01"), ("6.2.0-99", 1, "node003")]),
        ("torch", torch[0], 7, [("2.11.0+cu130", 1, "snap01"), ("2.5.1+rocm6.2", 1, "node004"),
                                ("none", 1, "gpu01")]),
        ("driver", "dkms 6.16.13", 8, [("in-kernel", 1, "gpu01"), ("not loaded", 1, "snap01")]),
        ("firmware", "mes=0x00000080, sos=0x00270041", 7,
         [("none", 2, "gpu01,snap01"), ("mes=0x00000083, sos=0x00270041", 1, "node002")]),
        ("gfx", "gfx950 x8", 8, [("gfx1100", 1, "gpu01"), ("none", 1, "snap01")]),
        ("topology", "28 xgmi", 8, [("no pairs", 2, "gpu01,snap01")]),
        ("kernel", healthy["host"]["kernel"], 8, [(snap_kernel, 1, "snap01"),
                                                  (other["host"]["kernel"], 1, "gpu01")]),
        ("os", "Ubuntu 22.04.5 LTS", 9, [("Ubuntu 24.04.3 LTS", 1, "snap01")]),
    ], f"outliers: {outliers}")
    check(rocm == "7.2.4-93" and torch == ["2.14.1+rocm7.2"] and other["host"]["os"] ==
          "Ubuntu 22.04.5 LTS", "the fixtures' versions this test was written against")
    check(summary["missing"] == {"hostlist": "node010", "nodes": ["node010"]},
          f"missing: {summary['missing']}")
    check(summary["unexpected"] == {"hostlist": "snap01", "nodes": ["snap01"]},
          f"unexpected: {summary['unexpected']}")
    stale = {s["node"]: s for s in summary["stale"]}
    check(stale.get("node008") == {"node": "node008", "created": "2026-11-30T10:30:00Z",
                                   "age_s": 178200}, f"node008 is stale: {stale}")
    check(set(stale) == {"node008", "snap01"}, f"stale: {sorted(stale)} (snap01 was captured "
          f"{snap_created})")
    unreadable = {u["node"]: u["problem"] for u in summary["unreadable"]}
    check(sorted(unreadable) == ["node009", "node011"], f"unreadable: {unreadable}")
    check(unreadable.get("node009", "").startswith("unterminated string at byte")
          or "at byte" in unreadable.get("node009", ""), f"node009: {unreadable.get('node009')}")
    check(unreadable.get("node011") == "schema 'rocdoc-triage/1' is not rocdoc-report/1 at byte 28",
          f"node011: {unreadable.get('node011')}")
    check(summary["exit_code"] == 1 and summary["now"] == NOW and summary["max_age_s"] == 7200,
          "exit_code, now, max_age_s")

    # --- human ---------------------------------------------------------------------------
    code, out, err = fleet(reports, "--nodes", nodes, "--max-age", "2h", "--now", NOW)
    check(code == 1, f"human: exit 1 ({code})")
    lines = out.splitlines()
    check(lines[0] == f"rocdoc fleet: 12 nodes: {counts['healthy']} healthy, "
          f"{counts['with_findings']} with findings, 2 unreadable; 1 missing, 2 stale, "
          "8 dimensions with outliers", f"human headline: {lines[0]}")
    check("  perm.kfd (error): 4 nodes  gpu01,node[005-007]" in lines, f"human cause line:\n{out}")
    check(f"  ROCm: majority {rocm} (7 nodes)" in lines and "    6.2.0-99: 1 node  node003" in lines,
          "human ROCm outlier")
    check("  GPU firmware: majority mes=0x00000080, sos=0x00270041 (7 nodes)" in lines and
          "    mes=0x00000083, sos=0x00270041: 1 node  node002" in lines, f"human firmware:\n{out}")
    check("Missing (in --nodes, no report): 1 node  node010" in lines, "human missing")
    # snap01 (a snapshot archive) reported but is not in nodes.txt (N19).
    check("Unexpected (a report, not in --nodes): 1 node  snap01" in lines, f"human unexpected: {lines}")
    # Colour as check has it (N26): on where CLICOLOR_FORCE asks, an error's id red; never into a
    # pipe (above: no escape in out) or with --no-color.
    check("\x1b" not in out, "human: no colour into a pipe")
    forced_env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    forced_env["CLICOLOR_FORCE"] = "1"
    forced = subprocess.run([BINARY, "fleet", reports, "--now", NOW], capture_output=True, text=True,
                            env=forced_env).stdout
    check("\x1b[31mperm.kfd\x1b[0m (error)" in forced, f"human: an error's id in red with CLICOLOR_FORCE: {forced[:300]!r}")
    plain = subprocess.run([BINARY, "fleet", "--no-color", reports, "--now", NOW], capture_output=True,
                           text=True, env=forced_env).stdout
    check("\x1b" not in plain, "fleet --no-color: no colour even with CLICOLOR_FORCE")
    check("  node008: 2026-11-30T10:30:00Z (2d1h old)" in lines, f"human stale:\n{out}")
    check("  node011: " + os.path.join(reports, "node011.json") +
          ": schema 'rocdoc-triage/1' is not rocdoc-report/1 at byte 28" in lines, "human unreadable")

    # --- markdown ------------------------------------------------------------------------
    code, out, err = fleet(reports, "--nodes", nodes, "--max-age", "2h", "--now", NOW,
                           "--format", "markdown")
    check(code == 1 and out.startswith("# rocdoc fleet\n"), f"markdown: exit 1 ({code})")
    check("| perm.kfd | error | 4 | gpu01,node\\[005-007\\] |" in out.splitlines(),
          f"markdown cause row:\n{out}")
    check("## Outliers" in out and "## Missing" in out and "## Stale" in out and
          "## Unreadable" in out, "markdown sections")

    # --- a healthy fleet: exit 0 -----------------------------------------------------------
    clean = os.path.join(scratch, "clean")
    os.mkdir(clean)
    for name in ("node001.json", "node012.json"):
        shutil.copy(os.path.join(reports, "node001.json"), os.path.join(clean, name))
    code, out, err = fleet(clean, "--max-age", "2h", "--now", NOW)
    check(code == 0, f"healthy fleet: exit 0 ({code}, {out}{err})")
    check(out.splitlines()[0] == "rocdoc fleet: 2 nodes: 2 healthy, 0 with findings, 0 unreadable; "
          "0 missing, 0 stale, 0 dimensions with outliers", f"healthy headline: {out}")
    code, out, err = fleet(clean, "--max-age", "30m", "--now", NOW, "--json")
    check(code == 1 and json.loads(out)["counts"]["stale"] == 2, "30 minutes: both stale, exit 1")
    code, out, err = fleet(os.path.join(clean, "node001.json"), os.path.join(reports, "gpu01.json"),
                           "--json")
    check(code == 1 and json.loads(out)["counts"]["nodes"] == 2, "files named one by one")
    # The same node twice: the second is unreadable, named.
    code, out, err = fleet(clean, os.path.join(clean, "node001.json"), "--json")
    dup = json.loads(out)["unreadable"] if code == 1 else []
    check(len(dup) == 1 and dup[0]["problem"].startswith("a second report for this node"),
          f"a duplicate node: {dup}")

    # --- exit 2: nothing usable, bad arguments; nothing on standard output --------------------
    empty = os.path.join(scratch, "empty")
    os.mkdir(empty)
    bad = os.path.join(scratch, "bad")
    os.mkdir(bad)
    with open(os.path.join(bad, "x.json"), "w") as f:
        f.write("{")
    for args, message in [
        ((empty,), "rocdoc: fleet: no report in " + empty),
        ((bad,), "rocdoc: fleet: no readable report among 1 file(s):"),
        ((os.path.join(scratch, "nope"),), "rocdoc: fleet: " + os.path.join(scratch, "nope") +
         ": No such file or directory"),
        ((clean, "--max-age", "2x"), "rocdoc: fleet --max-age: '2x' is not a duration"),
        ((clean, "--now", "yesterday"), "rocdoc: fleet --now: 'yesterday' is not a UTC time"),
        ((clean, "--format", "xml"), "rocdoc: fleet --format: 'xml' is not human, json or markdown"),
        ((clean, "--nodes", os.path.join(scratch, "nope.txt")), "rocdoc: fleet --nodes: " +
         os.path.join(scratch, "nope.txt") + ": No such file or directory"),
        ((clean, "--nodes", scratch), "rocdoc: fleet --nodes: " + scratch + ": a directory"),
        ((), "rocdoc: fleet: name the reports to merge"),
    ]:
        code, out, err = fleet(*args)
        check(code == 2 and out == "" and err.startswith(message),
              f"fleet {args}: exit 2 with '{message}' ({code}, {out!r}, {err!r})")

    # --- a file name that is no host name (10-fleet-hostlist-comma.sh) ------------------------
    # "node2,login1" would read as two nodes in a host list, "node[3]" as a range: such a report
    # is unreadable, named, and its name is in no host list.
    odd = os.path.join(scratch, "odd")
    os.mkdir(odd)
    for name in ("node2,login1.json", "node[3].json", "node 4.json", "-w.json", "gpu01.json"):
        shutil.copy(os.path.join(reports, "gpu01.json"), os.path.join(odd, name))
    code, out, err = fleet(odd, "--json")
    document = json.loads(out) if code == 1 else {}
    bad = {u["node"]: u["problem"] for u in document.get("unreadable", [])}
    check(sorted(bad) == ["-w", "node 4", "node2,login1", "node[3]"] and
          all("does not give a host name" in p for p in bad.values()),
          f"names that are no host names are unreadable: {bad}")
    lists = [c["hostlist"] for c in document.get("causes", [])]
    check(lists and all(h == "gpu01" for h in lists), f"and in no host list: {lists}")
    code, out, err = fleet(odd)
    check(code == 1 and "node2,login1" not in "".join(l for l in out.splitlines() if l.startswith("  perm.")),
          f"human: the cause line lists gpu01 alone:\n{out}")
    names = os.path.join(scratch, "names.txt")
    with open(names, "w") as f:
        f.write("# the nodes\ngpu01\nnode2,login1\n")
    code, out, err = fleet(clean, "--nodes", names)
    check(code == 2 and out == "" and err.startswith(
        f"rocdoc: fleet --nodes: {names}: line 3: 'node2,login1' is not a node name"),
          f"--nodes refuses a name that is no host name: {code} {err!r}")

    # --- inputs that block or grow (11-blocking-inputs.sh): answered at once -----------------
    fifo = os.path.join(scratch, "n1.json")
    os.mkfifo(fifo)
    code, out, err = fleet_bounded(fifo)
    check(code == 2 and "n1.json: not a regular file (a FIFO)" in err,
          f"fleet FIFO.json: exit 2 at once ({code}, {err!r})")
    code, out, err = fleet_bounded(clean, "--nodes", fifo)
    check(code == 2 and err == f"rocdoc: fleet --nodes: {fifo}: a FIFO; give a file of node names\n",
          f"fleet --nodes FIFO: exit 2 at once ({code}, {err!r})")
    big = os.path.join(scratch, "big.txt")
    with open(big, "wb") as f:
        f.truncate((16 << 20) + 1)  # sparse: no 16 MiB written
    code, out, err = fleet_bounded(clean, "--nodes", big)
    check(code == 2 and "over 16 MiB" in err, f"a --nodes file over 16 MiB: exit 2 ({code}, {err!r})")
    with open(big, "w") as f:
        f.write("#" + "x" * 5000 + "\n")
    code, out, err = fleet_bounded(clean, "--nodes", big)
    check(code == 2 and "line 1: over 4096 bytes" in err, f"a --nodes line over 4096 bytes: exit 2 ({code}, {err!r})")
    # /dev/zero: the unfixed getline grew one line without end (run last for that reason).
    code, out, err = fleet_bounded(clean, "--nodes", "/dev/zero", timeout=10)
    check(code == 2 and err == "rocdoc: fleet --nodes: /dev/zero: a character device; give a file of node names\n",
          f"fleet --nodes /dev/zero: exit 2 at once ({code}, {err!r})")

results.finish()
