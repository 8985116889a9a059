"""The man page and the shell completions the build generates (issue 12, section 3).

rocdoc.1 (from docs/rocdoc.1.md by rocdoc_manc) renders with man and groff without a warning,
and holds every section and command; every command and long option that `--help` prints is in
docs/rocdoc.1.md, so the two cannot drift. `rocdoc completions bash|zsh|fish` prints what the
build wrote, and each script is loaded in its real shell: bash with bash-completion, fish with
`complete -C`, zsh with compinit under a pseudo-terminal.

Usage: test_man_completions.py ROCDOC BUILD_DIR  (BUILD_DIR holds rocdoc.1 and completions/)
"""
import json
import os
import pty
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time

import yaml

from common import SOURCE_DIR, Results, run

binary = sys.argv[1]
build_dir = sys.argv[2]
man_page = os.path.join(build_dir, "rocdoc.1")
completions_dir = os.path.join(build_dir, "completions")
results = Results()

ids = [c["id"] for c in json.loads(run(binary, "list-checks", "--json").stdout)]
areas = sorted({i.split(".")[0] for i in ids})
with open(os.path.join(SOURCE_DIR, "docs", "rocdoc.1.md")) as f:
    markdown = f.read()


def help_words(*command):
    """The subcommands and long options that `rocdoc COMMAND --help` prints (the names column)."""
    text = run(binary, *command, "--help").stdout
    subcommands, options = [], set()
    section = None
    for line in text.splitlines():
        if re.match(r"^[A-Z][A-Za-z ]*:$", line):
            section = line
            continue
        names = re.match(r"^  (\S+(?: \S+)?)(?:\s{2,}|$)", line)
        if not names:
            continue
        if section == "Subcommands:":
            subcommands.append(names.group(1).split()[0])
        elif section == "Options:":
            options.update(re.findall(r"--[a-z][a-z-]*", names.group(1)))
    return subcommands, options


# --- --help and docs/rocdoc.1.md: every command and every long option of --help is documented.
top_commands, top_options = help_words()
results.check("completions" in top_commands and "check" in top_commands,
              f"rocdoc --help lists the commands: {top_commands}")
commands = [[c] for c in top_commands]
for name in top_commands:
    nested, _ = help_words(name)
    commands += [[name, n] for n in nested]
all_options = set(top_options)
for command in commands:
    _, options = help_words(*command)
    results.check(options, f"rocdoc {' '.join(command)} --help lists options")
    all_options |= options
    results.check(f"**rocdoc {' '.join(command)}**" in markdown or f"**{' '.join(command)}**" in markdown,
                  f"docs/rocdoc.1.md documents the command {' '.join(command)}")
for option in sorted(all_options):
    results.check(f"**{option}**" in markdown, f"docs/rocdoc.1.md documents {option} (as **{option}**)")

# --- The man page: generated, with the binary's version, rendered without a warning.
results.check(os.path.exists(man_page), f"{man_page} was generated (target rocdoc_man)")
with open(man_page) as f:
    roff = f.read()
version = run(binary, "--version").stdout.split()[1]
results.check(re.search(rf'^\.TH "ROCDOC" "1" "[^"]*" "rocdoc {re.escape(version)}"', roff, re.M),
              f".TH carries rocdoc {version}: {roff.splitlines()[1]}")
requests = {".TH", ".SH", ".SS", ".PP", ".TP", ".IP", ".nf", ".fi", ".br", ".if", ".nh", ".ad", '.\\"'}
for number, line in enumerate(roff.splitlines(), 1):
    if line.startswith((".", "'")):
        results.check(line.split(" ")[0] in requests, f"rocdoc.1:{number}: only known requests: {line[:60]}")
groff = subprocess.run(["groff", "-man", "-ww", "-z", man_page], capture_output=True, text=True)
results.check(groff.returncode == 0 and groff.stderr == "", f"groff -man -ww: {groff.stderr[:500]}")
for locale in ("C", "C.UTF-8"):
    env = dict(os.environ, MANWIDTH="80", LANG=locale, LC_ALL=locale, MANPAGER="cat", PAGER="cat")
    man = subprocess.run(["man", "--warnings", "-l", man_page], capture_output=True, text=True, env=env)
    results.check(man.returncode == 0 and man.stderr == "", f"man --warnings -l ({locale}): {man.stderr[:500]}")
    text = man.stdout
    for section in ("NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "OPTIONS", "READING THE REPORT",
                    "ENVIRONMENT", "EXIT STATUS", "FILES", "EXAMPLES", "SEE ALSO"):
        results.check(re.search(rf"^{section}$", text, re.M), f"man ({locale}) shows the section {section}")
    flat = " ".join(text.split())
    for command in commands:
        results.check(f"rocdoc {' '.join(command)}" in flat, f"man ({locale}) shows rocdoc {' '.join(command)}")
    for option in sorted(all_options):
        results.check(option in flat, f"man ({locale}) shows {option}")
    results.check("rocdoc - the ROCm environment doctor" in flat, f"man ({locale}): the NAME line")
    results.check(f"rocdoc {version}" in text.splitlines()[-1], f"man ({locale}): the footer names the version")
    results.check("(\\x1b, \\ufffe)" in flat, f"man ({locale}): backslashes survive: (\\x1b, \\ufffe)")
    results.check("Run 'rocdoc COMMAND --help' for usage." in flat, f"man ({locale}): apostrophes survive")
    results.check("rocdoc check --json --fail-on warning > rocdoc-report.json" in text,
                  f"man ({locale}): an example stays one unfilled line")
lexgrog = subprocess.run(["lexgrog", man_page], capture_output=True, text=True)
results.check("rocdoc - the ROCm environment doctor" in lexgrog.stdout,
              f"lexgrog (whatis) reads the NAME line: {lexgrog.stdout.strip()}")

# --- rocdoc completions SHELL: the scripts the build wrote, and errors.
for shell, name in (("bash", "rocdoc.bash"), ("zsh", "_rocdoc"), ("fish", "rocdoc.fish")):
    proc = run(binary, "completions", shell)
    results.check(proc.returncode == 0 and proc.stdout, f"completions {shell}: exit {proc.returncode}")
    path = os.path.join(completions_dir, name)
    results.check(os.path.exists(path) and open(path).read() == proc.stdout,
                  f"{path} is what rocdoc completions {shell} prints (target rocdoc_completions)")
for args, words in ((["tcsh"], "completions: unknown shell 'tcsh'; rocdoc completes bash, zsh and fish"),
                    ([], "completions: name the shell: bash, zsh or fish")):
    proc = run(binary, "completions", *args)
    results.check(proc.returncode == 2 and proc.stdout == "" and words in proc.stderr
                  and "Run 'rocdoc completions --help' for usage." in proc.stderr,
                  f"completions {args}: exit 2 naming the shells: {proc.returncode} {proc.stderr!r}")
proc = run(binary, "completion", "bash")
results.check(proc.returncode == 2 and "did you mean completions?" in proc.stderr,
              f"rocdoc completion: did you mean completions? {proc.stderr!r}")

scratch = tempfile.mkdtemp(prefix="rocdoc-completions-")
os.makedirs(os.path.join(scratch, "snapdir"))
open(os.path.join(scratch, "afile.log"), "w").close()
expect_perm = sorted(i for i in ids if i.startswith("perm."))
expect_arch = sorted(i for i in ids if i.startswith("torch.arch"))
results.check(expect_perm and expect_arch, f"the check table has perm.* and torch.arch*: {expect_arch}")

# --- bash, with Debian's bash-completion (and without it: the script's own fallback).
BASH_COMPLETION = "/usr/share/bash-completion/bash_completion"


def bash_complete(line, with_bash_completion=True):
    words = line.split(" ")
    script = ""
    if with_bash_completion:
        script += f"source {BASH_COMPLETION}\n"
    script += f"source {os.path.join(completions_dir, 'rocdoc.bash')}\n"
    script += "COMP_WORDS=(" + " ".join("'" + w + "'" for w in words) + ")\n"
    script += f"COMP_CWORD={len(words) - 1}\nCOMP_LINE='{line}'\nCOMP_POINT=${{#COMP_LINE}}\n"
    script += f"_rocdoc rocdoc '{words[-1]}' '{words[-2]}'\nprintf '%s\\n' \"${{COMPREPLY[@]}}\"\n"
    proc = subprocess.run(["bash", "--norc", "--noprofile", "-c", script], capture_output=True,
                          text=True, cwd=scratch, timeout=30)
    results.check(proc.returncode == 0 and proc.stderr == "", f"bash {line!r}: {proc.stderr[:300]}")
    return sorted(w for w in proc.stdout.split("\n") if w)


results.check(os.path.exists(BASH_COMPLETION), f"{BASH_COMPLETION} (Debian: bash-completion)")
# The rules' gfx targets, which `rules show`, `targets --has` and --gpu complete.
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "rules",
                       "gfx_targets.yaml"), encoding="utf-8") as f:
    rule_targets = [t["name"] for t in yaml.safe_load(f)["targets"]]
gfx115 = sorted(t for t in rule_targets if t.startswith("gfx115"))
gfx94 = sorted(t for t in rule_targets if t.startswith("gfx94"))
results.check(len(gfx115) >= 4 and len(gfx94) >= 3, f"the rules' gfx115x and gfx94x: {gfx115} {gfx94}")
for with_bc in (True, False):
    how = "with bash-completion" if with_bc else "without bash-completion"

    def bash(line, expected, exact=True):
        got = bash_complete(line, with_bc)
        ok = got == sorted(expected) if exact else set(expected) <= set(got)
        results.check(ok, f"bash ({how}) {line!r}: {got}, expected {sorted(expected)}")
        return got

    bash("rocdoc ch", ["check"])
    bash("rocdoc check --on", ["--only"])
    bash("rocdoc check --only perm.", expect_perm + ["perm.\\*"])
    bash("rocdoc check --skip perm.kfd,tor", [f"perm.kfd,{i}" for i in ids if i.startswith("tor")]
         + ["perm.kfd,torch.\\*"])
    bash("rocdoc explain torch.arch", expect_arch)
    bash("rocdoc completions ", ["bash", "fish", "zsh"])
    bash("rocdoc check --format ", ["human", "json", "markdown", "npd", "prometheus", "slurm"])
    bash("rocdoc explain perm.kfd --format ", ["human", "json", "markdown"])
    bash("rocdoc triage --fail-on ", ["error", "never", "warning"])
    bash("rocdoc rules ", ["lint", "show"])
    bash("rocdoc --js", ["--json", "--json-output"])
    bash("rocdoc --fail-on w", ["warning"])
    bash("rocdoc check --root ", ["snapdir"])  # directories only: not afile.log
    bash("rocdoc check --junit af", ["afile.log"])
    bash("rocdoc targets af", ["afile.log"])
    bash("rocdoc help ", [c for c in top_commands] + ["help", "version"])
    bash("rocdoc check --rules snapdir --on", ["--only"])
    # gfx targets of the rules: `rules show`, `targets --has`, and --gpu's comma list (N30).
    bash("rocdoc rules show gfx115", gfx115)
    bash("rocdoc targets --has gfx94", gfx94)
    bash("rocdoc check --gpu gfx942,gfx115", ["gfx942," + t for t in gfx115])
    # Every long option of every command's --help is completed: no second list to forget.
    for command in commands:
        _, options = help_words(*command)
        bash("rocdoc " + " ".join(command) + " -", sorted(options), exact=False)

# --- fish: complete -C on the script the build wrote.
fish_file = os.path.join(completions_dir, "rocdoc.fish")


def fish(line, expected, exact=True):
    proc = subprocess.run(["fish", "--no-config", "-c", f"source {fish_file}; complete -C '{line}'"],
                          capture_output=True, text=True, cwd=scratch, timeout=30)
    got = sorted(w.split("\t")[0] for w in proc.stdout.split("\n") if w)
    ok = got == sorted(expected) if exact else set(expected) <= set(got)
    results.check(proc.returncode == 0 and proc.stderr == "" and ok,
                  f"fish {line!r}: {got} {proc.stderr[:300]}, expected {sorted(expected)}")


fish("rocdoc ch", ["check"])
fish("rocdoc check --fo", ["--format"])
fish("rocdoc check --only perm.", expect_perm + ["perm.*"])
# Each check id is described by its title, not by the option's help (N30).
described = subprocess.run(["fish", "--no-config", "-c", f"source {fish_file}; complete -C 'rocdoc explain perm.k'"],
                           capture_output=True, text=True, cwd=scratch, timeout=30).stdout
results.check(described == "perm.kfd\t/dev/kfd read-write\n", f"fish describes a check id by its title: {described!r}")
fish("rocdoc check --only perm.kfd,perm.r", ["perm.kfd,perm.render", "perm.kfd,perm.relogin"]
     if "perm.relogin" in ids else ["perm.kfd,perm.render"], exact=False)
fish("rocdoc explain torch.arch", expect_arch)
fish("rocdoc completions ", ["bash", "fish", "zsh"])
fish("rocdoc check --fail-on ", ["error", "never", "warning"])
fish("rocdoc check --format ", ["human", "json", "markdown", "npd", "prometheus", "slurm"])
fish("rocdoc triage --format ", ["human", "json", "markdown"])
fish("rocdoc rules ", ["lint", "show"])
fish("rocdoc rules lint --", ["--help"])
fish("rocdoc check --root sn", ["snapdir/"])
fish("rocdoc triage af", ["afile.log"])
fish("rocdoc rules show gfx115", gfx115)
fish("rocdoc check --gpu gfx942,gfx115", ["gfx942," + t for t in gfx115])
for command in commands:
    _, options = help_words(*command)
    fish("rocdoc " + " ".join(command) + " --", sorted(options), exact=False)


# --- zsh: the real completion system (compinit, fpath) in an interactive zsh on a pty. rocdoc
# is a function there that prints its arguments, so a line completed with TAB and run shows what
# the completion inserted.
def zsh_session(lines, sourced=False):
    """Runs `lines` in zsh -i; _rocdoc found on $fpath, or (sourced) loaded after compinit."""
    zdotdir = tempfile.mkdtemp(prefix="rocdoc-zsh-")
    with open(os.path.join(zdotdir, ".zshrc"), "w") as f:
        f.write(("" if sourced else f"fpath=({completions_dir} $fpath)\n") +
                f"autoload -U compinit && compinit -u -d {zdotdir}/.zcompdump\n" +
                (f"source <({binary} completions zsh)\n" if sourced else "") +
                "rocdoc() { print -r -- \"ARGS:$*\" }\nPROMPT='%% '\nunsetopt beep\n")
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(scratch)
        os.execve(shutil.which("zsh"), ["zsh", "-i"],
                  {"ZDOTDIR": zdotdir, "TERM": "xterm", "PATH": os.environ["PATH"], "HOME": zdotdir})
    output = b""

    def read_for(seconds):
        nonlocal output
        end = time.time() + seconds
        while time.time() < end:
            ready, _, _ = select.select([fd], [], [], 0.1)
            if ready:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:
                    return False
                if not chunk:
                    return False
                output += chunk
        return True

    read_for(2)
    for line in lines:
        os.write(fd, line.encode())
        read_for(1.5)
    os.write(fd, b"exit\n")
    read_for(3)
    os.waitpid(pid, 0)
    shutil.rmtree(zdotdir, ignore_errors=True)
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\r", "", output.decode(errors="replace"))
    return re.findall(r"^ARGS:(.*)$", text, re.M)


zsh_cases = [
    ("rocdoc ch\t", "check"),
    ("rocdoc check --on\t", "check --only"),
    ("rocdoc check --only perm.kf\t", "check --only perm.kfd"),
    ("rocdoc check --skip perm.kfd,torch.arch-m\t", "check --skip perm.kfd,torch.arch-missing"),
    (f"rocdoc explain {expect_arch[0][:-1]}\t", f"explain {expect_arch[0]}"),
    ("rocdoc completions fi\t", "completions fish"),
    ("rocdoc check --fail-on w\t", "check --fail-on warning"),
    ("rocdoc rules l\t", "rules lint"),
    ("rocdoc check --root sn\t", "check --root snapdir"),  # snapdir/, its slash removed by Enter
    ("rocdoc triage af\t", "triage afile.log"),
    ("rocdoc check --format mark\t", "check --format markdown"),
    ("rocdoc rules show gfx95\t", "rules show gfx950"),
    ("rocdoc check --gpu gfx942,gfx125\t", "check --gpu gfx942,gfx1250"),
]
results.check("torch.arch-missing" in ids, "torch.arch-missing is a check id (the zsh case needs it)")
zsh_syntax = subprocess.run(["zsh", "-n", os.path.join(completions_dir, "_rocdoc")], capture_output=True, text=True)
results.check(zsh_syntax.returncode == 0, f"zsh -n _rocdoc: {zsh_syntax.stderr}")
got = zsh_session([line + "\n" for line, _ in zsh_cases])
for (line, expected), actual in zip(zsh_cases, got + [None] * len(zsh_cases)):
    results.check(actual is not None and actual.strip() == expected,
                  f"zsh {line!r}: ran 'rocdoc {actual}', expected 'rocdoc {expected}'")
# As README says for a build that is not installed: source <(rocdoc completions zsh).
got = zsh_session([line + "\n" for line, _ in zsh_cases[:3]], sourced=True)
for (line, expected), actual in zip(zsh_cases[:3], got + [None] * 3):
    results.check(actual is not None and actual.strip() == expected,
                  f"zsh, sourced, {line!r}: ran 'rocdoc {actual}', expected 'rocdoc {expected}'")

shutil.rmtree(scratch, ignore_errors=True)
results.finish()
