"""The built binary on every fixture: exit codes, JSON schema, colour rules, bad input."""
import json
import os
import pty
import subprocess
import sys
import tempfile

from common import FIXTURES, SOURCE_DIR, Results, report, run, validate

binary = sys.argv[1]
results = Results()

for name in sorted(os.listdir(FIXTURES)):
    directory = os.path.join(FIXTURES, name)
    expect_path = os.path.join(directory, "expect.json")
    if not os.path.exists(expect_path):
        continue
    with open(expect_path) as f:
        expect = json.load(f)
    code, document, stderr = report(binary, "--root", directory, *expect.get("args", []))
    results.check(code == expect["exit"], f"{name}: exit {code}, expected {expect['exit']}")
    error = validate(document)
    results.check(error is None, f"{name}: report matches docs/report.schema.json: {error}")
    fired = {c["id"] for c in document["checks"] if c["status"] in ("fail", "warn")}
    wanted = set(expect["fail"]) | set(expect["warn"]) | set(expect["info"])
    results.check(fired == wanted, f"{name}: findings {sorted(fired)}, expected {sorted(wanted)}")
    for check in document["checks"]:
        if check["status"] == "fail":
            results.check(check["fix"] or check["id"] == "gpu.none", f"{name}: {check['id']} names a fix")

# Names of GPUs come from pci.ids, read by rocdoc (only the vendor's block) where it is a plain
# file, as libpci names them.
_, mixed, _ = report(binary, "--root", os.path.join(FIXTURES, "amd-and-nvidia"))
nvidia = [d for d in mixed["facts"]["pci"]["devices"] if d["gpu"] == "nvidia"]
pci_ids_file = os.path.isfile("/usr/share/misc/pci.ids") and not os.path.exists("/usr/share/misc/pci.ids.gz")
results.check(mixed["facts"]["pci"]["names_from"] == ("pci.ids" if pci_ids_file else "libpci"),
              f"PCI names come from pci.ids: {mixed['facts']['pci']['names_from']}")
results.check(nvidia and "AD102" in nvidia[0]["device_name"], f"pci.ids names the RTX 4090: {nvidia}")

# Without libpci and pci.ids (hidden in a private mount namespace) rocdoc still works and says
# so; without libpci alone, pci.ids still names the GPUs.
HIDE_LIBPCI = ('lib=$(readlink -f "$(ldconfig -p | sed -n "s/.*libpci.so.3 .*=> //p" | head -n1)") && '
               'mount --bind /dev/null "$lib" && ')
HIDE_PCI_IDS = 'for f in /usr/share/misc/pci.ids /usr/share/hwdata/pci.ids /usr/share/pci.ids; do ' \
               '[ -e "$f" ] && mount --bind /dev/null "$f"; done; '


def without(hide):
    return subprocess.run(
        ["unshare", "-m", "sh", "-c", hide + 'exec "$0" check --json --root "$1"',
         binary, os.path.join(FIXTURES, "nvidia-only")],
        capture_output=True, text=True)


only_ids = without(HIDE_LIBPCI)
if pci_ids_file and only_ids.returncode in (0, 1) and only_ids.stdout.startswith("{"):
    pci = json.loads(only_ids.stdout)["facts"]["pci"]
    results.check(pci["names_from"] == "pci.ids" and pci["names_problem"] is None,
                  f"without libpci: pci.ids names the GPUs: {pci['names_from']}, {pci['names_problem']}")
    gpus = [d for d in pci["devices"] if d["gpu"] == "nvidia"]
    results.check(gpus and gpus[0]["device_name"].startswith("GA100"), f"without libpci: named {gpus}")
hidden = without(HIDE_PCI_IDS + HIDE_LIBPCI)
if hidden.returncode in (0, 1) and hidden.stdout.startswith("{"):
    without = json.loads(hidden.stdout)
    results.check(hidden.returncode == 1, "without libpci: still exits 1 for gpu.none")
    results.check("libpci.so.3" in (without["facts"]["pci"]["names_problem"] or ""),
                  f"without libpci: the report says why names are missing: {without['facts']['pci']}")
    gpus = [d for d in without["facts"]["pci"]["devices"] if d["gpu"] == "nvidia"]
    results.check(len(gpus) == 2 and gpus[0]["vendor_name"] == "NVIDIA Corporation",
                  f"without libpci: the NVIDIA GPUs are still found and named by vendor: {gpus}")
else:
    print(f"SKIPPED: cannot hide libpci here (unshare -m failed: {hidden.stderr.strip()})")

# Without any pci.ids (an empty directory mounted over each place), libpci could name nothing:
# it is not loaded at all, and the report says why the names are missing.
NO_PCI_IDS = ('for d in /usr/share/misc /usr/share/hwdata; do [ -d "$d" ] && mount -t tmpfs none "$d"; '
              'done; ')
if not os.path.exists("/usr/share/pci.ids"):
    no_ids = subprocess.run(
        ["unshare", "-m", "sh", "-c", NO_PCI_IDS + 'exec strace -f -e trace=openat -o /dev/stderr "$0" '
         'check --json --root "$1"', binary, os.path.join(FIXTURES, "nvidia-only")],
        capture_output=True, text=True)
    if no_ids.returncode in (0, 1) and no_ids.stdout.startswith("{"):
        pci = json.loads(no_ids.stdout)["facts"]["pci"]
        results.check(pci["names_from"] == "rules only" and
                      (pci["names_problem"] or "").startswith("no pci.ids in /usr/share/misc"),
                      f"without pci.ids: the report says why names are missing: {pci}")
        results.check("libpci" not in no_ids.stderr, "without pci.ids: libpci is not loaded")
        gpus = [d for d in pci["devices"] if d["gpu"] == "nvidia"]
        results.check(len(gpus) == 2 and gpus[0]["vendor_name"] == "NVIDIA Corporation",
                      f"without pci.ids: the NVIDIA GPUs are named by vendor: {gpus}")
    else:
        print(f"SKIPPED: cannot hide pci.ids here: {no_ids.stderr.strip()[:300]}")

# --fail-on.
pcie = os.path.join(FIXTURES, "pcie-link-degraded")
results.check(run(binary, "check", "--root", pcie).returncode == 0, "a warning alone exits 0 by default")
results.check(run(binary, "check", "--root", pcie, "--fail-on", "warning").returncode == 1,
              "--fail-on warning turns a warning into exit 1")
results.check(run(binary, "check", "--root", os.path.join(FIXTURES, "nvidia-only"), "--fail-on", "never").returncode == 0,
              "--fail-on never exits 0")

# Bad input: exit 2 with the problem named.
with tempfile.TemporaryDirectory() as bad:
    proc = run(binary, "check", "--root", bad)
    results.check(proc.returncode == 2 and "rocdoc-snapshot.json" in proc.stderr,
                  f"missing manifest: exit 2 naming the file ({proc.returncode}, {proc.stderr!r})")
    with open(os.path.join(bad, "rocdoc-snapshot.json"), "w") as f:
        f.write("not json")
    proc = run(binary, "check", "--root", bad)
    results.check(proc.returncode == 2 and "not valid JSON" in proc.stderr, f"not JSON: exit 2 ({proc.stderr!r})")
proc = run(binary, "check", "--only", "gpu.nnoe")
results.check(proc.returncode == 2 and "did you mean gpu.none?" in proc.stderr, f"did-you-mean ({proc.stderr!r})")


def on_terminal(*args, env):
    """Runs rocdoc with stdout on a pseudo-terminal; returns what it printed."""
    merged = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "CLICOLOR_FORCE")}
    merged.update(env)
    leader, follower = pty.openpty()
    proc = subprocess.Popen([binary, *args], stdout=follower, stderr=subprocess.DEVNULL, env=merged)
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
    return output.decode()


healthy = os.path.join(FIXTURES, "rx7900xtx-healthy")
results.check("\033[" in on_terminal("check", "--root", healthy, env={"TERM": "xterm"}), "colour on a terminal")
results.check("\033[" not in on_terminal("check", "--root", healthy, env={"TERM": "xterm", "NO_COLOR": "1"}),
              "no colour with NO_COLOR")
results.check("\033[" not in on_terminal("check", "--root", healthy, "--no-color", env={"TERM": "xterm"}),
              "no colour with --no-color")
results.check("\033[" not in run(binary, "check", "--root", healthy).stdout, "no colour into a pipe")


# Hostile --rules DIR (issue 8, item 7): exit 2 and one printable line naming the file.
def lint_rules(files, fifo=None):
    with tempfile.TemporaryDirectory() as rules_dir:
        for name, content in files.items():
            with open(os.path.join(rules_dir, name), "w") as f:
                f.write(content)
        if fifo:
            os.mkfifo(os.path.join(rules_dir, fifo))
        return run(binary, "rules", "lint", rules_dir)


for what, files, fifo, expected in [
        ("unknown file", {"foo.yaml": "a: 1\n"}, None, "foo.yaml:0:0: not a rules file"),
        ("FIFO", {}, "wsl.yaml", "wsl.yaml:0:0: not a regular file (a FIFO)"),
        ("over 1 MiB", {"torch.yaml": "releases: []\n#" + " " * (1 << 20)}, None, "at most 1048576 bytes"),
        ("duplicate key", {"revision.yaml": 'revision: "2026-11-26"\nrevision: "2026-11-27"\n'}, None,
         'revision.yaml:2:1: duplicate key "revision" (first at line 1)'),
        ("control bytes", {"revision.yaml": 'revision: "\x1b[2J\x1b]8;;http://x\x07"\n'}, None,
         'not "\\x1b[2J\\x1b]8;;http://x\\x07"')]:
    proc = lint_rules(files, fifo)
    results.check(proc.returncode == 2 and expected in proc.stderr and proc.stderr.count("\n") == 1
                  and "\x1b" not in proc.stderr and proc.stdout == "",
                  f"--rules with a bad {what}: exit 2, one printable line ({proc.returncode}, {proc.stderr!r})")

# rocdoc topology (issue 25): every fixture's --json validates against docs/topology.schema.json;
# the 8-GPU matrix fits 80 columns, in ASCII under the C locale; bad arguments are exit 2.
TOPOLOGY_SCHEMA = os.path.join(SOURCE_DIR, "docs", "topology.schema.json")
for name in sorted(os.listdir(FIXTURES)):
    if not os.path.exists(os.path.join(FIXTURES, name, "expect.json")):
        continue
    proc = run(binary, "topology", "--root", os.path.join(FIXTURES, name), "--json")
    results.check(proc.returncode == 0, f"topology {name}: exit {proc.returncode}: {proc.stderr!r}")
    if proc.returncode == 0:
        error = validate(json.loads(proc.stdout), TOPOLOGY_SCHEMA)
        results.check(error is None, f"topology {name}: matches docs/topology.schema.json: {error}")
eight = subprocess.run([binary, "topology", "--root", os.path.join(FIXTURES, "mi300x-xgmi-link-down")],
                       capture_output=True, text=True, env=dict(os.environ, LC_ALL="C", LANG="C"))
results.check(eight.returncode == 0 and all(len(line) <= 80 for line in eight.stdout.splitlines()[:9])
              and eight.stdout.isascii() and "SYS!" in eight.stdout,
              f"topology of 8 GPUs: 80 columns, ASCII under LC_ALL=C: {eight.stdout[:300]!r}")
for args, needle in [(["--root", "/nonexistent-rocdoc"], "rocdoc: topology --root"),
                     (["--root", FIXTURES, "--snapshot", "x.tar.gz"], "give one"),
                     (["--bogus"], "--bogus")]:
    proc = run(binary, "topology", *args)
    results.check(proc.returncode == 2 and needle in proc.stderr and proc.stdout == "",
                  f"topology {args}: exit 2 with {needle!r} ({proc.returncode}, {proc.stderr!r})")

results.finish()
