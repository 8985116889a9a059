#!/usr/bin/env python3
"""Times `rocdoc scan TREE` against `grep -rEn` with the same patterns over the same files, side by side.

The patterns are the `match:` RE2 expressions of rules/code_patterns.yaml (line-based), converted
to GNU grep ERE ((?: -> (, \\d -> [0-9], escapes inside [...] -> POSIX classes). Those starting
with (?i) run in a second `grep -i` pass, whose time is added. Patterns grep cannot do (\\A, \\z,
\\pL, (?m), (?s), lazy *? +?, \\n outside [...]) are left out of grep's side only ("not
converted"); unless_line:/unless_file: are ignored, so grep does less work than rocdoc. grep runs
as `LC_ALL=C grep -rEn -I --include=GLOB...` over the file kinds rocdoc scans (bytes and ASCII \\w,
as in RE2; in C.UTF-8 grep -E is about 3x slower here), output to /dev/null.

Per TREE (default: /usr/include and /usr/lib/python3/dist-packages, whichever exist): one untimed
run of each side warms the page cache and counts results (rocdoc: len(findings) of its JSON;
grep: matching lines); then --repeat rounds, alternating which side goes first, wall time of the
whole process. Printed: median and min seconds, MB/s (bytes scanned / median: rocdoc's own
bytes_scanned if it reports one, else the os.walk sum of the regular files under 16 MiB of the
kinds below, which is also grep's), and grep/rocdoc, the ratio of the medians (above 1: rocdoc is
faster). rocdoc uses threads, grep one core: the ratio is throughput on this machine, not per core.
Exit 0; 2 if the rocdoc binary is missing or does not know `scan`.

    bench/scan_speed.py [--rocdoc build/rocdoc] [--rules rules/code_patterns.yaml] [--repeat 5] [TREE ...]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_TREES = ["/usr/include", "/usr/lib/python3/dist-packages"]
SUFFIXES = (".c .cc .cpp .cxx .cu .cuh .hip .h .hh .hpp .hxx .inl .py .pyx .cmake .mk .sh .bash "
            ".yaml .yml .toml").split()
NAMES = ["CMakeLists.txt", "Makefile", "GNUmakefile", "makefile", "Containerfile"]
MAX_FILE = 16 << 20
INCLUDES = [f"--include=*{s}" for s in SUFFIXES] + [f"--include={n}" for n in NAMES + ["Dockerfile*"]]
CLASSES = {"d": "0-9", "s": "[:space:]", "w": "[:alnum:]_"}  # inside [...]
SPECIAL = set(".[]()*+?{}|^$\\")  # an escaped one stays escaped in ERE
GREP_ENV = dict(os.environ, LC_ALL="C")


class NotConverted(Exception):
    pass


def bracket(pattern, i):
    """Converts the RE2 class starting at pattern[i] == '[' into a POSIX bracket; returns (ere, next i)."""
    i += 1
    negate = pattern.startswith("^", i)
    i += negate
    chars, ranges, classes = set(), [], []

    def element(i):  # one member: (kind, text, next i); kind is "char" or "class"
        if pattern.startswith("[:", i):
            end = pattern.index(":]", i) + 2
            return "class", pattern[i:end], end
        if pattern[i] != "\\":
            return "char", pattern[i], i + 1
        e = pattern[i + 1:i + 2]
        if e in CLASSES:
            return "class", CLASSES[e], i + 2
        if e == "n":
            return "class", "", i + 2  # a line holds no newline: [^\n] is any character
        if e == "t" or not e.isalnum():
            return "char", "\t" if e == "t" else e, i + 2
        raise NotConverted(f"\\{e} inside [...]")

    first = True
    while i < len(pattern) and (pattern[i] != "]" or first):
        first = False
        kind, text, i = element(i)
        if kind == "class":
            classes.append(text)
        elif pattern.startswith("-", i) and not pattern.startswith("-]", i):
            kind, last, i = element(i + 1)
            if kind == "class" or "]" in (text, last) or "-" in (text, last):
                raise NotConverted("unusual range inside [...]")
            ranges.append(f"{text}-{last}")
        else:
            chars.add(text)
    if i >= len(pattern):
        raise NotConverted("unterminated [")
    # POSIX: ']' first, '-' last, '^' not first; a backslash is literal
    items = (["]"] if "]" in chars else []) + ranges + sorted(chars - {"]", "-", "^"})
    items += [c for c in classes if c] + (["^"] if "^" in chars else []) + (["-"] if "-" in chars else [])
    if not items:
        if negate:
            return ".", i + 1
        raise NotConverted("[\\n] never matches within a line")
    if items == ["^"] and not negate:
        return "\\^", i + 1
    if items[0] == "^":
        items = items[1:] + ["^"]  # [-^]: '-' first is literal too
    return "[" + ("^" if negate else "") + "".join(items) + "]", i + 1


def to_ere(pattern):
    """(ERE, ignore_case) for grep -E, or NotConverted."""
    icase = pattern.startswith("(?i)")
    p = pattern[4:] if icase else pattern
    out, i = [], 0
    while i < len(p):
        c = p[i]
        if c == "[":
            ere, i = bracket(p, i)
            out.append(ere)
            continue
        if c == "(" and p.startswith("(?", i):  # (?: and (?P<name> are plain groups in ERE
            m = re.match(r"\(\?(?::|P?<\w+>)", p[i:])
            if not m:
                raise NotConverted(f"group flags {p[i:i + 4]}")
            out.append("(")
            i += m.end()
            continue
        if c in "*+?}" and p[i + 1:i + 2] == "?":
            raise NotConverted("non-greedy repeat")
        if c == "\\":
            e = p[i + 1:i + 2]
            i += 2
            if not e:
                raise NotConverted("trailing \\")
            if e == "d" or e == "D":
                out.append("[0-9]" if e == "d" else "[^0-9]")
            elif e in "bBwWsS" or e in SPECIAL:  # GNU grep -E knows \b \w \s and their negations
                out.append("\\" + e)
            elif e == "t":
                out.append("\t")
            elif e.isalnum():
                raise NotConverted(f"\\{e}")
            else:
                out.append(e)  # \- \/ \" \# ...: a literal (grep 3.8 warns on stray \)
            continue
        out.append(c)
        i += 1
    return "".join(out), icase


def load_patterns(path):
    with open(path) as f:
        doc = yaml.safe_load(f)
    plain, icase, skipped = [], [], []
    for entry in doc["patterns"]:
        try:
            ere, ignore_case = to_ere(entry["match"])
        except NotConverted as why:
            skipped.append((entry.get("id", entry["match"]), str(why)))
            continue
        (icase if ignore_case else plain).append(ere)
    return plain, icase, skipped


def grep_commands(plain, icase, tree):
    base = ["grep", "-rEn", "-I", *INCLUDES]
    commands = []
    for flags, group in (([], plain), (["-i"], icase)):
        if group:
            commands.append(base + flags + [a for p in group for a in ("-e", p)] + ["--", tree])
    return commands


def run_grep(commands, count=False):
    """([wall seconds of each pass], matching lines when count)."""
    lines, elapsed = 0, []
    for command in commands:
        start = time.perf_counter()
        proc = subprocess.Popen(command, env=GREP_ENV, stderr=subprocess.PIPE,
                                stdout=subprocess.PIPE if count else subprocess.DEVNULL)
        if count:
            for chunk in iter(lambda: proc.stdout.read(1 << 20), b""):
                lines += chunk.count(b"\n")
        err = proc.communicate()[1]
        elapsed.append(time.perf_counter() - start)
        if proc.returncode > 1:
            sys.exit(f"grep failed ({proc.returncode}): {err.decode(errors='replace')[:2000]}")
    return elapsed, lines


def run_rocdoc(rocdoc, tree, out_path):
    start = time.perf_counter()
    with open(out_path, "wb") as out:
        proc = subprocess.run([rocdoc, "scan", tree, "--format", "json", "--fail-on", "never"],
                              stdout=out, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"rocdoc scan {tree} exited {proc.returncode}: {proc.stderr.decode(errors='replace')[:2000]}")
    return elapsed


def tree_size(tree):
    """(files, bytes) of the regular files under 16 MiB that rocdoc and grep --include scan."""
    files = total = 0
    for root, _, names in os.walk(tree):
        for name in names:
            if not (name.endswith(tuple(SUFFIXES)) or name in NAMES or name.startswith("Dockerfile")):
                continue
            try:
                st = os.lstat(os.path.join(root, name))
            except OSError:
                continue
            if (st.st_mode & 0o170000) == 0o100000 and st.st_size < MAX_FILE:
                files += 1
                total += st.st_size
    return files, total


def check_rocdoc(rocdoc):
    if not (os.path.isfile(rocdoc) and os.access(rocdoc, os.X_OK)):
        print(f"{rocdoc}: no such executable; build it (cmake --build build) or pass --rocdoc")
        sys.exit(2)
    proc = subprocess.run([rocdoc, "scan", "--help"], capture_output=True)
    if proc.returncode != 0 or b"unknown command" in proc.stdout + proc.stderr:
        print(f"{rocdoc} does not know `scan` (exit {proc.returncode}): "
              f"{(proc.stderr or proc.stdout).decode(errors='replace').strip()[:300]}")
        sys.exit(2)


def bench_tree(args, tree, grep_cmds, work):
    out_path = os.path.join(work, "scan.json")
    files, size = tree_size(tree)
    run_rocdoc(args.rocdoc, tree, out_path)  # warm the page cache, count findings
    try:
        with open(out_path, "rb") as f:
            doc = json.load(f)
    except ValueError as error:
        sys.exit(f"rocdoc scan {tree} --format json printed no JSON document: {error}")
    _, grep_lines = run_grep(grep_cmds, count=True)
    times, passes = {"rocdoc": [], "grep": []}, []
    for round_ in range(args.repeat):
        for side in (["rocdoc", "grep"] if round_ % 2 == 0 else ["grep", "rocdoc"]):
            if side == "rocdoc":
                times[side].append(run_rocdoc(args.rocdoc, tree, out_path))
            else:
                passes.append(run_grep(grep_cmds)[0])
                times[side].append(sum(passes[-1]))
    med = {side: statistics.median(t) for side, t in times.items()}
    r_files, r_bytes = doc.get("files_scanned"), doc.get("bytes_scanned")
    r_size = r_bytes if isinstance(r_bytes, int) and r_bytes > 0 else size
    print(f"\n{tree}: {files} files, {size / 1e6:.1f} MB of scanned kinds (os.walk); "
          f"rocdoc says files_scanned={r_files} bytes_scanned={r_bytes}")
    print(f"{'':8} {'median s':>9} {'min s':>8} {'MB/s':>8} {'results':>9}")
    for side, count, nbytes in (("rocdoc", len(doc.get("findings", [])), r_size),
                                ("grep", grep_lines, size)):
        print(f"{side:8} {med[side]:9.3f} {min(times[side]):8.3f} {nbytes / 1e6 / med[side]:8.1f} "
              f"{count:9d}")
    split = " + ".join(f"{statistics.median(p):.3f}" for p in zip(*passes))
    print(f"grep/rocdoc = {med['grep'] / med['rocdoc']:.2f}  (above 1: rocdoc is faster); grep's passes "
          f"(-E, -iE): {split} s; results: rocdoc findings, grep matching lines")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rocdoc", default=os.path.join(HERE, "..", "build", "rocdoc"))
    parser.add_argument("--rules", default=os.path.join(HERE, "..", "rules", "code_patterns.yaml"))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("trees", nargs="*", metavar="TREE")
    args = parser.parse_args()
    check_rocdoc(args.rocdoc)
    trees = args.trees or [t for t in DEFAULT_TREES if os.path.isdir(t)]
    plain, icase, skipped = load_patterns(args.rules)
    print(f"{len(plain) + len(icase) + len(skipped)} patterns from {args.rules}: grep -E runs "
          f"{len(plain)}, grep -iE {len(icase)}, not converted (rocdoc only) {len(skipped)}")
    for ident, why in skipped:
        print(f"  not converted: {ident}: {why}")
    print(f"{os.cpu_count()} CPU cores; rocdoc scans with threads, grep is single-threaded; "
          f"median of {args.repeat} warm runs, wall time of the whole process")
    with tempfile.TemporaryDirectory() as work:
        for tree in trees:
            bench_tree(args, tree, grep_commands(plain, icase, tree), work)


if __name__ == "__main__":
    main()
