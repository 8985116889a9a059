"""check --format npd (issue 13, section 3): Kubernetes node-problem-detector's custom plugin
protocol. NPD is not packaged in Debian, so this test does what NPD does with
contrib/node-problem-detector/rocdoc-plugin-monitor.json: it reads the config with the field
names and types of NPD's Go structs, runs the rule's path and args, and maps the result the way
pkg/custompluginmonitor/plugin/plugin.go does (kubernetes/node-problem-detector@6632ca67):
standard output trimmed (strings.TrimSpace) and cut at max_output_length bytes; exit 0 OK,
1 NonOK, anything else Unknown."""
import json
import os
import re
import sys

from common import FIXTURES, SOURCE_DIR, Results, run

binary = sys.argv[1]
results = Results()
CONFIG = os.path.join(SOURCE_DIR, "contrib", "node-problem-detector", "rocdoc-plugin-monitor.json")
# Go's time.ParseDuration: a sequence of decimal numbers with units.
DURATION = re.compile(r"^(?:[0-9]+(?:\.[0-9]*)?(?:ns|us|µs|ms|s|m|h))+$")
UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1, "m": 60, "h": 3600}


def seconds(duration):
    return sum(float(n) * UNITS[u] for n, u in re.findall(r"([0-9.]+)(ns|us|µs|ms|s|m|h)", duration))


# 1. The config as NPD's types read it: pkg/custompluginmonitor/types/config.go
#    (CustomPluginConfig, pluginGlobalConfig), types.go (CustomRule) and pkg/types/types.go
#    (Condition; Type "temporary" | "permanent").
with open(CONFIG) as f:
    config = json.load(f)
TOP = {"plugin": str, "pluginConfig": dict, "source": str, "conditions": list, "rules": list,
       "metricsReporting": bool}
GLOBAL = {"invoke_interval": "duration", "timeout": "duration", "max_output_length": int,
          "concurrency": int, "enable_message_change_based_condition_update": bool,
          "skip_initial_status": bool}
RULE = {"type": str, "condition": str, "reason": str, "path": str, "args": list,
        "timeout": "duration", "invoke_interval": "duration"}
CONDITION = {"type": str, "status": str, "transition": str, "reason": str, "message": str}


def typed(value, kind):
    if kind == "duration":
        return isinstance(value, str) and DURATION.match(value) is not None
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, kind)


def fields_ok(obj, fields, where):
    results.check(isinstance(obj, dict), f"{where} is an object")
    for key, value in obj.items():
        results.check(key in fields, f"{where}: {key!r} is a field NPD knows")
        if key in fields:
            results.check(typed(value, fields[key]), f"{where}.{key}: {value!r} is a {fields[key]}")


fields_ok(config, TOP, "config")
results.check(config["plugin"] == "custom", "plugin is \"custom\" (Validate: the only one)")
results.check(config["source"] != "", "source is set")
plugin = config["pluginConfig"]
fields_ok(plugin, GLOBAL, "pluginConfig")
results.check(plugin.get("max_output_length") == 80, "max_output_length is 80")
results.check(seconds(plugin["invoke_interval"]) > 0, "invoke_interval > 0 (Validate)")
global_timeout = seconds(plugin.get("timeout", "5s"))
conditions = config["conditions"]
for i, condition in enumerate(conditions):
    fields_ok(condition, CONDITION, f"conditions[{i}]")
condition_types = {c["type"] for c in conditions}
results.check(condition_types == {"RocdocProblem"}, f"one condition, RocdocProblem: {condition_types}")
rules = config["rules"]
results.check({r["type"] for r in rules} == {"temporary", "permanent"},
              "a temporary and a permanent rule, as NPD's own config/custom-plugin-monitor.json")
for i, rule in enumerate(rules):
    fields_ok(rule, RULE, f"rules[{i}]")
    results.check(rule["type"] in ("temporary", "permanent"), f"rules[{i}].type")
    results.check(rule["args"] == ["check", "--format", "npd"], f"rules[{i}].args: {rule['args']}")
    results.check(rule["path"] == "/usr/bin/rocdoc", f"rules[{i}].path is where the .deb installs rocdoc")
    results.check(seconds(rule.get("timeout", "0s")) <= global_timeout,
                  f"rules[{i}]: timeout not above the global one (Validate)")
    if rule["type"] == "permanent":
        results.check(rule.get("condition") in condition_types,
                      f"rules[{i}]: its condition has a preset default (Validate)")


# 2. Run the rule as NPD does; the built binary stands for rule.path.
def invoke(rule, *extra):
    proc = run(binary, *rule["args"], *extra)
    output = proc.stdout.strip()[:plugin.get("max_output_length", 80)]  # plugin.go: TrimSpace, cut
    status = {0: "OK", 1: "NonOK"}.get(proc.returncode, "Unknown")
    return status, output, proc


permanent = next(r for r in rules if r["type"] == "permanent")
status, message, proc = invoke(permanent, "--root", os.path.join(FIXTURES, "full-stack-healthy"))
results.check(status == "OK" and message == "rocdoc: ok" and proc.stdout == "rocdoc: ok\n",
              f"healthy: OK, 'rocdoc: ok' ({status}, {proc.stdout!r})")
status, message, proc = invoke(permanent, "--root", os.path.join(FIXTURES, "user-not-in-render"))
results.check(status == "NonOK" and message == "rocdoc: perm.kfd",
              f"user-not-in-render: NonOK naming its root cause only ({status}, {message!r})")
status, message, proc = invoke(permanent, "--root", os.path.join(FIXTURES, "no-such-fixture"))
results.check(status == "Unknown" and proc.returncode == 2 and proc.stdout == "" and
              proc.stderr.startswith("rocdoc: "),
              f"a bad --root: exit 2, Unknown, nothing on stdout ({proc.returncode}, {proc.stdout!r})")
status, message, proc = invoke(permanent, "--root", os.path.join(FIXTURES, "user-not-in-render"),
                               "--fail-on", "never")
results.check(status == "OK" and message == "rocdoc: ok", f"--fail-on never: OK ({message!r})")

# 3. Every fixture: one line of at most 80 bytes; exit 0 or 1 as --json's; the ids it names are
#    the report's root causes of what fails the gate (failed checks first), with +N more for the rest.
for name in sorted(os.listdir(FIXTURES)):
    root = os.path.join(FIXTURES, name)
    if not os.path.isdir(root):
        continue
    proc = run(binary, "check", "--format", "npd", "--root", root)
    report = json.loads(run(binary, "check", "--json", "--root", root).stdout)
    out = proc.stdout
    raw = out.encode()
    results.check(out.endswith("\n") and out.count("\n") == 1 and len(raw) - 1 <= 80,
                  f"{name}: one line of at most 80 bytes: {out!r}")
    results.check(proc.returncode == report["exit_code"] and proc.returncode in (0, 1),
                  f"{name}: exit {proc.returncode} as --json's {report['exit_code']}")
    line = out.rstrip("\n")
    if proc.returncode == 0:
        results.check(line in ("rocdoc: ok", "rocdoc: ok, but no check could run"), f"{name}: {line!r}")
        continue
    checks = {c["id"]: c for c in report["checks"]}
    failing = [c for c in report["checks"] if c["status"] == "fail"]

    def root_of(check):
        seen = {check["id"]}
        while True:
            causes = [checks[i] for i in check.get("caused_by", [])
                      if i in checks and checks[i]["status"] in ("fail", "warn") and i not in seen]
            if not causes:
                return check
            check = causes[0]
            seen.add(check["id"])

    roots = []
    for check in failing:
        root_id = root_of(check)["id"]
        if root_id not in roots:
            roots.append(root_id)
    roots.sort(key=lambda i: checks[i]["status"] != "fail")
    words = line.removeprefix("rocdoc: ").split(", ")
    more = int(words.pop()[1:].removesuffix(" more")) if words[-1].startswith("+") else 0
    results.check(words == roots[:len(words)] and len(words) + more == len(roots),
                  f"{name}: names {words} +{more} of the root causes {roots}")

results.finish()
