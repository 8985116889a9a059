"""Nothing from the inspected machine (or a --rules directory) reaches the terminal raw.

Hostile snapshots put clear-screen and cursor-home sequences, OSC 8 hyperlinks, BEL, CR, a
newline followed by a fake report line, the C1 control CSI (U+009B), invalid UTF-8 and a
right-to-left override (U+202E) into PRETTY_NAME, the kernel release, a group name, environment
values (HSA_OVERRIDE_GFX_VERSION, HIP_VISIBLE_DEVICES, PYTORCH_ROCM_ARCH, ROCM_PATH),
.info/version, a driver link, a modprobe.d file name and line, a DKMS directory and the
snapshot directory's own name. For the human report and `-v`, without colour
and with colour forced (CLICOLOR_FORCE=1):

- no byte below 0x20 but '\\n', no DEL, no C1 control, no U+202E, valid UTF-8;
- with colour, the only escape sequences are the renderer's own SGR ones (ESC [ ... m);
- as many lines as a twin snapshot whose hostile characters are all replaced by '#' (the same
  verdicts, nothing hostile): no line was forged or swallowed.

A manifest key, and a device node's errno string, with a newline and escapes make the run
fail: the error is exactly one line of plain text on stderr. `rules show` and `rules lint` on a hostile --rules directory, likewise.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from common import FIXTURES, SOURCE_DIR, Results

binary = sys.argv[1]
results = Results()

ESC = "\x1b"
# Values that a manifest (JSON, always valid UTF-8) can carry.
JSON_PAYLOAD = (f"{ESC}[2J{ESC}[H{ESC}]8;;https://evil.example/\x07click here{ESC}]8;;\x07\x07"
                f"\r\nFAKE-LINE ✓ all good\n\u009b31m\u202eevil\x7f")
# A value inside a text file: no line break; invalid UTF-8, C1 and U+202E as raw bytes.
FILE_PAYLOAD = (f"{ESC}[2J{ESC}[H{ESC}]8;;evil.example\x07click here{ESC}]8;;\x07\x07\r".encode()
                + b"\xc2\x9b31m\xe2\x80\xaeevil\xff\xfe\x7f")
# A file or link name: no '/', and a newline is allowed.
NAME_PAYLOAD = f"{ESC}[2J{ESC}]8;;evil\x07x{ESC}]8;;\x07\nFAKE\u009b\u202e"

SGR = re.compile(rb"\x1b\[[0-9;]*m")


def twin(value):
    """The same value with every character that is not printable ASCII replaced by '#'."""
    if isinstance(value, bytes):
        return bytes(b if 0x20 <= b < 0x7f else ord("#") for b in value)
    return "".join(c if 0x20 <= ord(c) < 0x7f else "#" for c in value)


def run(*args, color):
    # No COLUMNS: a wrapped report would break the escaped (longer) values at other places
    # than their '#' twins, and the line counts are compared.
    env = {k: v for k, v in os.environ.items()
           if k not in ("NO_COLOR", "CLICOLOR_FORCE", "TERM", "COLUMNS")}
    if color:
        env["CLICOLOR_FORCE"] = "1"
    no_color = [] if color or args[0] != "check" else ["--no-color"]
    proc = subprocess.run([binary, *args, *no_color], capture_output=True, env=env, timeout=60)
    return proc


def bad_bytes(data, color):
    """What is wrong with terminal output; None when nothing is."""
    if color:
        data = SGR.sub(b"", data)
    controls = sorted({b for b in data if (b < 0x20 and b != 0x0a) or b == 0x7f})
    if controls:
        return f"control bytes {[hex(b) for b in controls]}"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        return f"invalid UTF-8: {error}"
    unsafe = sorted({hex(ord(c)) for c in text
                     if 0x80 <= ord(c) <= 0x9f or 0x202a <= ord(c) <= 0x202e or 0x2066 <= ord(c) <= 0x2069})
    return f"unsafe code points {unsafe}" if unsafe else None


def copy_fixture(name, scratch, directory_name):
    d = os.path.join(scratch, name, directory_name)
    shutil.copytree(os.path.join(FIXTURES, name), d, symlinks=True)
    os.remove(os.path.join(d, "expect.json"))
    return d


def edit_file(path, edit):
    with open(path, "rb") as f:
        data = f.read()
    with open(path, "wb") as f:
        f.write(edit(data))


def load(d):
    with open(os.path.join(d, "rocdoc-snapshot.json")) as f:
        return json.load(f)


def save(d, manifest):
    with open(os.path.join(d, "rocdoc-snapshot.json"), "w") as f:
        json.dump(manifest, f)


def healthy_machine(d, text, data, name):
    """full-stack-healthy with hostile values everywhere the report quotes them."""
    root = os.path.join(d, "root")
    edit_file(os.path.join(root, "etc/os-release"),
              lambda b: b.replace(b'PRETTY_NAME="Ubuntu 24.04.2 LTS"', b'PRETTY_NAME="Ubuntu 24.04.2 LTS' + data + b'"'))
    edit_file(os.path.join(root, "etc/group"), lambda b: b.replace(b"\nrender:", b"\nrender" + data + b":"))
    edit_file(os.path.join(root, "opt/rocm-6.4.2/.info/version"), lambda b: b.strip() + data + b"\n")
    m = load(d)
    m["uname"]["release"] += text
    m["identity"]["groups"] = [g for g in m["identity"]["groups"] if g["gid"] != 110]
    m["nodes"]["/dev/kfd"].update({"access": "none", "errno": "EACCES"})
    m["env"].update({"HSA_OVERRIDE_GFX_VERSION": "11.0.0" + text, "HIP_VISIBLE_DEVICES": "0" + text,
                     "PYTORCH_ROCM_ARCH": "gfx90a" + text, "ROCM_PATH": "/opt/x" + text})
    save(d, m)


def blacklisted_machine(d, text, data, name):
    """amdgpu-blacklisted with a hostile modprobe.d file name and line, and driver link."""
    base = os.path.join(d, "root/etc/modprobe.d")
    os.rename(os.path.join(base, "blacklist-amdgpu.conf"), os.path.join(base, "blacklist" + name + ".conf"))
    edit_file(os.path.join(base, "blacklist" + name + ".conf"), lambda b: b.rstrip(b"\n") + b" " + data + b"\n")
    m = load(d)
    m["links"]["/sys/bus/pci/devices/0000:03:00.0/driver"] = "../../../../bus/pci/drivers/vfio" + name
    save(d, m)


def dkms_machine(d, text, data, name):
    """dkms-not-built-for-hwe-kernel with a hostile DKMS directory and kernel release."""
    base = os.path.join(d, "root/var/lib/dkms/amdgpu")
    os.rename(os.path.join(base, "6.12.12-2164967.24.04"), os.path.join(base, "6.12.12" + name))
    m = load(d)
    m["uname"]["release"] += text
    save(d, m)


SCENARIOS = [
    ("full-stack-healthy", healthy_machine),
    ("amdgpu-blacklisted", blacklisted_machine),
    ("dkms-not-built-for-hwe-kernel", dkms_machine),
]

with tempfile.TemporaryDirectory() as scratch:
    for fixture, build in SCENARIOS:
        hostile = copy_fixture(fixture, scratch, "snap" + NAME_PAYLOAD)
        build(hostile, JSON_PAYLOAD, FILE_PAYLOAD, NAME_PAYLOAD)
        plain = copy_fixture(fixture, scratch, "snap" + twin(NAME_PAYLOAD))
        build(plain, twin(JSON_PAYLOAD), twin(FILE_PAYLOAD), twin(NAME_PAYLOAD))
        for verbose in ([], ["-v"]):
            for color in (False, True):
                what = f"{fixture} {' '.join(verbose)} {'colour' if color else 'no colour'}"
                out = run("check", "--root", hostile, *verbose, color=color)
                reference = run("check", "--root", plain, *verbose, color=color)
                results.check(out.returncode in (0, 1), f"{what}: exit {out.returncode}: {out.stderr!r}")
                results.check(bad_bytes(out.stdout, color) is None, f"{what}: {bad_bytes(out.stdout, color)}")
                results.check(color or b"\x1b" not in out.stdout, f"{what}: an escape without colour")
                results.check(b"\\x1b[2J" in out.stdout, f"{what}: the hostile values are shown, escaped")
                lines, twin_lines = out.stdout.count(b"\n"), reference.stdout.count(b"\n")
                results.check(lines == twin_lines, f"{what}: {lines} lines, the twin prints {twin_lines}")
                results.check(not re.search(rb"(^|\n)\s*FAKE", out.stdout), f"{what}: a forged line")
                if color:
                    results.check(SGR.search(out.stdout) is not None, f"{what}: colour is on")

    # One line of plain text on stderr for an error that quotes hostile input.
    for name, nodes in [
        ("a node key", {"/dev/kfd" + JSON_PAYLOAD: {"type": "pipe" + JSON_PAYLOAD}}),
        ("an errno", {"/dev/kfd": {"type": "char", "mode": "0660", "access": "none",
                                   "errno": "EIO" + JSON_PAYLOAD}}),
    ]:
        broken = os.path.join(scratch, "broken " + name + NAME_PAYLOAD)
        os.makedirs(os.path.join(broken, "root"))
        with open(os.path.join(broken, "rocdoc-snapshot.json"), "w") as f:
            json.dump({"format": "rocdoc-snapshot/1", "nodes": nodes}, f)
        for color in (False, True):
            proc = run("check", "--root", broken, color=color)
            results.check(proc.returncode == 2, f"{name} with escapes: exits 2: {proc.returncode}")
            results.check(proc.stderr.count(b"\n") == 1 and proc.stderr.endswith(b"\n"),
                          f"{name} with escapes: the error is one line: {proc.stderr!r}")
            results.check(bad_bytes(proc.stderr, False) is None,
                          f"{name} with escapes: the error is plain text: {proc.stderr!r}")

    # A hostile --rules directory: rules show and rules lint.
    rules = os.path.join(scratch, "rules")
    shutil.copytree(os.path.join(SOURCE_DIR, "rules"), rules)
    yaml_payload = json.dumps(JSON_PAYLOAD)  # a JSON string is a YAML double-quoted scalar
    path = os.path.join(rules, "gfx_targets.yaml")
    with open(path) as f:
        targets = f.read()
    hostile_targets = re.sub(r"(?m)^(\s*source: )(.*)$", lambda m: m.group(1) + json.dumps(m.group(2).strip('"') + JSON_PAYLOAD),
                             targets, count=1)
    results.check(hostile_targets != targets, "a source line of gfx_targets.yaml was made hostile")
    plain_rules = os.path.join(scratch, "plain-rules")
    shutil.copytree(rules, plain_rules)
    with open(path, "w") as f:
        f.write(hostile_targets)
    with open(os.path.join(plain_rules, "gfx_targets.yaml"), "w") as f:
        f.write(re.sub(r"(?m)^(\s*source: )(.*)$", lambda m: m.group(1) + json.dumps(m.group(2).strip('"') + twin(JSON_PAYLOAD)),
                       targets, count=1))
    first = re.search(r"(?m)^\s*-?\s*name: (\S+)", targets).group(1).strip('"')
    out = run("rules", "show", "--rules", rules, first, color=False)
    reference = run("rules", "show", "--rules", plain_rules, first, color=False)
    results.check(out.returncode == 0, f"rules show {first} on hostile rules: {out.returncode} {out.stderr!r}")
    results.check(bad_bytes(out.stdout, False) is None, f"rules show: {bad_bytes(out.stdout, False)}")
    results.check(b"\\x1b[2J" in out.stdout, f"rules show prints the hostile source, escaped: {out.stdout!r}")
    results.check(out.stdout.count(b"\n") == reference.stdout.count(b"\n"), "rules show: no forged line")

    with open(path, "w") as f:
        f.write(targets.replace("family: ", "family: " + yaml_payload + " #", 1))
    proc = run("rules", "lint", rules, color=False)
    results.check(proc.returncode == 2, f"rules lint of a hostile family exits 2: {proc.returncode}")
    results.check(proc.stderr.count(b"\n") == 1 and bad_bytes(proc.stderr, False) is None,
                  f"its error is one line of plain text: {proc.stderr!r}")

results.finish()
