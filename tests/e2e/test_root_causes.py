"""One cause, one finding, and structured fixes, on every fixture's JSON report (issue 9, 2).

For every fixture under tests/fixtures/:
- each id in a finding's caused_by names a check that is a finding (fail or warn) of the same
  report, and following caused_by never loops;
- summary.root_causes counts the errors and warnings whose caused_by is empty;
- every fix has a valid kind, fix_order is steps or alternatives, a fix without a command is
  manual, and a command that is a container runtime flag (--group-add, --device, --ipc,
  --shm-size, -v) is kind container_flag;
- no fix command appears under two root causes (a finding's fixes belong to its root cause).

On the fixtures of the UX review's D13 (one cause, several errors), the exact counts.
"""
import os
import sys

from common import FIXTURES, Results, report

binary = sys.argv[1]
results = Results()

KINDS = {"shell", "container_flag", "kernel_argument", "file_edit", "manual"}
CONTAINER_FLAGS = ("--group-add", "--device", "--ipc", "--shm-size", "-v ")

# fixture: (errors, warnings, root_causes, {finding: caused_by})
EXPECTED = {
    "user-needs-relogin": (3, 0, 1, {"perm.kfd": ["perm.relogin"], "perm.render": ["perm.relogin"]}),
    "user-not-in-render": (2, 0, 1, {"perm.render": ["perm.kfd"]}),
    "sudo-user-not-in-render": (2, 0, 1, {"perm.render": ["perm.kfd"]}),
    "container-groups-missing": (
        3, 1, 2,
        {"perm.kfd": ["perm.container-groups"], "perm.render": ["perm.container-groups"]}),
    # --deep recorded: HIP finds no device because /dev/kfd does not open (caused_by perm.kfd).
    "deep-container-groups-missing": (
        4, 1, 2,
        {"perm.kfd": ["perm.container-groups"], "perm.render": ["perm.container-groups"],
         "runtime.hip-init": ["perm.kfd"]}),
    "rootless-distrobox-nogroup": (
        3, 0, 1,
        {"perm.kfd": ["perm.container-groups"], "perm.render": ["perm.container-groups"]}),
    "amdgpu-blacklisted": (2, 0, 1, {"gpu.not-bound": ["driver.amdgpu-missing"]}),
    "amdgpu-not-loaded": (2, 0, 1, {"gpu.not-bound": ["driver.amdgpu-missing"]}),
    "apu-no-kfd-node-only-gpu": (3, 0, 2, {"driver.kfd-unusable": ["rocm.agents"]}),
    "rx7600-torch26": (2, 0, 1, {"torch.arch-missing": ["arch.unsupported"]}),
    "rx6700xt-override-10-3-1": (2, 0, 1, {"arch.override-wrong": ["arch.unsupported"]}),
    "per-node-override-rocm62": (2, 0, 1, {"arch.unsupported": ["arch.override-wrong"]}),
    # A cause is at least as severe as what follows from it (issue 22, N17): gpu.igpu-visible,
    # whose fix clears an error, is an error (was a warning over an error child).
    "igpu-and-dgpu": (2, 0, 1, {"arch.unsupported": ["gpu.igpu-visible"]}),
    "igpu-dgpu-global-override": (
        2, 2, 2,
        {"arch.override-wrong": ["gpu.igpu-visible"],
         "arch.override-mixed": ["arch.override-unneeded"]}),
}


def is_finding(check):
    return check["status"] in ("fail", "warn")


def root_of(check, by_id):
    seen = set()
    while check["caused_by"]:
        if check["id"] in seen:
            return None  # a cycle
        seen.add(check["id"])
        check = by_id[check["caused_by"][0]]
    return check["id"]


fixtures = sorted(name for name in os.listdir(FIXTURES)
                  if os.path.isfile(os.path.join(FIXTURES, name, "rocdoc-snapshot.json")))
results.check(len(fixtures) > 50, f"fixtures found ({len(fixtures)})")
for name in fixtures:
    code, document, stderr = report(binary, "--root", os.path.join(FIXTURES, name))
    results.check(code in (0, 1), f"{name}: exit {code} ({stderr.strip()})")
    checks = document["checks"]
    findings = {c["id"]: c for c in checks if is_finding(c)}
    for check in checks:
        causes = check["caused_by"]
        results.check(not causes or is_finding(check),
                      f"{name}: {check['id']} ({check['status']}) names a cause {causes}")
        for cause in causes:
            results.check(cause in findings,
                          f"{name}: {check['id']} is caused by {cause}, not a finding here")
            results.check(cause != check["id"], f"{name}: {check['id']} causes itself")
        results.check(check["fix_order"] in ("steps", "alternatives"),
                      f"{name}: {check['id']} fix_order {check['fix_order']!r}")
        for fix in check["fix"]:
            command = fix["command"] or ""
            results.check(fix["kind"] in KINDS, f"{name}: {check['id']}: kind {fix['kind']!r}")
            if not command:
                results.check(fix["kind"] == "manual",
                              f"{name}: {check['id']}: a fix without a command is {fix['kind']}")
            if command.startswith(CONTAINER_FLAGS):
                results.check(fix["kind"] == "container_flag",
                              f"{name}: {check['id']}: {command!r} is {fix['kind']}")
            if fix["kind"] == "container_flag":
                results.check(command.startswith("--") or command.startswith("-v "),
                              f"{name}: {check['id']}: container flag {command!r}")
            for key in ("needs_root", "needs_reboot", "needs_relogin"):
                results.check(isinstance(fix[key], bool), f"{name}: {check['id']}: {key}")
            if command.startswith("sudo usermod -aG "):
                results.check(fix["needs_relogin"], f"{name}: usermod needs a new login")
    roots = {}
    for check in findings.values():
        root = root_of(check, findings)
        results.check(root is not None, f"{name}: caused_by of {check['id']} loops")
        for fix in check["fix"]:
            if fix["command"]:
                roots.setdefault(fix["command"], set()).add(root)
    for command, owners in roots.items():
        results.check(len(owners) == 1,
                      f"{name}: {command!r} is printed under {len(owners)} root causes "
                      f"({', '.join(sorted(str(o) for o in owners))})")
    summary = document["summary"]
    problems = [c for c in checks if c["status"] == "fail" or
                (c["status"] == "warn" and c["severity"] != "info")]
    results.check(summary["root_causes"] == sum(1 for c in problems if not c["caused_by"]),
                  f"{name}: summary.root_causes {summary['root_causes']}")
    if name in EXPECTED:
        errors, warnings, root_causes, links = EXPECTED[name]
        got = (summary["errors"], summary["warnings"], summary["root_causes"])
        results.check(got == (errors, warnings, root_causes),
                      f"{name}: errors/warnings/root causes {got}, expected "
                      f"{(errors, warnings, root_causes)}")
        linked = {c["id"]: c["caused_by"] for c in checks if c["caused_by"]}
        results.check(linked == links, f"{name}: caused_by {linked}, expected {links}")

results.check(set(EXPECTED) <= set(fixtures), "every fixture of the expectations exists")
results.finish()
