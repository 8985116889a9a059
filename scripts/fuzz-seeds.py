#!/usr/bin/env python3
"""Writes the seed corpus of every fuzz harness (tests/fuzz/fuzz_*.cpp) into OUT/<harness>/.

The seeds are the matching files of tests/fixtures (and rules/*.yaml), collected fresh each
time so that no copy of a fixture is committed. Identical contents are written once.

    scripts/fuzz-seeds.py OUT            # OUT/kfd_properties/, OUT/os_release/, ...

ctest runs it before replaying the seeds (fuzz.seeds); scripts/fuzz-run.sh before fuzzing.
A new harness adds its entry to SEEDS below (or a function to CUSTOM).
"""
import hashlib
import io
import json
import os
import re
import shutil
import sys
import tarfile

SOURCE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(SOURCE, "tests", "fixtures")

# harness -> regular expression on a fixture file's path relative to its root/.
SEEDS = {
    "kfd_properties": r"sys/(class|devices/virtual)/kfd/kfd/topology/nodes/\d+/(io_links/\d+/)?properties",
    "os_release": r"(etc|usr/lib)/os-release|proc/1/cgroup",
    "group": r"etc/(group|passwd)",
    "mounts": r"proc/(self/)?mounts|etc/fstab",
    "cmdline": r"proc/cmdline|etc/modprobe\.d/[^/]+\.conf|.*/make\.log|sys/firmware/efi/efivars/SecureBoot-.*",
    "version_py": r".*/torch/version\.py",
    "metadata": r".*\.(dist|egg)-info/(METADATA|PKG-INFO)",
    "pyvenv_cfg": r".*/pyvenv\.cfg|.*/\.pyenv/version|.*/\.python-version",
}


def fixtures():
    for name in sorted(os.listdir(FIXTURES)):
        path = os.path.join(FIXTURES, name)
        if os.path.isfile(os.path.join(path, "rocdoc-snapshot.json")):
            yield name, path


def manifest(path):
    try:
        with open(os.path.join(path, "rocdoc-snapshot.json"), encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def root_files(path):
    """(path relative to root/, absolute path) of every regular file, links not followed."""
    root = os.path.join(path, "root")
    for directory, _, files in os.walk(root):
        for file in files:
            full = os.path.join(directory, file)
            if os.path.isfile(full) and not os.path.islink(full):
                yield os.path.relpath(full, root), full


def root_links(path):
    root = os.path.join(path, "root")
    for directory, dirs, files in os.walk(root):
        for entry in dirs + files:
            full = os.path.join(directory, entry)
            if os.path.islink(full):
                yield "/" + os.path.relpath(full, root), os.readlink(full)


def site_dir_listings(path):
    """Each site-packages directory's *.dist-info / *.egg-info names, one per line."""
    root = os.path.join(path, "root")
    for directory, dirs, _ in os.walk(root):
        names = sorted(d for d in dirs if d.endswith((".dist-info", ".egg-info")))
        if names:
            yield os.path.relpath(directory, root), "\n".join(names) + "\n"


def custom_seeds():
    """(harness, label, bytes) for the harnesses whose input is not one fixture file."""
    for name, path in fixtures():
        with open(os.path.join(path, "rocdoc-snapshot.json"), "rb") as f:
            yield "snapshot_manifest", name, f.read()
        data = manifest(path)
        links = dict(root_links(path))
        links.update(data.get("links", {}) if isinstance(data.get("links"), dict) else {})
        if links:
            lines = [f"{k} -> {v}" for k, v in sorted(links.items())]
            first = sorted(links)[0]
            yield "path_in_root", name, ("\n".join([first + "/x/../y"] + lines) + "\n").encode()
        env = data.get("env", {}) if isinstance(data.get("env"), dict) else {}
        masks = [f"{k}={v}" for k, v in sorted(env.items())
                 if isinstance(v, str) and ("VISIBLE_DEVICES" in k or k == "GPU_DEVICE_ORDINAL")]
        if masks:
            yield "visible_devices", name, ("\n".join(masks) + "\n").encode()
        for site, listing in site_dir_listings(path):
            yield "metadata", f"{name}-{site}-listing", listing.encode()
    for name, path in list(fixtures())[::8]:  # a plain tar of every 8th fixture
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w") as archive:
            archive.add(path, arcname=".", filter=lambda info: None
                        if info.name.endswith("expect.json") else info)
        yield "snapshot_archive", name, buffer.getvalue()
    logs = os.path.join(SOURCE, "tests", "triage")  # real pasted logs, for rocdoc triage
    for file in sorted(os.listdir(logs)):
        if file.endswith(".log"):
            with open(os.path.join(logs, file), "rb") as f:
                yield "triage", file, f.read()
    rules = os.path.join(SOURCE, "rules")
    for file in sorted(os.listdir(rules)):
        if file.endswith(".yaml"):
            with open(os.path.join(rules, file), "rb") as f:
                yield "rules", file, file.encode() + b"\n" + f.read()


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    written = {}
    seen = set()

    def write(harness, label, content):
        digest = hashlib.sha1(content).hexdigest()
        if (harness, digest) in seen:
            return
        seen.add((harness, digest))
        directory = os.path.join(out, harness)
        if harness not in written:
            shutil.rmtree(directory, ignore_errors=True)
            os.makedirs(directory)
            written[harness] = 0
        safe = re.sub(r"[^A-Za-z0-9._+-]+", "_", label)[:100]
        with open(os.path.join(directory, f"{safe}-{digest[:8]}"), "wb") as f:
            f.write(content)
        written[harness] += 1

    patterns = {harness: re.compile(pattern) for harness, pattern in SEEDS.items()}
    for name, path in fixtures():
        for relative, full in root_files(path):
            for harness, pattern in patterns.items():
                if pattern.fullmatch(relative):
                    with open(full, "rb") as f:
                        write(harness, f"{name}-{relative}", f.read())
    for harness, label, content in custom_seeds():
        write(harness, label, content)
    print(", ".join(f"{harness}: {written[harness]}" for harness in sorted(written)), "seeds in", out)
    expected = set(SEEDS) | {"snapshot_manifest", "path_in_root", "visible_devices", "rules",
                             "triage"}
    missing = sorted(expected - set(written))
    if missing:
        sys.exit(f"no seeds found for {', '.join(missing)}")


if __name__ == "__main__":
    main()
