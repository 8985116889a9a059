"""Every pip line rocdoc prints installs wheels that exist for the machine it was printed for.

Every package a fix installs with apt, dnf, zypper or pacman must be one the knowledge base
names for that distribution release (rocm_releases.yaml `installers` steps and
`distribution_packages`).

For every fixture, each fix command with `pip install` is resolved against the knowledge base
(rules/torch.yaml), as pip would resolve it on that machine:

- pytorch.org lines (`torch==X torchvision==Y torchaudio==Z --index-url …/whl/<index>`): the
  release X is in the rules, the index is one of its rocm_indexes, the companions are the
  release's, the environment's CPython version (the report's python_version of the interpreter
  the line runs) has wheels on that index, and the GPU's target is among the index's targets;
- AMD's lines (`--index-url <AMD index> "torch[device-gfxN]==V" …`): the wheel set exists, has
  that device extra and wheels for the Python;
- AMD's companions lines (`--index-url <AMD index> "torchvision[device-gfxN]==V" "torchaudio==W"`,
  put beside the torch of that index): V and W are the set's, the extra is one of the set's;
- AMD's ROCm pip packages (`--index-url <AMD index> "rocm-sdk-device-gfxN==V"` or
  `'rocm[libraries]==X.Y.*'`): that index has a set of that ROCm release (with the device);
- AMD's wheel files by URL (`https://repo.radeon.com/rocm/manylinux/rocm-rel-R/<name>-<version>-
  cpXY-cpXY-linux_x86_64.whl`): the directory and versions are one `radeon_wheels` set's, and the
  files' CPython tag is the environment's and one the set lists.
A `pip uninstall … && pip install …` line is resolved by its install.

A line whose interpreter is a new virtual environment (`~/rocm-venv/bin/python`) is resolved
for the Python that created it: the `python3`/`pythonN.M -m venv` step before it. A line whose
Python version the report does not know is resolved for the target only.

Usage: test_pip_lines.py ROCDOC_BINARY
"""
import json
import os
import re
import shlex
import subprocess
import sys

import yaml

from common import FIXTURES, SOURCE_DIR, Results

binary = sys.argv[1]
results = Results()

with open(os.path.join(SOURCE_DIR, "rules", "torch.yaml"), encoding="utf-8") as f:
    TORCH = yaml.safe_load(f)
with open(os.path.join(SOURCE_DIR, "rules", "rocm_releases.yaml"), encoding="utf-8") as f:
    RELEASES_YAML = yaml.safe_load(f)
RELEASES = {r["torch"]: r for r in TORCH["releases"]}
AMD_SETS = {}  # AMD's index URL -> its wheel sets (one per build: 7.14.0, a 7.14.1 rebuild, ...)
for _set in TORCH.get("amd_wheels", []):
    AMD_SETS.setdefault(_set["index_url"], []).append(_set)
PYTORCH_INDEX = "https://download.pytorch.org/whl/"
RADEON_SETS = TORCH.get("radeon_wheels", [])
RADEON_FILE = re.compile(r"^(https://repo\.radeon\.com/rocm/manylinux/rocm-rel-[0-9.]+/)"
                         r"([a-z_]+)-([^-]+)-cp(\d)(\d+)-cp\d+-linux_x86_64\.whl$")


def resolve_radeon_files(urls, python, line, where):
    """Wheel files from repo.radeon.com: each one a file of one radeon_wheels set, for the
    environment's CPython."""
    for url in urls:
        match = RADEON_FILE.match(url)
        results.check(match is not None, f"{where}: {url} is a wheel file's URL: {line}")
        if match is None:
            continue
        directory, name, version, major, minor = match.groups()
        version = version.replace("%2B", "+")
        cpython = f"{major}.{minor}"
        key = {"pytorch_triton_rocm": "triton"}.get(name, name)
        owner = [s for s in RADEON_SETS if s["url"] == directory and s.get(key) == version]
        results.check(bool(owner), f"{where}: {name} {version} is a file of {directory}: {line}")
        results.check(any(cpython in s["python"] for s in owner),
                      f"{where}: AMD built {name} {version} for CPython {cpython}: {line}")
        if python:
            results.check(python == cpython, f"{where}: the file is for Python {python}: {line}")


def targets_for(release, index):
    for exception in release.get("gfx_exceptions", []):
        if exception["index"] == index:
            return exception["gfx"]
    return release["gfx"]


def pythons_for(release, index):
    for exception in release.get("python_exceptions", []):
        if exception["index"] == index:
            return exception["python"]
    return release["python"]


def pins(words):
    """name -> (extra, version) of every `name[extra]==version` word."""
    found = {}
    for word in words:
        match = re.fullmatch(r"([A-Za-z0-9_.-]+)(\[[^\]]*\])?==(\S+)", word)
        if match:
            found[match.group(1)] = (match.group(2), match.group(3))
    return found


def python_versions(report):
    """Interpreter as a fix names it -> CPython version, from the report's environments."""
    versions = {}
    for env in (report["facts"].get("python") or {}).get("environments", []):
        version = env.get("python_version")
        if not version:
            continue
        prefix = env["prefix"]
        versions[prefix + "/bin/python3"] = version
        if prefix in ("/usr", "/usr/local"):
            versions["/usr/bin/python3"] = version
            versions.setdefault("python3", version)
    return versions


def gpu_targets(report):
    """The GPUs' gfx targets, without feature suffixes."""
    return {gpu["gfx_target"].split(":")[0] for gpu in report["inventory"]["gpus"]
            if gpu.get("gfx_target")}


def resolve_companions(pinned, wheel_sets, line, where):
    """torchvision and torchaudio alone from AMD's index: the versions of one set of that index
    (the set that serves the torch beside them), torchvision with a device extra of that set."""
    results.check("torchvision" in pinned and "torchaudio" in pinned,
                  f"{where}: a companions line names torchvision and torchaudio: {line}")
    extra, version = pinned.get("torchvision", (None, None))
    audio = pinned.get("torchaudio", (None, None))[1]
    matching = [s for s in wheel_sets if s["torchvision"] == version and s["torchaudio"] == audio]
    results.check(bool(matching), f"{where}: torchvision and torchaudio are one set's: {line}")
    device = (extra or "").strip("[]")
    results.check(any(device.startswith("device-") and device[7:] in s["devices"] for s in matching),
                  f"{where}: the set has the extra {device}: {line}")


def resolve_rocm_packages(pinned, wheel_sets, line, where):
    """AMD's ROCm pip packages from its index: a rocm-sdk-device-<target>==V of a set of that
    release with the target, or rocm[libraries]==X.Y.* of a release the index serves."""
    for name, (_, version) in pinned.items():
        if name.startswith("rocm-sdk-device-"):
            release = ".".join(version.split(".")[:2])
            results.check(any(s["rocm"] == release and name[16:] in s["devices"] for s in wheel_sets),
                          f"{where}: AMD's ROCm {release} index has {name}: {line}")
        elif name == "rocm":
            release = version.rstrip(".*")
            results.check(any(s["rocm"] == release for s in wheel_sets),
                          f"{where}: the index serves ROCm {release}: {line}")


def resolve(line, python, targets, where):
    words = shlex.split(line)
    index = words[words.index("--index-url") + 1] if "--index-url" in words else None
    pinned = pins(words)
    urls = [w for w in words if w.startswith("https://repo.radeon.com/")]
    if urls and index is None:
        resolve_radeon_files(urls, python, line, where)
        return
    if index in AMD_SETS and "torch" not in pinned:
        if any(name == "rocm" or name.startswith("rocm-sdk-") for name in pinned):
            resolve_rocm_packages(pinned, AMD_SETS[index], line, where)
        else:
            resolve_companions(pinned, AMD_SETS[index], line, where)
        return
    if index is None or "torch" not in pinned:
        results.check(False, f"{where}: a pip line names torch and its index: {line}")
        return
    extra, version = pinned["torch"]
    if index.startswith(PYTORCH_INDEX):
        name = index[len(PYTORCH_INDEX):].strip("/")
        release = RELEASES.get(version)
        results.check(release is not None, f"{where}: torch {version} is in rules/torch.yaml: {line}")
        if release is None:
            return
        results.check(name in release["rocm_indexes"], f"{where}: {name} serves torch {version}")
        results.check(pinned.get("torchvision", (None, release["torchvision"]))[1] == release["torchvision"],
                      f"{where}: torchvision of torch {version}: {line}")
        audio = release.get("torchaudio") or release.get("torchaudio_pair")
        results.check(pinned.get("torchaudio", (None, audio))[1] == audio,
                      f"{where}: torchaudio of torch {version}: {line}")
        if python:
            results.check(python in pythons_for(release, name),
                          f"{where}: torch {version} on {name} has wheels for Python {python}: {line}")
        wheel_targets = {t.split(":")[0] for t in targets_for(release, name)}
        results.check(not targets or bool(targets & wheel_targets),
                      f"{where}: torch {version} on {name} has code for {sorted(targets)}: {line}")
        return
    wheel_sets = AMD_SETS.get(index)
    results.check(wheel_sets is not None, f"{where}: AMD index {index} is in rules/torch.yaml")
    if wheel_sets is None:
        return
    wheel_set = next((s for s in wheel_sets if s["torch"] == version), None)
    results.check(wheel_set is not None, f"{where}: torch {version} is one of the index's sets")
    if wheel_set is None:
        return
    device = (extra or "").strip("[]")
    results.check(device.startswith("device-") and device[7:] in wheel_set["devices"],
                  f"{where}: the set has the extra {device}")
    if python and wheel_set.get("python"):
        results.check(python in wheel_set["python"], f"{where}: the set has wheels for Python {python}")


INSTALL = re.compile(r"^(?:sudo\s+)?(?:apt|apt-get|dnf|yum|zypper)\s+(?:-\S+\s+)*install\s+(.*)$|"
                     r"^(?:sudo\s+)?pacman\s+-S\s+(.*)$")


def rows_for(section, os_release):
    """The knowledge base's rows of a section for a distribution release: by ID and VERSION_ID;
    a row without versions also by a word of ID_LIKE, as rocdoc matches installers."""
    ident = os_release.get("ID", "")
    like = os_release.get("ID_LIKE", "").split()
    version = os_release.get("VERSION_ID", "")
    for row in RELEASES_YAML.get(section, []):
        versions = row.get("versions")
        if (row["os"] == ident and (not versions or version in versions)) or \
                (not versions and row["os"] in like):
            yield row


def known_packages(os_release):
    known = set()
    for row in rows_for("installers", os_release):
        for step in row["steps"]:
            known.update(shlex.split(step))
    for row in rows_for("distribution_packages", os_release):
        known.update(row["packages"])
    return known


def installed_packages(report):
    """The package names the report's package databases list (facts.packages)."""
    names = set()
    for database in ((report["facts"].get("packages") or {}).get("databases") or []):
        names.update(package["name"] for package in database["packages"])
    return names


def check_packages(command, os_release, where, installed=frozenset()):
    """Every package a fix installs exists in that release, as far as the rules know; a fix that
    only upgrades (apt-get install --only-upgrade, dnf upgrade) names packages the machine's own
    package database lists."""
    checked = 0
    for part in re.split(r"\s*&&\s*", command):
        match = INSTALL.match(part.strip())
        if not match:
            continue
        words = shlex.split(match.group(1) or match.group(2) or "")
        packages = [w for w in words if not w.startswith(("-", "./", "/", "http://", "https://"))]
        known = known_packages(os_release)
        if "--only-upgrade" in words:
            known = known | installed
        for package in packages:
            checked += 1
            results.check(package in known,
                          f"{where}: {package} is a package of {os_release.get('ID')} "
                          f"{os_release.get('VERSION_ID')} as the rules know: {command}")
    return checked


def check_fixture(name):
    proc = subprocess.run([binary, "check", "--root", os.path.join(FIXTURES, name), "--json"],
                          capture_output=True, timeout=60)
    if proc.returncode not in (0, 1):
        results.check(False, f"{name}: check exits {proc.returncode}")
        return 0
    report = json.loads(proc.stdout)
    versions = python_versions(report)
    targets = gpu_targets(report)
    resolved = 0
    os_release = (report["facts"].get("system") or {}).get("os_release") or {}
    for check in report["checks"]:
        venv_python = None
        for fix in check.get("fix", []):
            command = fix.get("command") or ""
            PACKAGES[0] += check_packages(command, os_release, f"{name} {check['id']}",
                                          installed_packages(report))
            made = re.match(r"(python3(?:\.\d+)?|/usr/bin/python3) -m venv (\S+)$", command)
            if made:
                interpreter = made.group(1)
                venv_python = (made.group(2), versions.get(interpreter) or
                               (interpreter[6:] if interpreter.startswith("python3.") else None))
            # Each install from an index (a source build's `pip install -e .` installs no wheel;
            # `pip uninstall -y X && pip install …` installs with its second part).
            for part in re.split(r"\s*&&\s*", command):
                if "pip install" not in part or not re.search(
                        r"(?<![\w-])(torch(vision|audio)?|rocm|rocm-sdk-device-[a-z0-9]+)"
                        r"(\[[^\]]*\])?==", part):
                    continue
                interpreter = shlex.split(part)[0]
                python = versions.get(interpreter)
                if venv_python and interpreter.startswith(venv_python[0] + "/bin/"):
                    python = venv_python[1]
                # An override's pip line installs a torch for the target the override reports.
                with_override = check["id"].startswith("arch.override")
                resolve(part, python, set() if with_override else targets, f"{name} {check['id']}")
                resolved += 1
    return resolved


PACKAGES = [0]
total = 0
for fixture in sorted(os.listdir(FIXTURES)):
    if os.path.isfile(os.path.join(FIXTURES, fixture, "expect.json")):
        total += check_fixture(fixture)
results.check(total >= 20, f"pip lines resolved across the fixtures: {total}")
results.check(PACKAGES[0] >= 5, f"installed packages checked across the fixtures: {PACKAGES[0]}")
print(f"{total} pip lines resolved, {PACKAGES[0]} installed packages checked")
sys.exit(results.finish())
