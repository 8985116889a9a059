"""`rocdoc check --format markdown` read back by a real Markdown parser, and `rocdoc explain`.

The Markdown report of every fixture is parsed with markdown-it-py (Debian's
python3-markdown-it: CommonMark with GitHub's tables) and its structure asserted: one
verdict heading, the sections, a GPU table with one row per GPU of the JSON inventory, a table
with one row per check, every fix command of a root cause exactly the content of a fenced
block, and the facts in a <details> block whose JSON is the `facts` of `check --json`.

Hostile snapshots plant `|`, backticks, `<script>`, `</details>`, `&`, emphasis, link syntax,
newlines followed by a fake heading, table and list, and leading spaces into the os-release
PRETTY_NAME, the kernel release, a group name, a Python environment's path and environment
values. Their reports must have the structure of a twin snapshot whose hostile characters are
all replaced by '#' (no heading, table, fence, list or HTML block added or removed), no raw
HTML but rocdoc's own <details>, and show the hostile text as text.

`rocdoc explain` must explain every id of `rocdoc list-checks --json` (exit 0, each part
non-empty), in each format; an unknown id is exit 2 with a suggestion; a planned id is exit 2
and says it is planned.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from markdown_it import MarkdownIt  # Debian: python3-markdown-it, a test dependency

from common import FIXTURES, Results, run

binary = sys.argv[1]
results = Results()
parser = MarkdownIt("commonmark").enable("table")


def plain(inline):
    """What an inline token shows: its text and code, entities and escapes resolved."""
    parts = []
    for child in inline.children or []:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append("\n")
    return "".join(parts)


def structure(text):
    """The blocks of a Markdown text, as markdown-it-py parses it."""
    tokens = parser.parse(text)
    found = {"headings": [], "tables": [], "fences": [], "html": [], "html_inline": 0,
             "lists": 0, "paragraph_texts": []}
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.type == "heading_open":
            found["headings"].append((token.tag, plain(tokens[i + 1])))
        elif token.type == "table_open":
            table = {"header": [], "rows": [], "after": found["headings"][-1][1] if found["headings"] else ""}
            row = None
            j = i + 1
            in_body = False
            while tokens[j].type != "table_close":
                t = tokens[j]
                if t.type == "tbody_open":
                    in_body = True
                elif t.type == "tr_open":
                    row = []
                elif t.type == "tr_close":
                    (table["rows"] if in_body else table["header"]).append(row)
                elif t.type == "inline":
                    row.append(plain(t))
                j += 1
            found["tables"].append(table)
            i = j
        elif token.type == "fence":
            found["fences"].append((token.info, token.content))
        elif token.type == "code_block":
            found["fences"].append(("<indented>", token.content))
        elif token.type == "html_block":
            found["html"].append(token.content)
        elif token.type in ("bullet_list_open", "ordered_list_open"):
            found["lists"] += 1
        elif token.type == "inline":
            found["html_inline"] += sum(1 for c in token.children or [] if c.type == "html_inline")
            if tokens[i - 1].type == "paragraph_open":
                found["paragraph_texts"].append(plain(token))
        i += 1
    return found


OWN_HTML = re.compile(r"^(<details>\n<summary>[^<]*(<code>[^<]*</code>[^<]*)*</summary>|</details>)\n*$")


def roots(report):
    """The findings that follow from no other finding of the report."""
    findings = {c["id"] for c in report["checks"] if c["status"] in ("fail", "warn")}
    return [c for c in report["checks"]
            if c["status"] in ("fail", "warn") and not any(cause in findings for cause in c["caused_by"])]


def check_markdown(what, text, report, exit_code, same_facts=True):
    """Structure of one Markdown report against the JSON report of the same input."""
    s = structure(text)
    h1 = [h for level, h in s["headings"] if level == "h1"]
    results.check(len(h1) == 1 and h1[0].startswith("rocdoc: " + report["verdict"] + " ("),
                  f"{what}: one verdict heading: {h1}")
    h2 = [h for level, h in s["headings"] if level == "h2"]
    for section in ("Inventory", "Summary", "Checks", "Facts"):
        results.check(section in h2, f"{what}: a '{section}' section: {h2}")
    problems = [c for c in roots(report) if c["status"] == "fail" or c["severity"] != "info"]
    results.check(("Problems" in h2) == bool(problems), f"{what}: 'Problems' iff problems: {h2}")
    # One h3 per root cause, nothing else at level 3 or below.
    # Problems first, then notices, each in report order.
    ordered = problems + [c for c in roots(report) if c not in problems]
    h3 = [h for level, h in s["headings"] if level == "h3"]
    results.check(len(h3) == len(ordered), f"{what}: {len(h3)} root-cause headings, {len(ordered)} root causes")
    results.check(all(level in ("h1", "h2", "h3") for level, _ in s["headings"]), f"{what}: heading levels")
    for heading, root in zip(h3, ordered):
        # The id and what was found (issue 22, N28: not the check's pass title, "ROCm installed").
        # The id, never the check's pass title ("ROCm installed" over a finding that it is
        # not: issue 22, N28).
        results.check(f" {root['id']} (" in heading and root["title"] not in heading,
                      f"{what}: heading {heading!r} names {root['id']}, not its title")

    # The inventory's GPU table, and the table of every check.
    gpus = report["inventory"]["gpus"]
    declared = report["host"].get("assumed_gpus", [])
    gpu_tables = [t for t in s["tables"] if t["after"] == "Inventory"]
    if gpus or declared:
        results.check(len(gpu_tables) == 1, f"{what}: one GPU table ({len(gpu_tables)})")
        if gpu_tables:
            rows = gpu_tables[0]["rows"]
            width = 4 if declared else 6
            expected = declared if declared else gpus
            results.check(len(rows) == len(expected), f"{what}: {len(rows)} GPU rows for {len(expected)} GPUs")
            results.check(all(len(r) == width for r in rows), f"{what}: {width} cells in every GPU row: {rows}")
            if not declared:
                for row, gpu in zip(rows, gpus):
                    results.check(row[1] == (gpu["name"] or "AMD GPU") and row[2] == (gpu["gfx_target"] or "unknown")
                                  and row[3] == (gpu["bdf"] or "—"),
                                  f"{what}: GPU row {row} is {gpu}")
                    # The memory cell says what the JSON's inventory memory holds, and nothing when unknown.
                    vram = gpu["memory"]["vram_total"]
                    results.check((row[5] == "unknown") == (vram is None and gpu["memory"]["gtt_total"] is None)
                                  and (vram is None or row[5].startswith("VRAM ")),
                                  f"{what}: memory cell {row[5]!r} for {gpu['memory']}")
    else:
        results.check(not gpu_tables, f"{what}: no GPU table without GPUs")
    check_tables = [t for t in s["tables"] if t["after"] == "Checks"]
    results.check(len(check_tables) == 1, f"{what}: one table of checks")
    if check_tables:
        rows = check_tables[0]["rows"]
        results.check([r[0] for r in rows] == [c["id"] for c in report["checks"]] and all(len(r) == 3 for r in rows),
                      f"{what}: one row of 3 cells per check")
        for row, check in zip(rows, report["checks"]):
            # A message that needs no escape for a terminal is shown exactly, '|' and all.
            if len(row) == 3 and not any(ord(c) < 0x20 or 0x7f <= ord(c) <= 0x9f for c in check["message"]):
                results.check(row[2] == check["message"], f"{what}: {check['id']}'s message cell: {row[2]!r}")
    results.check(len(s["tables"]) == len(gpu_tables) + len(check_tables), f"{what}: no other table")

    # Fixes: each command of a root cause is exactly the content of one fence.
    fences = [content for info, content in s["fences"] if info in ("sh", "text")]
    for root in roots(report):
        for fix in root["fix"]:
            if fix["command"] is not None and "\\" not in json.dumps(fix["command"]):
                results.check(fix["command"] + "\n" in fences, f"{what}: {root['id']}: a fence holds {fix['command']!r}")
    commands = {f["command"] + "\n" for c in report["checks"] for f in c["fix"] if f["command"] is not None}
    shell = [content for info, content in s["fences"] if info == "sh"]
    results.check(all(content in commands for content in shell), f"{what}: every sh fence is a fix command")
    results.check(not any(info == "<indented>" for info, _ in s["fences"]), f"{what}: no indented code block")

    # The facts: a <details> block whose JSON is what `check --json` reports.
    results.check(all(OWN_HTML.match(block) for block in s["html"]), f"{what}: only rocdoc's own HTML: {s['html']}")
    results.check(sum(block.startswith("<details>") for block in s["html"]) == 2
                  and sum(block.startswith("</details>") for block in s["html"]) == 2, f"{what}: two <details> blocks")
    results.check(s["html_inline"] == 0, f"{what}: no inline HTML")
    facts = [content for info, content in s["fences"] if info == "json"]
    results.check(len(facts) == 1, f"{what}: one json fence")
    if facts:
        facts = json.loads(facts[0])
        results.check(facts == report["facts"] if same_facts else facts.keys() == report["facts"].keys(),
                      f"{what}: the JSON in <details> is the facts of --json")
        results.check(text.rstrip().endswith("</details>"), f"{what}: the facts close the report")
    return s


def markdown_and_json(args, expect_exit=None):
    proc = run(binary, "check", *args, "--format", "markdown")
    rc, report = None, None
    j = run(binary, "check", *args, "--json")
    if j.returncode in (0, 1):
        rc, report = j.returncode, json.loads(j.stdout)
    results.check(proc.returncode == rc, f"{args}: markdown exit {proc.returncode}, json exit {rc}: {proc.stderr[:300]!r}")
    results.check(proc.stderr == "", f"{args}: nothing on stderr: {proc.stderr[:300]!r}")
    return proc.stdout, report, proc.returncode


# ---- every fixture -----------------------------------------------------------------------
fixtures = sorted(d for d in os.listdir(FIXTURES) if os.path.exists(os.path.join(FIXTURES, d, "rocdoc-snapshot.json")))
results.check(len(fixtures) > 50, f"{len(fixtures)} fixtures")
for name in fixtures:
    d = os.path.join(FIXTURES, name)
    with open(os.path.join(d, "expect.json")) as f:
        expect = json.load(f)
    text, report, rc = markdown_and_json(["--root", d, *expect.get("args", [])])
    results.check(rc == expect["exit"], f"{name}: exit {rc}, expected {expect['exit']}")
    if report is not None:
        check_markdown(name, text, report, rc)

# --output writes the Markdown; --json beside --format markdown is a usage error.
with tempfile.TemporaryDirectory() as scratch:
    d = os.path.join(FIXTURES, "user-not-in-render")
    out = os.path.join(scratch, "report.md")
    proc = run(binary, "check", "--root", d, "--format", "markdown", "--output", out)
    results.check(proc.returncode == 1 and proc.stdout == "", f"--output: exit 1, nothing on stdout ({proc.returncode})")
    with open(out) as f:
        written = f.read()
    results.check(written.startswith("# rocdoc: fail (") and "```sh\nsudo usermod -aG render" in written,
                  f"--output holds the Markdown report: {written[:200]!r}")
for args, needle in [(["--json", "--format", "markdown"], "check --format: --json is short for --format json"),
                     (["--format", "human", "--json"], "check --format: --json is short for --format json"),
                     (["--format", "markdwn"], "check --format: 'markdwn' is not human, json, markdown, slurm, prometheus or npd; did you mean markdown?"),
                     (["--format", "yaml"], "check --format: 'yaml' is not human, json, markdown, slurm, prometheus or npd\n")]:
    proc = run(binary, "check", "--root", os.path.join(FIXTURES, "full-stack-healthy"), *args)
    results.check(proc.returncode == 2 and proc.stdout == "", f"{args}: exit 2 ({proc.returncode})")
    results.check(proc.stderr.startswith("rocdoc: " + needle.rstrip("\n")) and proc.stderr.endswith("Run 'rocdoc check --help' for usage.\n")
                  and proc.stderr.count("\n") == 2, f"{args}: one line and the hint: {proc.stderr!r}")
proc = run(binary, "check", "--root", os.path.join(FIXTURES, "full-stack-healthy"), "--json", "--format", "json")
results.check(proc.returncode == 0 and json.loads(proc.stdout)["schema"] == "rocdoc-report/1", "--json --format json agree")

# ---- hostile values ------------------------------------------------------------------------
PAYLOAD = ("| x | `y` ``` <script>alert(1)</script> </details> & &amp; *em* _u_ [l](http://e.x) \\"
           "\n# FAKE-HEADING\n| a | b |\n|---|---|\n- item\n<details>\n    code\n```\n~~~")
# A file or directory name: no '/' (a newline is allowed).
NAME_PAYLOAD = PAYLOAD.replace("/", "%")
# A line of a text file (os-release, /etc/group): no newline.
LINE_PAYLOAD = PAYLOAD.replace("\n", " ")


def twin(value):
    return "".join(c if c.isalnum() or c in " .-" else "#" for c in value)


def build_hostile(d, text, line, name):
    root = os.path.join(d, "root")
    path = os.path.join(root, "etc/os-release")
    with open(path) as f:
        data = f.read()
    with open(path, "w") as f:
        f.write(data.replace('PRETTY_NAME="Ubuntu 24.04.2 LTS"', 'PRETTY_NAME="Ubuntu 24.04.2 LTS ' + line.replace('"', "'") + '"'))
    path = os.path.join(root, "etc/group")
    with open(path) as f:
        data = f.read()
    with open(path, "w") as f:
        f.write(data.replace("\nrender:", "\nrender" + line.replace(":", ";") + ":"))
    venv = "/home/alice/venv" + name
    os.rename(os.path.join(root, "home/alice/venv"), root + venv)
    with open(os.path.join(d, "rocdoc-snapshot.json")) as f:
        m = json.load(f)
    m["uname"]["release"] += text
    m["identity"]["groups"] = [g for g in m["identity"]["groups"] if g["gid"] != 110]
    m["nodes"]["/dev/kfd"].update({"access": "none", "errno": "EACCES"})
    m["env"]["VIRTUAL_ENV"] = venv
    m["env"]["PATH"] = m["env"]["PATH"].replace("/home/alice/venv", venv)
    m["env"].update({"HSA_OVERRIDE_GFX_VERSION": "11.0.0" + text, "HIP_VISIBLE_DEVICES": "0" + text,
                     "ROCM_PATH": "/opt/x" + text})
    with open(os.path.join(d, "rocdoc-snapshot.json"), "w") as f:
        json.dump(m, f)


def shape(s):
    return {"headings": [level for level, _ in s["headings"]],
            "tables": [(len(t["header"][0]), len(t["rows"])) for t in s["tables"]],
            "fences": [info for info, _ in s["fences"]], "html": len(s["html"]), "lists": s["lists"]}


with tempfile.TemporaryDirectory() as scratch:
    base = os.path.join(FIXTURES, "full-stack-healthy")
    hostile = os.path.join(scratch, "hostile")
    plain_dir = os.path.join(scratch, "plain")
    for d, args in ((hostile, (PAYLOAD, LINE_PAYLOAD, NAME_PAYLOAD)),
                    (plain_dir, (twin(PAYLOAD), twin(LINE_PAYLOAD), twin(NAME_PAYLOAD)))):
        shutil.copytree(base, d, symlinks=True)
        os.remove(os.path.join(d, "expect.json"))
        build_hostile(d, *args)
    text, report, rc = markdown_and_json(["--root", hostile])
    twin_text, twin_report, _ = markdown_and_json(["--root", plain_dir])
    if report is not None and twin_report is not None:
        results.check([(c["id"], c["status"]) for c in report["checks"]] == [(c["id"], c["status"]) for c in twin_report["checks"]],
                      "hostile and twin: the same verdicts")
        s = check_markdown("hostile", text, report, rc)
        t = check_markdown("twin", twin_text, twin_report, rc)
        results.check(shape(s) == shape(t), f"hostile: the twin's structure:\n{shape(s)}\n{shape(t)}")
        results.check(not any("FAKE" in h for _, h in s["headings"]), "hostile: no forged heading")
        shown = "\n".join(s["paragraph_texts"]) + "".join(c for t_ in s["tables"] for r in t_["rows"] for c in r)
        results.check("<script>alert(1)</script> </details>" in shown, "hostile: the values are shown as text")
        results.check("Ubuntu 24.04.2 LTS | x | `y`" in shown, "hostile: PRETTY_NAME shown whole")
        # Outside code blocks, no value is pasted raw.
        outside = re.sub(r"(?ms)^(`{3,})[a-z]*\n.*?^\1\n", "", text)
        outside = re.sub(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", "", outside)
        results.check("<script>" not in outside and "| x |" not in outside and "`y`" not in outside,
                      "hostile: outside code blocks no value is pasted raw")

# ---- the live machine ------------------------------------------------------------------------
proc = run(binary, "check", "--format", "markdown")
j = run(binary, "check", "--json")
results.check(proc.returncode in (0, 1) and proc.returncode == j.returncode, f"live: exit {proc.returncode}: {proc.stderr[:300]!r}")
if proc.returncode in (0, 1) and j.returncode in (0, 1):
    live = json.loads(j.stdout)
    # Two runs on a live machine may see it change in between: the facts' keys are compared.
    check_markdown("live", proc.stdout, live, proc.returncode, same_facts=False)

# ---- explain ----------------------------------------------------------------------------------
listed = json.loads(run(binary, "list-checks", "--json").stdout)
results.check(len(listed) > 30, f"{len(listed)} checks listed")
# What, why and the fix first (as rustc --explain), then the exact verdicts, then the sources.
PARTS = ["What it looks at", "Why it matters", "How to fix it", "When it passes, warns, fails or skips", "Sources"]
# What users do not have: the project's internal notes, its test fixtures, its code's types.
INTERNAL = re.compile(r"anchors §|knowledge base §|knowledge-base\.md|shared/|CHECKS\.md|SNAPSHOT-FORMAT|"
                      r"fix-4|OverrideProblem|fixture|<!--")
# The fixtures' own names (those of three words or more: "rx6700xt-no-override", not "wsl2").
FIXTURE_NAMES = re.compile(r"(?<![\w./-])(" + "|".join(
    re.escape(name) for name in sorted(os.listdir(FIXTURES), key=len, reverse=True) if name.count("-") >= 2)
    + r")(?![\w-])")
for check in listed:
    proc = run(binary, "explain", check["id"])
    results.check(proc.returncode == 0 and proc.stderr == "", f"explain {check['id']}: exit {proc.returncode} {proc.stderr!r}")
    lines = proc.stdout.split("\n")
    results.check(lines[0] == f"{check['id']}: {check['title']}", f"explain {check['id']}: first line {lines[0]!r}")
    results.check(f"default severity {check['severity']}" in lines[1] and check["area"] in lines[1],
                  f"explain {check['id']}: area and severity: {lines[1]!r}")
    needs = f"needs the probes {', '.join(check['needs'])}" if check["needs"] else "needs no probe"
    results.check(needs in proc.stdout, f"explain {check['id']}: needs")
    for part in PARTS:
        results.check(part in lines, f"explain {check['id']}: a '{part}' part")
        if part in lines:
            body = lines[lines.index(part) + 1]
            results.check(body.startswith("  ") and body.strip() != "", f"explain {check['id']}: '{part}' is not empty: {body!r}")
    results.check(not re.search(r"\]\(|\*\*", proc.stdout), f"explain {check['id']}: no Markdown link or bold syntax left")
    internal = INTERNAL.findall(proc.stdout) + FIXTURE_NAMES.findall(proc.stdout)
    results.check(not internal, f"explain {check['id']}: cites nothing users lack: {internal}")
    j = run(binary, "explain", check["id"], "--json")
    doc = json.loads(j.stdout) if j.returncode == 0 else {}
    results.check(doc.get("id") == check["id"] and all(doc.get(k) for k in ("looks_at", "why", "verdicts", "fix", "markdown")),
                  f"explain {check['id']} --json: every part")
    results.check(not INTERNAL.findall(j.stdout), f"explain {check['id']} --json: cites nothing users lack")
    m = run(binary, "explain", check["id"], "--format", "markdown")
    s = structure(m.stdout) if m.returncode == 0 else {"headings": []}
    results.check([h for level, h in s["headings"] if level == "h3"][:4] == PARTS[:4] and s["headings"][0][1].startswith(check["id"] + " — "),
                  f"explain {check['id']} --format markdown: its headings: {s['headings'][:6]}")

gpu_none = run(binary, "explain", "gpu.none").stdout
results.check("ROCm/cvs: https://github.com/ROCm/cvs" in gpu_none, "explain gpu.none: its section's link is a source")
arch = run(binary, "explain", "arch.unsupported").stdout
results.check("gfx targets (rules/gfx_targets.yaml, " in arch and "torvalds/linux:drivers/gpu/drm/amd/amdkfd/kfd_device.c" in arch,
              "explain arch.unsupported: the sources of the rules it reads")
p2p = run(binary, "explain", "topology.p2p")
results.check(p2p.returncode == 0 and "GPUs reach each other directly" in p2p.stdout and "About the Multi-GPU checks" in p2p.stdout,
              f"explain topology.p2p: built (issue 25), with its area's text: {p2p.stdout[:200]!r}")
perm = run(binary, "explain", "perm.kfd").stdout
results.check("About the Permissions checks" in perm and "    sudo usermod -aG render,video '<USER>'" in perm,
              "explain perm.kfd: the area's shared fixes, code indented")
for args, needle in [(["perm.kdf"], "rocdoc: explain: unknown check id 'perm.kdf'; did you mean perm.kfd?\n"),
                     (["nothing.like.it"], "rocdoc: explain: unknown check id 'nothing.like.it'; rocdoc list-checks lists them\n"),
                     ([], "rocdoc: explain: say which check to explain"),
                     (["gpu.none", "--format", "jsn"], "rocdoc: explain --format: 'jsn' is not human, json, markdown, slurm, prometheus or npd; did you mean json?\n"),
                     (["gpu.none", "--json", "--format", "markdown"], "rocdoc: explain --format: --json is short for --format json")]:
    proc = run(binary, "explain", *args)
    results.check(proc.returncode == 2 and proc.stdout == "", f"explain {args}: exit 2 ({proc.returncode})")
    results.check(proc.stderr.startswith(needle), f"explain {args}: {proc.stderr!r}")
help_text = run(binary, "explain", "--help")
results.check(help_text.returncode == 0 and "Exit codes:" in help_text.stdout and "planned check" in help_text.stdout,
              f"explain --help has its exit codes: {help_text.stdout[-300:]!r}")
results.check("explain" in run(binary, "--help").stdout, "rocdoc --help lists explain")
results.check("did you mean explain?" in run(binary, "explian", "gpu.none").stderr, "explian: did you mean explain?")

# Colour as check has it (N26): bold headings where CLICOLOR_FORCE asks, none into a pipe or with
# --no-color.
forced_env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
forced_env["CLICOLOR_FORCE"] = "1"
forced = subprocess.run([binary, "explain", "perm.kfd"], capture_output=True, text=True, env=forced_env).stdout
results.check("\x1b[1mperm.kfd: /dev/kfd read-write\x1b[0m" in forced and "\x1b[1mHow to fix it\x1b[0m" in forced,
              f"explain: bold title and headings with CLICOLOR_FORCE: {forced[:200]!r}")
plain = subprocess.run([binary, "explain", "--no-color", "perm.kfd"], capture_output=True, text=True, env=forced_env).stdout
results.check("\x1b" not in plain and "\x1b" not in run(binary, "explain", "perm.kfd").stdout,
              "explain: no colour with --no-color or into a pipe")

results.finish()
