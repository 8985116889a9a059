#!/usr/bin/env python3
"""The stage rules of DESIGN.md ("Layout"), checked from the #include lines of src/, probes/ and
include/. Each rule names what files of one stage may not reach; a file reaches what it includes
and what those headers include in turn (only rocdoc's own headers are followed). A broken rule is
printed as FILE:LINE, the include that starts the path, and the path to what it reached.

    tests/lint/stage_rules.py [SOURCE_DIR]        exit 0: every rule holds; 1: one is broken
    tests/lint/stage_rules.py --self-test         plants one violation of each rule in a copy
                                                  of the tree and fails unless each is caught

The rules:
  - a check never reaches a Host (checks read facts and the knowledge base);
  - a probe never reaches a renderer or a check (probes return facts; they do not judge);
  - a renderer never reaches a Host, a probe or the knowledge loader (renderers see the Report);
  - facts never reach checks;
  - util/ includes nothing of rocdoc but util/;
  - only src/commands/ parses options (CLI11).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]')
SCANNED = ("src", "probes", "include")


def stage_of(path):
    """The stage of a repository-relative path, or None for the rest."""
    if path.startswith("src/checks/") or path in ("include/rocdoc/check.h",):
        return "check"
    if path.startswith("src/hosts/") or path == "include/rocdoc/host.h":
        return "host"
    if path.startswith("probes/") or path == "include/rocdoc/probes.h":
        return "probe"
    if path.startswith("src/render/") or path == "include/rocdoc/render.h":
        return "render"
    # The loader, not the Knowledge it yields (rocdoc/knowledge.h: plain data checks read).
    if path.startswith("src/knowledge/") or path == "include/rocdoc/knowledge_loader.h":
        return "knowledge"
    if path.startswith("src/facts/") or path == "include/rocdoc/facts.h":
        return "facts"
    if path.startswith("src/util/"):
        return "util"
    if path.startswith("src/commands/"):
        return "commands"
    return None


# stage of the including file -> (stages it may not reach, what the rule says)
FORBIDDEN = {
    "check": ({"host"}, "a check reaches a Host"),
    "probe": ({"render", "check"}, "a probe reaches a renderer or a check"),
    "render": ({"host", "probe", "knowledge"}, "a renderer reaches a Host, a probe or the knowledge loader"),
    "facts": ({"check"}, "facts reach checks"),
}


def resolve(root, name):
    """A quoted include as a repository-relative path: root-relative, or include/."""
    for candidate in (name, os.path.join("include", name)):
        if os.path.isfile(os.path.join(root, candidate)):
            return candidate
    return None


def read_includes(root, path, cache):
    if path not in cache:
        found = []
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            for number, line in enumerate(f, 1):
                match = INCLUDE.match(line)
                if match:
                    found.append((number, match.group(1), match.group(2)))
        cache[path] = found
    return cache[path]


def reached(root, start, cache):
    """{path: chain} for every project header `start` reaches; chain is the list of paths from
    the first include of `start` to it."""
    seen = {}
    stack = []
    for number, kind, name in read_includes(root, start, cache):
        target = resolve(root, name) if kind == '"' else None
        if target and target not in seen:
            seen[target] = (number, [target])
            stack.append(target)
    while stack:
        current = stack.pop()
        first_line, chain = seen[current]
        for _, kind, name in read_includes(root, current, cache):
            target = resolve(root, name) if kind == '"' else None
            if target and target not in seen:
                seen[target] = (first_line, chain + [target])
                stack.append(target)
    return seen


def project_files(root):
    for top in SCANNED:
        for directory, _, names in os.walk(os.path.join(root, top)):
            for name in sorted(names):
                if name.endswith((".cpp", ".h")):
                    yield os.path.relpath(os.path.join(directory, name), root)


def violations(root):
    cache = {}
    found = []
    for path in sorted(project_files(root)):
        stage = stage_of(path)
        includes = read_includes(root, path, cache)
        if stage == "util":
            for number, kind, name in includes:
                if kind == '"' and not name.startswith("src/util/"):
                    found.append(f"{path}:{number}: util includes rocdoc's {name} "
                                 "(util/ knows nothing of rocdoc)")
        if stage != "commands":
            for number, kind, name in includes:
                if name == "CLI/CLI.hpp" or name.startswith("CLI/"):
                    found.append(f"{path}:{number}: parses options (includes <{name}>) outside "
                                 "src/commands/")
        if stage in FORBIDDEN:
            stages, rule = FORBIDDEN[stage]
            for target, (line, chain) in sorted(reached(root, path, cache).items()):
                if stage_of(target) in stages and stage_of(target) != stage:
                    found.append(f"{path}:{line}: {rule}: {' -> '.join(chain)}")
    return found


# One planted violation per rule: (file to plant in, the line, the words the report must hold).
PLANTS = [
    ("src/checks/arch.cpp", '#include "src/hosts/live.h"\n', "a check reaches a Host"),
    ("probes/pci.cpp", '#include "rocdoc/render.h"\n', "a probe reaches a renderer or a check"),
    ("src/render/json.cpp", '#include "rocdoc/knowledge_loader.h"\n', "a renderer reaches"),
    ("src/facts/json.cpp", '#include "src/checks/checks.h"\n', "facts reach checks"),
    ("src/util/strings.cpp", '#include "rocdoc/facts.h"\n', "util includes rocdoc's"),
    ("src/pipeline/run_report.cpp", "#include <CLI/CLI.hpp>\n", "parses options"),
]


def self_test(root):
    failed = False
    for target, line, words in PLANTS:
        with tempfile.TemporaryDirectory(prefix="rocdoc-stage-rules-") as copy:
            for top in SCANNED:
                shutil.copytree(os.path.join(root, top), os.path.join(copy, top))
            with open(os.path.join(copy, target), "a") as f:
                f.write(line)
            proc = subprocess.run([sys.executable, os.path.abspath(__file__), copy],
                                  capture_output=True, text=True)
            caught = proc.returncode == 1 and f"{target}:" in proc.stdout and words in proc.stdout
            print(f"{'caught' if caught else 'MISSED'}: {line.strip()} in {target}")
            failed = failed or not caught
    return 1 if failed else 0


def main():
    args = sys.argv[1:]
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if args[:1] == ["--self-test"]:
        return self_test(args[1] if len(args) > 1 else here)
    root = args[0] if args else here
    found = violations(root)
    for problem in found:
        print(problem)
    if found:
        print(f"{len(found)} stage rule(s) broken (DESIGN.md, Layout)")
        return 1
    print("stage rules hold: checks, probes, renderers, facts, util and commands")
    return 0


if __name__ == "__main__":
    sys.exit(main())
