#!/usr/bin/env python3
"""Records what rocdoc prints for every test input, so that a change meant to keep behaviour
(a file move, a split, a refactor) can be proven to keep it: record before, record after, diff.

    scripts/record-outputs.py BINARY OUTDIR        writes one file per command into OUTDIR
    diff -r BEFORE AFTER                           must print nothing

Recorded, for every fixture of tests/fixtures/: check --json, the human report at 80 columns
(-v too), --format markdown|prometheus|slurm|npd, and --junit. Then triage of every
tests/triage/*.log (human, --json, markdown), targets of Debian's ROCm libraries (the test
dependencies), fleet over the reports recorded above, rules show and rules lint, explain of
every check id (text, --json, markdown), list-checks, each command's help, the completion
scripts. Each file holds the exit code, standard output and standard error.

Only what changes from run to run is masked: the version string (it names the commit), the
report's creation time, probe durations and the time of the Prometheus sample.
"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

MASKS = [
    (re.compile(r"rocdoc \d+\.\d+\.\d+ \(commit [0-9a-f]{12}(-dirty)?|commit [0-9a-f]{12}(-dirty)?"),
     "rocdoc VERSION"),
    (re.compile(r'"created": "[^"]*"'), '"created": "TIME"'),
    (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"), "TIME"),
    (re.compile(r"/tmp/rocdoc-record-[^/]+"), "WORK"),
    (re.compile(r'"duration_ms": [0-9.e+-]+'), '"duration_ms": 0'),
    (re.compile(r'time="[0-9.]+"'), 'time="0"'),
    (re.compile(r"timestamp=\"[^\"]*\""), 'timestamp="TIME"'),
    (re.compile(r"^(rocdoc_last_run_timestamp_seconds(\{[^}]*\})?) [0-9.e+]+$", re.M), r"\1 TIME"),
    (re.compile(r'"commit": "[0-9a-f]{12}(-dirty)?"'), '"commit": "COMMIT"'),
    (re.compile(r"\"version\": \"\d+\.\d+\.\d+ \([^\"]*\)\""), '"version": "VERSION"'),
    (re.compile(r"rocdoc_build_info\{[^}]*\}"), "rocdoc_build_info{VERSION}"),
]


def mask(text):
    for pattern, replacement in MASKS:
        text = pattern.sub(replacement, text)
    return text


def run(binary, args, out_dir, name, env_extra=None, stdin=None):
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "COLUMNS": "80",
           "NO_COLOR": "1", "HOME": "/nonexistent"}
    env.update(env_extra or {})
    proc = subprocess.run([binary] + args, capture_output=True, env=env, input=stdin, timeout=120)
    stdout = proc.stdout.decode("utf-8", "replace")
    stderr = proc.stderr.decode("utf-8", "replace")
    text = f"$ rocdoc {' '.join(args)}\nexit {proc.returncode}\n--- stdout\n{stdout}\n--- stderr\n{stderr}"
    with open(os.path.join(out_dir, name), "w") as f:
        f.write(mask(text))
    return proc


def safe(name):
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)


def record_fixtures(binary, out_dir, work):
    reports = os.path.join(work, "reports")
    os.makedirs(reports)
    for fixture in sorted(glob.glob(os.path.join(ROOT, "tests/fixtures/*/"))):
        name = os.path.basename(fixture.rstrip("/"))
        rel = os.path.relpath(fixture, ROOT)
        proc = run(binary, ["check", "--root", rel, "--json"], out_dir, f"check.{name}.json")
        if proc.returncode in (0, 1):
            with open(os.path.join(reports, f"{name}.json"), "wb") as f:
                f.write(proc.stdout)
        run(binary, ["check", "--root", rel], out_dir, f"check.{name}.human")
        run(binary, ["check", "--root", rel, "-v"], out_dir, f"check.{name}.verbose")
        for fmt in ("markdown", "prometheus", "slurm", "npd"):
            run(binary, ["check", "--root", rel, "--format", fmt], out_dir, f"check.{name}.{fmt}")
        junit = os.path.join(work, "junit.xml")
        run(binary, ["check", "--root", rel, "--junit", junit], out_dir, f"check.{name}.junit-run")
        if os.path.exists(junit):
            with open(junit) as f, open(os.path.join(out_dir, f"check.{name}.junit"), "w") as o:
                o.write(mask(f.read()))
            os.remove(junit)
    return reports


def record_triage(binary, out_dir):
    for log in sorted(glob.glob(os.path.join(ROOT, "tests/triage/*.log"))):
        name = os.path.basename(log)
        rel = os.path.relpath(log, ROOT)
        run(binary, ["triage", rel], out_dir, f"triage.{name}.human")
        run(binary, ["triage", rel, "--json"], out_dir, f"triage.{name}.json")
        run(binary, ["triage", rel, "--format", "markdown"], out_dir, f"triage.{name}.markdown")
        with open(log, "rb") as f:
            run(binary, ["triage"], out_dir, f"triage.{name}.stdin", stdin=f.read())


def record_targets(binary, out_dir):
    libraries = sorted(set(glob.glob("/usr/lib/x86_64-linux-gnu/librocsparse.so.*.*") +
                           glob.glob("/usr/lib/x86_64-linux-gnu/librocrand.so.*.*") +
                           glob.glob("/usr/lib/x86_64-linux-gnu/libamdhip64.so.*.*")))
    regressions = sorted(glob.glob(os.path.join(ROOT, "tests/fuzz/regressions/offload_bundle/*")))
    files = libraries + [os.path.relpath(p, ROOT) for p in regressions]
    for path in files:
        name = safe(os.path.basename(path))
        run(binary, ["targets", path], out_dir, f"targets.{name}.human")
        run(binary, ["targets", "--json", path], out_dir, f"targets.{name}.json")
    if files:
        run(binary, ["targets"] + files, out_dir, "targets.all.human")


def record_fleet(binary, out_dir, reports):
    now = ["--now", "2026-12-05T00:00:00Z"]
    run(binary, ["fleet", reports] + now, out_dir, "fleet.human")
    run(binary, ["fleet", reports, "--json"] + now, out_dir, "fleet.json")
    run(binary, ["fleet", reports, "--format", "markdown"] + now, out_dir, "fleet.markdown")


def record_rules(binary, out_dir):
    queries = ["gfx1100", "gfx942", "gfx1030", "gfx1151", "gfx906", "gfx1035", "gfx1201", "gfx803",
               "1002:744c", "744c", "RX 7900 XTX", "MI300X", "torch 2.5", "torch 2.9.1",
               "torch 2.15", "6.4", "7.0", "7.14", "10.2", "6.2.4", "nonsense-query"]
    for query in queries:
        run(binary, ["rules", "show"] + query.split(), out_dir, f"rules.show.{safe(query)}")
        run(binary, ["rules", "show", "--json", query], out_dir, f"rules.show.{safe(query)}.json")
    run(binary, ["rules", "show"], out_dir, "rules.show.none")
    run(binary, ["rules", "lint"], out_dir, "rules.lint")


def record_explain(binary, out_dir):
    listing = run(binary, ["list-checks", "--json"], out_dir, "list-checks.json")
    run(binary, ["list-checks"], out_dir, "list-checks")
    ids = [c["id"] for c in json.loads(listing.stdout)] if listing.returncode == 0 else []
    for check_id in ids + ["torch.not-foun", "no-such-id"]:
        run(binary, ["explain", check_id], out_dir, f"explain.{check_id}")
        run(binary, ["explain", check_id, "--json"], out_dir, f"explain.{check_id}.json")
        run(binary, ["explain", check_id, "--format", "markdown"], out_dir, f"explain.{check_id}.md")


def record_help(binary, out_dir):
    commands = ["check", "rules", "snapshot", "triage", "targets", "fleet", "list-checks",
                "explain", "completions"]
    run(binary, ["--help"], out_dir, "help")
    run(binary, ["--version"], out_dir, "version")
    run(binary, [], out_dir, "no-arguments.exit-only")
    for command in commands:
        run(binary, [command, "--help"], out_dir, f"help.{command}")
        run(binary, ["help", command], out_dir, f"help.help-{command}")
    for args in (["rules", "show", "--help"], ["rules", "lint", "--help"], ["chek"], ["check", "--bogus"],
                 ["check", "--only", "torch.not-foun"], ["check", "--format", "yaml"], ["triage", "--bogus"],
                 ["fleet"], ["targets"], ["explain"], ["check", "--root"], ["check", "--gpu", "gfx9999"],
                 ["check", "--sysroot", "/nonexistent"], ["snapshot", "--bogus"], ["completions", "tcsh"]):
        run(binary, args, out_dir, "args." + safe("_".join(args)))
    for shell in ("bash", "zsh", "fish"):
        run(binary, ["completions", shell], out_dir, f"completions.{shell}")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    binary = os.path.abspath(sys.argv[1])
    out_dir = os.path.abspath(sys.argv[2])
    os.makedirs(out_dir, exist_ok=True)
    os.chdir(ROOT)
    with tempfile.TemporaryDirectory(prefix="rocdoc-record-") as work:
        reports = record_fixtures(binary, out_dir, work)
        record_triage(binary, out_dir)
        record_targets(binary, out_dir)
        record_fleet(binary, out_dir, reports)
        record_rules(binary, out_dir)
        record_explain(binary, out_dir)
        record_help(binary, out_dir)
    print(f"{len(os.listdir(out_dir))} outputs in {out_dir}")


if __name__ == "__main__":
    main()
