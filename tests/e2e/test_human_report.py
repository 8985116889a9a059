"""The human report as people read and paste it (issue 9, section 3; docs/rocdoc.1.md,
"Reading the report"):

- wrapping at the terminal's width (a pseudo-terminal whose size is set with TIOCSWINSZ, or
  COLUMNS) with hanging indentation; no line over the width except a fix command, printed whole
  so that a copy of it runs, or a single word longer than the width; no wrapping into a pipe;
- ASCII glyphs under a locale that is not UTF-8 (LC_ALL=C, LANG=en_US.ISO-8859-1, none set),
  Unicode under C.UTF-8;
- an inventory first (GPU, gfx target, ROCm, torch, Python), "container (docker)" in the header;
- a check line leads with its message and never reads "✓ gpu.none  1 AMD GPU found"; areas
  with nothing wrong are one line unless -v;
- "Nothing could be checked" when no selected check ran (exit 0);
- one root cause printed once with what follows from it under it, and no fix command printed
  twice in any fixture's report.
"""
import fcntl
import json
import os
import pty
import re
import struct
import subprocess
import sys
import termios

from common import FIXTURES, Results

binary = sys.argv[1]
results = Results()

SGR = re.compile(r"\x1b\[[0-9;]*m")
TOOL_VARIABLES = ("NO_COLOR", "CLICOLOR_FORCE", "COLUMNS", "LANG", "LC_ALL", "LC_CTYPE", "TERM")


def environment(**extra):
    env = {k: v for k, v in os.environ.items() if k not in TOOL_VARIABLES}
    env.update(extra)
    return env


def piped(*args, **extra):
    """rocdoc with stdout on a pipe: (exit code, stdout bytes)."""
    proc = subprocess.run([binary, *args], capture_output=True, env=environment(**extra), timeout=60)
    return proc.returncode, proc.stdout


def text(*args, **extra):
    code, out = piped(*args, **extra)
    return code, out.decode("utf-8")


def on_terminal(*args, columns=None, **extra):
    """rocdoc with stdout on a pseudo-terminal of `columns` (None: a size never set, 0x0)."""
    leader, follower = pty.openpty()
    if columns is not None:
        fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    proc = subprocess.Popen([binary, *args], stdout=follower, stderr=subprocess.DEVNULL,
                            env=environment(**extra))
    os.close(follower)
    output = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        output += chunk
    proc.wait(timeout=60)
    os.close(leader)
    return SGR.sub("", output.decode("utf-8").replace("\r\n", "\n"))


def fixture(name):
    return os.path.join(FIXTURES, name)


def fixtures():
    return sorted(name for name in os.listdir(FIXTURES) if os.path.isfile(os.path.join(FIXTURES, name, "rocdoc-snapshot.json")))


def fix_commands(name, *args):
    """The fix commands of a fixture's report, from its JSON."""
    proc = subprocess.run([binary, "check", "--root", fixture(name), "--json", *args],
                          capture_output=True, env=environment(), timeout=60)
    report = json.loads(proc.stdout)
    return {fix["command"] for check in report["checks"] for fix in check.get("fix", []) if fix.get("command")}


def long_lines(output, width, commands):
    """Lines wider than `width` that are neither a fix command nor one unbreakable word."""
    return [line for line in output.split("\n")
            if len(line) > width and line.strip() not in commands and " " in line.strip()
            and not line.strip().startswith("rocdoc check --only ")]  # a verify command


UTF8 = {"LANG": "C.UTF-8"}

# ---- wrapping --------------------------------------------------------------------------

for name in ["rx6700xt-no-override", "amdgpu-blacklisted", "container-groups-missing",
             "rx7600-torch26", "igpu-dgpu-global-override", "uv-managed-python-torch"]:
    commands = fix_commands(name)
    for verbose in ([], ["-v"]):
        what = f"{name} {' '.join(verbose)} at 80 columns"
        out = on_terminal("check", "--root", fixture(name), *verbose, columns=80, NO_COLOR="1", **UTF8)
        results.check(out.count("\n") > 10, f"{what}: a report: {out!r}")
        too_long = long_lines(out, 80, commands)
        results.check(not too_long, f"{what}: lines over 80 columns: {too_long}")

out = on_terminal("check", "--root", fixture("rx6700xt-no-override"), columns=80, NO_COLOR="1", **UTF8)
lines = out.split("\n")
first = next((i for i, line in enumerate(lines) if line.startswith("  ✗ no code for gfx1031")), None)
results.check(first is not None, f"the arch.unsupported line leads with its message: {out}")
if first is not None:
    # The message continues under its first word (4 columns), then its evidence at 6.
    results.check(re.match(r"^    \S", lines[first + 1]) is not None,
                  f"a hanging indent under the message: {lines[first + 1]!r}")
    message_end = next(i for i in range(first, len(lines)) if "[arch.unsupported]" in lines[i])
    results.check(message_end > first, "the 276-column line was wrapped")
    results.check(all(re.match(r"^    \S", line) for line in lines[first + 1:message_end + 1]),
                  f"every continuation line of the message is indented 4: {lines[first:message_end + 1]}")
    # A fix command is whole on its own line, however long.
    pip = [line for line in lines if "pip install" in line]
    results.check(len(pip) == 1 and len(pip[0]) > 80 and pip[0].startswith("          '/home/alice/venv/bin/python3' -m pip install"),
                  f"the pip line is whole, indented under its fix: {pip}")
longest = max(len(line) for line in lines)
results.check(longest < 276, f"nothing reaches 276 columns: {longest}")

out = on_terminal("check", "--root", fixture("rx6700xt-no-override"), columns=60, NO_COLOR="1", **UTF8)
results.check(not long_lines(out, 60, fix_commands("rx6700xt-no-override")),
              f"a 60-column terminal is followed: {long_lines(out, 60, fix_commands('rx6700xt-no-override'))}")
out = on_terminal("check", "--root", fixture("rx6700xt-no-override"), columns=None, NO_COLOR="1", **UTF8)
results.check(not long_lines(out, 80, fix_commands("rx6700xt-no-override")),
              "a terminal that tells no size gets 80 columns")
out = on_terminal("check", "--root", fixture("rx6700xt-no-override"), columns=200, NO_COLOR="1", COLUMNS="70", **UTF8)
results.check(not long_lines(out, 70, fix_commands("rx6700xt-no-override")), "COLUMNS wins over the terminal's width")

_, piped_out = text("check", "--root", fixture("rx6700xt-no-override"), **UTF8)
results.check(max(len(line) for line in piped_out.split("\n")) > 200, "a pipe is not wrapped")
_, piped_out = text("check", "--root", fixture("rx6700xt-no-override"), COLUMNS="80", **UTF8)
results.check(not long_lines(piped_out, 80, fix_commands("rx6700xt-no-override")), "COLUMNS=80 wraps a pipe")
_, piped_out = text("check", "--root", fixture("rx6700xt-no-override"), COLUMNS="wide", **UTF8)
results.check(max(len(line) for line in piped_out.split("\n")) > 200, "a COLUMNS that is not a number is ignored")

# Every fixture, with and without -v, at 80 columns: no line too long, and (one run for both, a
# fifth of this test's time under the sanitizers) no fix command printed twice.
for name in fixtures():
    commands = fix_commands(name)
    for verbose in ([], ["-v"]):
        _, out = text("check", "--root", fixture(name), *verbose, COLUMNS="80", **UTF8)
        too_long = long_lines(out, 80, commands)
        results.check(not too_long, f"{name} {' '.join(verbose)}: lines over 80 columns: {too_long}")
        lines = [line.strip() for line in out.split("\n")]
        twice = [command for command in commands if lines.count(command) > 1]
        results.check(not twice, f"{name} {' '.join(verbose)}: fix commands printed twice: {twice}")

# ---- glyphs and the locale -------------------------------------------------------------

for locale in [{"LC_ALL": "C"}, {"LANG": "en_US.ISO-8859-1"}, {"LC_ALL": "POSIX", "LANG": "C.UTF-8"},
               {"LC_CTYPE": "C", "LANG": "C.UTF-8"}, {}]:
    for name in ["user-needs-relogin", "full-stack-healthy", "container-groups-missing", "wsl2-healthy"]:
        for verbose in ([], ["-v"]):
            _, out = piped("check", "--root", fixture(name), *verbose, **locale)
            high = sorted({b for b in out if b >= 0x80})
            results.check(not high, f"{name} {verbose} under {locale}: bytes >= 0x80: {[hex(b) for b in high]}")
_, out = text("check", "--root", fixture("container-groups-missing"), LC_ALL="C")
results.check("[FAIL] " in out and "[ok]   " in out and "[warn] " in out and "[info] " in out,
              f"ASCII glyphs under LC_ALL=C: {out}")
results.check(out.split("\n")[0].startswith("rocdoc ") and " - container (docker) - " in out.split("\n")[0],
              f"the header's separators are ASCII: {out.splitlines()[0]}")
for locale in [{"LANG": "C.UTF-8"}, {"LC_ALL": "en_US.UTF-8"}, {"LC_CTYPE": "C.utf8", "LANG": "C"},
               {"LC_ALL": "", "LANG": "C.UTF-8"}]:
    _, out = text("check", "--root", fixture("container-groups-missing"), **locale)
    results.check("✗ " in out and "✓ " in out and " · " in out and "[FAIL]" not in out,
                  f"Unicode glyphs under {locale}")

# The variables read for the layout steer rocdoc's own output only: never in a report.
proc = subprocess.run([binary, "check", "--json"], capture_output=True, timeout=60,
                      env=environment(LANG="C.UTF-8", LC_ALL="C.UTF-8", LC_CTYPE="C.UTF-8", COLUMNS="80"))
variables = json.loads(proc.stdout)["facts"]["env"]
results.check(not set(variables) & {"LANG", "LC_ALL", "LC_CTYPE", "COLUMNS"},
              f"the locale and COLUMNS are not reported: {sorted(variables)}")

# ---- inventory and header --------------------------------------------------------------

_, out = text("check", "--root", fixture("full-stack-healthy"), **UTF8)
lines = out.split("\n")
head = "\n".join(lines[:lines.index("")]) if "" in lines else out
for fact in ["Radeon RX 7900 XTX", "gfx1100", "0000:03:00.0", "amdgpu", "Ubuntu 24.04.2 LTS",
             "kernel 6.8.0-64-generic", "ROCm    6.4.2", "/opt/rocm-6.4.2", "Python  3.12",
             "/home/alice/venv", "torch 2.7.1+rocm6.3", "ROCm build", "pytorch.org wheel"]:
    results.check(fact in head, f"the inventory before the checks names {fact!r}: {head}")
results.check(len(head.split("\n")) <= 8, f"the inventory is a few lines: {head}")

for name in ["container-groups-missing", "cuda-wheel-image"]:
    _, out = text("check", "--root", fixture(name), **UTF8)
    header = out.split("\n")[0]
    results.check("container (docker)" in header, f"{name}: the header says container (docker): {header!r}")
_, out = text("check", "--root", fixture("full-stack-healthy"), **UTF8)
results.check("container" not in out.split("\n")[0], "no container in a bare-metal header")
_, out = text("check", "--root", fixture("wsl2-healthy"), **UTF8)
results.check("WSL2" in out.split("\n")[0], f"WSL2 in the header: {out.splitlines()[0]}")

_, out = text("check", "--root", fixture("mi300x-healthy"), **UTF8)
results.check("8 x Instinct MI300X · gfx942" in out, f"eight identical GPUs share a line: {out}")

# ---- check lines and areas -------------------------------------------------------------

contradiction = re.compile(r"^\s*(✓|✗|!|•|-|\[ok\]|\[FAIL\]|\[warn\]|\[info\])\s+[a-z]+\.[a-z0-9-]+  ", re.M)
for name in fixtures():
    _, out = text("check", "--root", fixture(name), "-v", **UTF8)
    found = contradiction.findall(out)
    results.check(not found, f"{name}: a check line starts with its id: {found}")

_, out = text("check", "--root", fixture("full-stack-healthy"), **UTF8)
results.check("✓ Kernel driver: 4 checks passed, 4 skipped" in out.split("\n"), f"a healthy area is one line: {out}")
# Nothing found: the next step and where to report (issue 23 §5).
results.check(out.rstrip("\n").split("\n")[-1].startswith(
    "Still a problem? Run `rocdoc check --deep --smoke` (it loads the GPU runtime, runs work on "
    "each GPU and runs torch on them), then `rocdoc snapshot --redact`, and report it with that "
    "file: https://github.com/ROCm/ROCm/issues"),
    f"a report without findings ends with the next step: {out}")
# After a root cause's fixes: the command that shows they worked, for it and what follows from it.
_, verify_out = text("check", "--root", fixture("deep-container-groups-missing"), **UTF8)
results.check("      verify: rocdoc check --only perm.container-groups,perm.kfd,perm.render,"
              "runtime.hip-init --deep" in verify_out.split("\n"), f"a root cause's verify line: {verify_out}")
_, verify_out = text("check", "--root", fixture("deep-container-groups-missing"), COLUMNS="80", **UTF8)
results.check("        rocdoc check --only perm.container-groups,perm.kfd,perm.render,"
              "runtime.hip-init --deep" in verify_out.split("\n"), f"a long verify command has its own line: {verify_out}")
results.check("Still a problem?" not in verify_out, "a report with findings has no 'Still a problem?'")
_, verify_json = text("check", "--root", fixture("deep-container-groups-missing"), "--json")
verify_by_id = {c["id"]: c.get("verify") for c in json.loads(verify_json)["checks"]}
results.check(verify_by_id.get("perm.container-groups") == "rocdoc check --only perm.container-groups,perm.kfd,"
              "perm.render,runtime.hip-init --deep" and verify_by_id.get("perm.kfd") is None
              and verify_by_id.get("gpu.none") is None,
              f"the JSON report's verify: the root cause's command, null elsewhere: {verify_by_id}")
_, verify_md = text("check", "--root", fixture("deep-container-groups-missing"), "--format", "markdown")
results.check("**Verify:** `rocdoc check --only perm.container-groups,perm.kfd,perm.render,"
              "runtime.hip-init --deep`" in verify_md.split("\n"), f"Markdown's verify line: {verify_md}")
_, verify_out = text("check", "--root", fixture("gpu-reset-recovered"), **UTF8)
results.check("verify:" not in verify_out, f"no verify line for this boot's past faults: {verify_out}")
results.check("[driver.amdgpu-missing]" not in out and "gpu.none" not in out, "its checks are not listed")
_, out = text("check", "--root", fixture("full-stack-healthy"), "-v", **UTF8)
results.check("  ✓ amdgpu is loaded (initstate live)  [driver.amdgpu-missing]" in out.split("\n"),
              f"-v lists every check, message first: {out}")
results.check("Kernel driver: 4 checks passed" not in out, "-v does not collapse an area")
results.check("  ✓ 1 AMD GPU found  [gpu.none]" in out.split("\n"), "✓ 1 AMD GPU found  [gpu.none]")

# ---- nothing checked -------------------------------------------------------------------

code, out = text("check", "--root", fixture("nvidia-only"), "--only", "torch.cpu-wheel,torch.cuda-wheel", **UTF8)
results.check(code == 0, f"nothing checked is exit 0: {code}")
results.check("No issues found" not in out, f"nothing checked is not 'No issues found': {out}")
results.check("Nothing could be checked: 2 checks skipped (no AMD GPU)" in out.split("\n"),
              f"it says nothing could be checked, and why: {out}")
code, out = text("check", "--root", fixture("user-needs-relogin"), "--only", "perm.kfd", "--skip", "perm.kfd", **UTF8)
results.check(code == 0 and "Nothing could be checked: no check was selected (--only, --skip)" in out,
              f"no check selected: {code} {out}")

# ---- root causes and fixes -------------------------------------------------------------

code, out = text("check", "--root", fixture("user-needs-relogin"), **UTF8)
results.check(code == 1, f"user-needs-relogin exits 1: {code}")
results.check(out.count("newgrp render") == 1, f"newgrp render once: {out}")
results.check(out.count("[perm.kfd]") == 1 and out.count("[perm.render]") == 1,
              f"each consequence is listed once: {out}")
results.check("      also because of this:\n" in out, "the consequences sit under their root cause")
results.check("\n1 problem: 3 errors" in out, f"the summary counts root causes: {out.splitlines()[-1]}")

results.finish()
