"""Helpers for the end-to-end tests: run the built rocdoc binary and count results."""
import json
import os
import shutil
import subprocess
import sys
import tarfile

SOURCE_DIR = os.environ.get("ROCDOC_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
FIXTURES = os.path.join(SOURCE_DIR, "tests", "fixtures")
SCHEMA = os.path.join(SOURCE_DIR, "docs", "report.schema.json")


class Results:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, condition, what):
        if condition:
            self.passed += 1
        else:
            self.failed += 1
            print(f"FAILED: {what}", flush=True)

    def finish(self):
        print(f"{self.passed} passed, {self.failed} failed")
        sys.exit(1 if self.failed else 0)


def run(binary, *args, env=None):
    merged = dict(os.environ)
    merged.pop("NO_COLOR", None)
    if env:
        merged.update(env)
    return subprocess.run([binary, *args], capture_output=True, text=True, env=merged, timeout=60)


def report(binary, *args):
    proc = run(binary, "check", "--json", *args)
    return proc.returncode, json.loads(proc.stdout), proc.stderr


def validate(document, schema_path=SCHEMA):
    """Validates a document against a schema (default docs/report.schema.json); returns the error
    text or None."""
    import jsonschema  # Debian: python3-jsonschema, a test dependency

    with open(schema_path) as f:
        schema = json.load(f)
    try:
        jsonschema.validate(document, schema)
    except jsonschema.ValidationError as error:
        return str(error)
    return None


def archive_text(path):
    """Every name and every byte of every member of a snapshot archive, for "does it contain
    this secret" questions."""
    chunks = []
    with tarfile.open(path) as archive:
        for member in archive.getmembers():
            chunks.append(member.name)
            if member.isfile():
                chunks.append(archive.extractfile(member).read().decode("utf-8", "replace"))
    return "\n".join(chunks)


def place(source, tree):
    """Copies one file or link of this machine to the same path under tree (links as links;
    a hard link where the file system allows, so no copy of a 47 MB library)."""
    target = tree + source
    if os.path.lexists(target):
        return
    os.makedirs(os.path.dirname(target), exist_ok=True)
    if os.path.islink(source):
        os.symlink(os.readlink(source), target)
    elif os.path.isdir(source):
        os.makedirs(target, exist_ok=True)
    elif os.path.isfile(source):
        try:
            os.link(source, target)
        except OSError:
            shutil.copy2(source, target)
