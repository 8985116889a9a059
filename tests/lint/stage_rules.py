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
  - only src/commands/ parses options (CLI11);
  - from outside a folder, only the folder's public headers (PUBLIC_HEADERS below) are a way in:
    a folder's other headers are its own. include/rocdoc/ is public to all, src/util/ is a
    library (every header public), and tests/ may reach a folder's inside to test it.
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


# The way into each folder from outside it: its public headers, each with what it gives. A header
# of a folder that is not listed here is the folder's own; a file of another folder that includes
# it breaks the rule. A new way in is a line here, in the same change, and says why.
PUBLIC_HEADERS = {
    "src/commands": {
        "src/commands/cli.h": "run_cli, which main() calls",
    },
    "probes": {
        "probes/torch_origin.h": "classify_torch: a torch's origin from its version words, "
                                 "which triage and `rules show` judge without a probe run",
        "probes/packages.h": "the package databases' caps and record filter (the recording Host "
                             "keeps what the packages probe reads)",
        "probes/system.h": "the mount-table record filter (the recording Host keeps what the "
                           "system probe reads, without credentials)",
    },
    "src/hosts": {
        "src/hosts/live.h": "LiveHost, and reading rocdoc's own files (--rules DIR, manifests)",
        "src/hosts/snapshot.h": "SnapshotHost (check --root, fleet, snapshot)",
        "src/hosts/sysroot.h": "SysrootHost (--sysroot)",
        "src/hosts/recording.h": "RecordingHost (snapshot)",
        "src/hosts/redacting.h": "RedactingHost (--redact)",
        "src/hosts/declared_gpus.h": "--gpu's declared GPUs (check, triage)",
        "src/hosts/snapshot_root.h": "a snapshot's root/ read confined (snapshot archives, the "
                                     "runtime records)",
        "src/hosts/path_in_root.h": "in-root path resolution (archives, Python site directories)",
    },
    "src/facts": {
        "src/facts/json.h": "facts to JSON (the JSON report, Markdown's facts, snapshots)",
    },
    "src/checks": {
        "src/checks/checks.h": "the check table the pipeline runs",
        "src/checks/software.h": "the torch/ROCm reasoning root-cause linking shares",
        "src/checks/gpu_topology.h": "the Report's GPU topology, built once by the pipeline",
    },
    "src/pipeline": {
        "src/pipeline/root_causes.h": "the root-cause table renderers group findings by",
    },
    "src/render": {
        "src/render/npd.h": "render_npd (check --format npd)",
        "src/render/prometheus.h": "render_prometheus (check --format prometheus)",
        "src/render/fleet.h": "fleet's outputs",
        "src/render/triage.h": "triage's outputs",
        "src/render/text_layout.h": "display width and wrapping (help text, terminal style)",
        "src/render/page.h": "colour, glyphs and wrapped paragraphs (explain's human text)",
        "src/render/markdown_text.h": "Markdown escaping (explain --format markdown)",
        "src/render/compute_json.h": "a target's compute abilities as JSON (rules show --json)",
    },
    "src/knowledge": {
        "src/knowledge/lookup.h": "what words name in the knowledge base (rules show, --gpu)",
        "src/knowledge/show.h": "rules show's text",
        "src/knowledge/show_json.h": "rules show --json",
        "src/knowledge/explain.h": "explain's sections of docs/checks.md",
    },
    "src/snapshot": {
        "src/snapshot/open.h": "a snapshot opened for check, fleet and topology",
        "src/snapshot/archive.h": "snapshot archives (.tar.gz)",
        "src/snapshot/writer.h": "a recording written as a snapshot",
        "src/snapshot/provenance.h": "what changed since capture",
    },
    "src/fleet": {
        "src/fleet/summary.h": "many reports merged (fleet)",
    },
    "src/triage": {
        "src/triage/scan.h": "a pasted log turned into findings (triage, rules lint)",
    },
    "src/scan": {
        "src/scan/scan_tree.h": "a source tree scanned (scan, check --scan)",
        "src/scan/baseline.h": "scan --baseline",
    },
    "src/binaries": {
        "src/binaries/elf_needed.h": "an ELF file's DT_NEEDED (Host::needed_libraries)",
        "src/binaries/offload_file.h": "offload bundles of an open file (Hosts, targets)",
        "src/binaries/tensile_names.h": "rocBLAS/hipBLASLt targets from file names (probes, "
                                        "targets)",
    },
    "src/runtime": {
        "src/runtime/runner.h": "--deep's children on the live machine (LiveHost)",
        "src/runtime/smoke_runner.h": "--smoke's children on the live machine (LiveHost)",
        "src/runtime/json.h": "a runtime report in snapshots and the facts' JSON",
        "src/runtime/smoke_facts.h": "a smoke report in snapshots, facts and the smoke probe",
        "src/runtime/protocol.h": "the children's result lines (runtime probe and checks)",
        "src/runtime/abi.h": "the HIP error names and causes runtime checks explain",
    },
    "src/man": {},
}


def folder_of(path):
    """The folder whose public headers guard `path`: src/<name>, probes; None for the rest."""
    parts = path.split("/")
    if parts[0] == "src" and len(parts) > 2:
        return "src/" + parts[1]
    if parts[0] == "probes":
        return "probes"
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


def stale_public_headers(root, cache):
    """Table lines that say nothing true: a header that is gone, or that no file of another
    folder includes (then it is the folder's own, and listing it would leave a door open)."""
    entered = set()
    for path in project_files(root):
        for _, kind, name in read_includes(root, path, cache):
            target = resolve(root, name) if kind == '"' else None
            if target and folder_of(target) != folder_of(path):
                entered.add(target)
    found = []
    for folder, headers in sorted(PUBLIC_HEADERS.items()):
        for header in sorted(headers):
            if not os.path.isfile(os.path.join(root, header)):
                found.append(f"tests/lint/stage_rules.py: PUBLIC_HEADERS names {header}, "
                             "which does not exist")
            elif header not in entered:
                found.append(f"tests/lint/stage_rules.py: PUBLIC_HEADERS names {header}, which "
                             f"no file outside {folder}/ includes: take its line out")
    return found


def violations(root):
    cache = {}
    found = stale_public_headers(root, cache)
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
        own = folder_of(path)
        for number, kind, name in includes:
            target = resolve(root, name) if kind == '"' else None
            into = folder_of(target) if target else None
            if (into and into != own and into != "src/util" and
                    target not in PUBLIC_HEADERS.get(into, {})):
                found.append(f"{path}:{number}: enters {into}/ by {target}, which is not one of "
                             f"its public headers (tests/lint/stage_rules.py, PUBLIC_HEADERS)")
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
    ("src/commands/scan.cpp", '#include "src/scan/pattern_set.h"\n', "not one of its public headers"),
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
    print("stage rules hold: checks, probes, renderers, facts, util, commands and every folder's "
          "public headers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
