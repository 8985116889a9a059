"""The .deb and .rpm that CPack makes from a build (cmake/Packaging.cmake), and cmake --install.

Usage: test_packages.py BUILD_DIR

Builds both packages from BUILD_DIR's CPackConfig.cmake into a scratch directory, and asserts:
- the exact file set of each (dpkg-deb -c, rpm -qpl), modes and owners, and their metadata
  (dpkg-deb -f, rpm -qp --queryformat), Depends/Requires naming nothing but libc;
- the packaged binary is stripped and needs only glibc (libc.so.6 and ld-linux);
- changelog.Debian.gz and copyright as Debian policy wants them;
- lintian reports no error, and no warning beyond ACCEPTED_LINTIAN_WARNINGS;
- the .deb installs into an empty root with `dpkg --root` (a real dpkg install: its database,
  file list and purge, not just unpacking; --force-depends because that root has no libc6
  package, its libc being the host's), the .rpm likewise with `rpm --root --nodeps`, and each
  installed binary gives the fixtures' exit codes and findings;
- `cmake --install BUILD_DIR --prefix TMP` installs the .deb's files less the Debian-only ones.
Test-only dependencies (scripts/install-test-deps.sh): lintian, rpm (rpmbuild), dpkg-dev
(dpkg-shlibdeps), binutils.
"""
import glob
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from common import FIXTURES, SOURCE_DIR, Results

# lintian warnings this package accepts, with the reason. Anything else fails the test.
ACCEPTED_LINTIAN_WARNINGS = {
    # The changelog's only entry closes no bug: rocdoc is not uploaded to Debian, so there is no
    # ITP bug to close.
    "initial-upload-closes-no-bugs": "not a Debian upload: no ITP bug",
}


def sh(*args, cwd=None, env=None, check=True):
    proc = subprocess.run(list(args), capture_output=True, text=True, cwd=cwd, env=env, timeout=300)
    if check and proc.returncode != 0:
        print(f"command failed ({proc.returncode}): {' '.join(args)}\n{proc.stdout}\n{proc.stderr}")
        sys.exit(1)
    return proc


def project_version():
    with open(os.path.join(SOURCE_DIR, "CMakeLists.txt")) as f:
        match = re.search(r"project\(rocdoc VERSION ([0-9.]+)", f.read())
    return match.group(1)


def expected_common():
    """What cmake/Install.cmake installs, relative to the prefix."""
    files = {
        "bin/rocdoc",
        "share/man/man1/rocdoc.1.gz",
        "share/bash-completion/completions/rocdoc",
        "share/zsh/vendor-completions/_rocdoc",
        "share/fish/vendor_completions.d/rocdoc.fish",
        "share/doc/rocdoc/README.md",
        "share/doc/rocdoc/LICENSE",
    }
    schemas = sorted(os.path.basename(p) for p in glob.glob(os.path.join(SOURCE_DIR, "docs", "*.schema.json")))
    assert "report.schema.json" in schemas and "rules.schema.json" in schemas, schemas
    files |= {f"share/rocdoc/schemas/{name}" for name in schemas}
    pages = [os.path.basename(p) for p in glob.glob(os.path.join(SOURCE_DIR, "docs", "*.md"))]
    assert "checks.md" in pages and "rocdoc.1.md" in pages, pages
    files |= {f"share/doc/rocdoc/{name}" for name in pages}
    files |= {f"share/rocdoc/contrib/{path}" for path in contrib_files()}
    return files


def contrib_files():
    """contrib/'s files, relative to it: installed under share/rocdoc/contrib."""
    top = os.path.join(SOURCE_DIR, "contrib")
    found = {os.path.relpath(os.path.join(d, f), top) for d, _, fs in os.walk(top) for f in fs}
    assert "slurm/rocdoc-slurm-healthcheck" in found, sorted(found)
    return found


def executable(path):
    """Whether a path of the packages (usr/...) is installed executable: the binary and the Slurm
    health check."""
    return path.lstrip("/") in ("usr/bin/rocdoc", "usr/share/rocdoc/contrib/slurm/rocdoc-slurm-healthcheck")


def contrib_dirs():
    """The directories under usr/share/rocdoc/contrib that a package owns."""
    dirs = {"usr/share/rocdoc/contrib"}
    dirs |= {f"usr/share/rocdoc/contrib/{os.path.dirname(p)}" for p in contrib_files() if os.path.dirname(p)}
    return dirs


DEB_ONLY = {"share/doc/rocdoc/changelog.Debian.gz", "share/doc/rocdoc/copyright", "share/lintian/overrides/rocdoc"}
RPM_ONLY = {"share/zsh/site-functions/_rocdoc"}


def needed_libraries(binary):
    out = sh("objdump", "-p", binary).stdout
    return sorted(line.split()[1] for line in out.splitlines() if line.strip().startswith("NEEDED"))


def is_stripped(binary):
    out = sh("readelf", "-S", "-W", binary).stdout
    return ".symtab" not in out and ".debug_info" not in out


def run_fixtures(r, binary, where):
    for fixture in ("full-stack-healthy", "user-needs-relogin"):
        with open(os.path.join(FIXTURES, fixture, "expect.json")) as f:
            expect = json.load(f)
        proc = subprocess.run([binary, "check", "--json", "--root", os.path.join(FIXTURES, fixture)],
                              capture_output=True, text=True, timeout=60)
        r.check(proc.returncode == expect["exit"],
                f"{where}: rocdoc check --root {fixture} exits {proc.returncode}, expected {expect['exit']}: {proc.stderr}")
        if proc.returncode in (0, 1):
            report = json.loads(proc.stdout)
            fired = sorted(c["id"] for c in report["checks"] if c["status"] in ("fail", "warn"))
            wanted = sorted(set(expect["fail"]) | set(expect["warn"]) | set(expect["info"]))
            r.check(fired == wanted, f"{where}: {fixture} findings {fired}, expected {wanted}")


def main():
    build_dir = os.path.abspath(sys.argv[1])
    r = Results()
    version = project_version()
    for tool in ("cpack", "dpkg-deb", "dpkg", "rpm", "rpmbuild", "lintian", "objdump", "readelf"):
        if shutil.which(tool) is None:
            print(f"FAILED: {tool} is missing (scripts/install-test-deps.sh installs it)")
            sys.exit(1)
    common = expected_common()
    tmp = tempfile.mkdtemp(prefix="rocdoc-packages-")
    try:
        # 1. Both packages, from the build's own CPack configuration, into a scratch directory.
        sh("cpack", "--config", os.path.join(build_dir, "CPackConfig.cmake"), "-B", os.path.join(tmp, "out"))
        debs = glob.glob(os.path.join(tmp, "out", "*.deb"))
        rpms = glob.glob(os.path.join(tmp, "out", "*.rpm"))
        arch = sh("dpkg", "--print-architecture").stdout.strip()
        rpm_arch = os.uname().machine
        r.check([os.path.basename(p) for p in debs] == [f"rocdoc_{version}-1_{arch}.deb"], f"the .deb: {debs}")
        r.check([os.path.basename(p) for p in rpms] == [f"rocdoc-{version}-1.{rpm_arch}.rpm"], f"the .rpm: {rpms}")
        if len(debs) != 1 or len(rpms) != 1:
            r.finish()
        deb, rpm = debs[0], rpms[0]

        # 2. The .deb: files, modes, owners, metadata.
        files, dirs = {}, set()
        for line in sh("dpkg-deb", "-c", deb).stdout.splitlines():
            mode, owner, _size, _date, _time, path = line.split(None, 5)
            path = path.removeprefix("./")
            if path.endswith("/"):
                dirs.add(path)
                r.check(mode == "drwxr-xr-x" and owner == "root/root", f".deb directory {path}: {mode} {owner}")
            else:
                files[path] = (mode, owner)
        expected_deb = {f"usr/{p}" for p in common | DEB_ONLY}
        r.check(set(files) == expected_deb,
                f".deb files: missing {sorted(expected_deb - set(files))}, extra {sorted(set(files) - expected_deb)}")
        for path, (mode, owner) in files.items():
            want = "-rwxr-xr-x" if executable(path) else "-rw-r--r--"
            r.check(mode == want and owner == "root/root", f".deb {path}: {mode} {owner}, expected {want} root/root")
        r.check(not any(d.startswith(("etc/", "opt/", "usr/local/")) for d in dirs), f".deb directories: {sorted(dirs)}")

        def field(name):
            return sh("dpkg-deb", "-f", deb, name).stdout.strip()

        r.check(field("Package") == "rocdoc", f"Package: {field('Package')}")
        r.check(field("Version") == f"{version}-1", f"Version: {field('Version')}")
        r.check(field("Architecture") == arch, f"Architecture: {field('Architecture')}")
        r.check(field("Section") == "utils", f"Section: {field('Section')}")
        r.check(field("Priority") == "optional", f"Priority: {field('Priority')}")
        r.check(re.fullmatch(r"[^<>]+ <[^<>@ ]+@[^<>@ ]+>", field("Maintainer")) is not None,
                f"Maintainer: {field('Maintainer')}")
        r.check(field("Description").startswith("ROCm environment doctor"), f"Description: {field('Description')}")
        r.check(field("Suggests") == "pciutils", f"Suggests: {field('Suggests')}")
        depends = field("Depends")
        match = re.fullmatch(r"libc6 \(>= 2\.(\d+)\)", depends)
        r.check(match is not None and int(match.group(1)) <= 35,
                f"Depends names only libc6 at or below the 2.35 floor: {depends!r}")
        r.check(field("Recommends") == "" and field("Pre-Depends") == "", "no Recommends or Pre-Depends")
        r.check(int(field("Installed-Size") or "0") > 1000, f"Installed-Size: {field('Installed-Size')}")

        unpacked = os.path.join(tmp, "deb-x")
        sh("dpkg-deb", "-x", deb, unpacked)
        binary = os.path.join(unpacked, "usr", "bin", "rocdoc")
        r.check(is_stripped(binary), "the packaged binary is stripped")
        needed = needed_libraries(binary)  # glibc's own two: libc and its dynamic loader
        r.check("libc.so.6" in needed and all(n == "libc.so.6" or n.startswith("ld-linux") for n in needed),
                f"the packaged binary needs {needed}")
        doc = os.path.join(unpacked, "usr", "share", "doc", "rocdoc")
        with open(os.path.join(doc, "changelog.Debian.gz"), "rb") as f:
            raw = f.read()
        # gzip -9n: no file name (FLG.FNAME, bit 3) and no time stamp (MTIME 0), maximum compression (XFL 2).
        r.check(raw[:2] == b"\x1f\x8b" and not raw[3] & 0x08 and raw[4:8] == b"\0\0\0\0" and raw[8] == 2,
                "changelog.Debian.gz is gzip -9n")
        changelog = gzip.decompress(raw).decode()
        r.check(changelog.startswith(f"rocdoc ({version}-1) unstable; urgency=medium\n"), f"changelog: {changelog[:80]!r}")
        r.check(re.search(r"\n -- [^<>]+ <[^<>]+>  \w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d \+0000\n$", changelog) is not None,
                f"changelog trailer: {changelog[-100:]!r}")
        with open(os.path.join(doc, "copyright")) as f:
            copyright_text = f.read()
        r.check(copyright_text.startswith("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n")
                and "License: Expat" in copyright_text, "copyright is machine-readable, Expat (MIT)")
        with gzip.open(os.path.join(unpacked, "usr", "share", "man", "man1", "rocdoc.1.gz"), "rt") as f:
            r.check(".TH" in f.read(), "rocdoc.1.gz is a man page")

        # 3. lintian: no error, only accepted warnings.
        lint = sh("lintian", "--no-cfg", deb, check=False)
        print("lintian:\n" + lint.stdout.strip())
        tags = [line.split(": ", 2) for line in lint.stdout.splitlines() if re.match(r"[EWX]: ", line)]
        errors = [t for t in tags if t[0] in ("E", "X")]
        r.check(not errors and lint.returncode in (0, 2), f"lintian errors: {errors} (exit {lint.returncode})")
        for tag in tags:
            name = tag[2].split()[0] if len(tag) > 2 else tag
            if tag[0] == "W":
                r.check(name in ACCEPTED_LINTIAN_WARNINGS, f"lintian warning not accepted: {': '.join(tag)}")

        # 4. The .deb installed into an empty root, then run from there, then purged.
        root = os.path.join(tmp, "root")
        for d in ("var/lib/dpkg/info", "var/lib/dpkg/updates"):
            os.makedirs(os.path.join(root, d))
        open(os.path.join(root, "var/lib/dpkg/status"), "w").close()
        sh("dpkg", f"--root={root}", "--force-depends", "-i", deb)
        status = sh("dpkg-query", f"--root={root}", "-W", "-f=${Status} ${Version}", "rocdoc").stdout
        r.check(status == f"install ok installed {version}-1", f"dpkg status in the root: {status!r}")
        listed = {p.lstrip("/") for p in sh("dpkg-query", f"--root={root}", "-L", "rocdoc").stdout.split()}
        r.check(expected_deb <= listed, f"dpkg -L lacks {sorted(expected_deb - listed)}")
        installed = os.path.join(root, "usr", "bin", "rocdoc")
        version_out = sh(installed, "--version").stdout
        r.check(version_out.startswith(f"rocdoc {version}"), f"installed rocdoc --version: {version_out!r}")
        run_fixtures(r, installed, "the installed .deb")
        sh("dpkg", f"--root={root}", "--purge", "rocdoc")
        left = [os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) for f in fs
                if not os.path.relpath(d, root).startswith("var/lib/dpkg")]
        r.check(left == [] and not os.path.exists(os.path.join(root, "usr")), f"purge leaves {left}")

        # 5. The .rpm: files and metadata; Requires name only libc and the dynamic loader.
        rpm_files = {p.lstrip("/") for p in sh("rpm", "-qpl", rpm).stdout.split()}
        rpm_dirs = {"usr/share/doc/rocdoc", "usr/share/rocdoc", "usr/share/rocdoc/schemas"} | contrib_dirs()
        expected_rpm = {f"usr/{p}" for p in common | RPM_ONLY} | rpm_dirs
        r.check(rpm_files == expected_rpm,
                f".rpm files: missing {sorted(expected_rpm - rpm_files)}, extra {sorted(rpm_files - expected_rpm)}")
        info = sh("rpm", "-qp", "--queryformat", "%{NAME}|%{VERSION}|%{RELEASE}|%{ARCH}|%{LICENSE}|%{VENDOR}|%{SUMMARY}", rpm).stdout
        r.check(info == f"rocdoc|{version}|1|{rpm_arch}|MIT|The rocdoc authors|"
                "ROCm environment doctor: why ROCm or PyTorch cannot use the GPU", f"rpm -qpi: {info!r}")
        requires = sh("rpm", "-qpR", rpm).stdout.split("\n")
        # /bin/sh: rpmbuild's dependency of contrib/slurm's sh script; every system has it.
        libs = [q for q in requires if q and not q.startswith(("rpmlib(", "rtld(")) and q != "/bin/sh"]
        r.check(libs and all(re.match(r"(libc\.so\.6|ld-linux-x86-64\.so\.2)\(", q) for q in libs),
                f".rpm Requires more than libc: {libs}")
        glibc = [int(m.group(1)) for q in libs for m in [re.search(r"GLIBC_2\.(\d+)", q)] if m]
        r.check(glibc and max(glibc) <= 35, f".rpm needs glibc 2.{max(glibc) if glibc else '?'}")
        modes = sh("rpm", "-qp", "--queryformat", "[%{FILEMODES:perms} %{FILEUSERNAME} %{FILENAMES}\n]", rpm).stdout
        for line in modes.splitlines():
            mode, user, path = line.split(" ", 2)
            want = "drwxr-xr-x" if path.lstrip("/") in rpm_dirs else (
                "-rwxr-xr-x" if executable(path) else "-rw-r--r--")
            r.check(mode == want and user == "root", f".rpm {path}: {mode} {user}, expected {want} root")

        # The .rpm installed into an empty root (rpm --root, its own database; --nodeps: that root
        # has no glibc package), run from there, then erased.
        rroot = os.path.join(tmp, "rpm-root")
        rpm_db = ["--root", rroot, "--dbpath", "/var/lib/rpm"]
        os.makedirs(os.path.join(rroot, "var/lib/rpm"))
        sh("rpm", *rpm_db, "--initdb")
        sh("rpm", *rpm_db, "-i", "--nodeps", "--nosignature", rpm)
        r.check(sh("rpm", *rpm_db, "-q", "rocdoc").stdout.strip() == f"rocdoc-{version}-1.{rpm_arch}",
                "rpm -q in the root")
        run_fixtures(r, os.path.join(rroot, "usr", "bin", "rocdoc"), "the installed .rpm")
        sh("rpm", *rpm_db, "-e", "rocdoc")
        left = [os.path.relpath(os.path.join(d, f), rroot) for d, _, fs in os.walk(rroot) for f in fs
                if not os.path.relpath(d, rroot).startswith("var/lib/rpm")]
        r.check(left == [], f"rpm -e leaves {left}")

        # 6. cmake --install: the same files as the .deb, less the Debian-only ones.
        prefix = os.path.join(tmp, "prefix")
        sh("cmake", "--install", build_dir, "--prefix", prefix)
        installed_files = {os.path.relpath(os.path.join(d, f), prefix) for d, _, fs in os.walk(prefix) for f in fs}
        r.check(installed_files == common,
                f"cmake --install: missing {sorted(common - installed_files)}, extra {sorted(installed_files - common)}")
        r.check({f"usr/{p}" for p in installed_files} == expected_deb - {f"usr/{p}" for p in DEB_ONLY},
                "cmake --install installs the .deb's files less the Debian-only ones")
        run_fixtures(r, os.path.join(prefix, "bin", "rocdoc"), "cmake --install")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    r.finish()


if __name__ == "__main__":
    main()
