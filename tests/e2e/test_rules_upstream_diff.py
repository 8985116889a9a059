#!/usr/bin/python3
"""scripts/rules-upstream-diff.py on excerpts of the upstream files (tests/data/upstream):
what it reports for the shipped rules, and that it finds each kind of gap in a rules copy that
lacks the facts."""
import os
import shutil
import subprocess
import sys
import tempfile

import yaml

sys.path.insert(0, os.path.dirname(__file__))
from common import SOURCE_DIR, Results  # noqa: E402

SCRIPT = os.path.join(SOURCE_DIR, "scripts", "rules-upstream-diff.py")
DATA = os.path.join(SOURCE_DIR, "tests", "data", "upstream")
INPUTS = ["--build-matrix", os.path.join(DATA, "generate_binary_build_matrix.py.txt"),
          "--compat-matrix", os.path.join(DATA, "compatibility-matrix.rst.txt"),
          "--kfd-device", os.path.join(DATA, "kfd_device.c.txt"),
          "--amdgpu-drv", os.path.join(DATA, "amdgpu_drv.c.txt"),
          "--pci-ids", os.path.join(DATA, "pci.ids.txt")]


def diff(*args):
    proc = subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True,
                          timeout=60)
    return proc.returncode, proc.stdout.splitlines(), proc.stderr


def edit(rules_dir, name, change):
    path = os.path.join(rules_dir, name)
    with open(path, encoding="utf-8") as handle:
        data = yaml.safe_load(handle)
    change(data)
    with open(path, "w", encoding="utf-8") as handle:
        yaml.safe_dump(data, handle)


def main():
    r = Results()

    # The shipped rules against these sources: one known, documented disagreement.
    code, lines, err = diff(*INPUTS)
    r.check(code == 1, f"shipped rules: exit 1 (one difference), got {code} {err}")
    r.check(lines == ["~ rocm_releases.yaml: ROCm 7.1 lists azurelinux 3.0, the 7.1.0 column "
                      "does not"], f"shipped rules: {lines}")

    # A copy of the rules a year behind: every kind of gap is reported.
    with tempfile.TemporaryDirectory() as temp:
        rules = os.path.join(temp, "rules")
        shutil.copytree(os.path.join(SOURCE_DIR, "rules"), rules)
        edit(rules, "gfx_targets.yaml", lambda d: d.update(
            targets=[t for t in d["targets"] if t["name"] not in ("gfx1153", "gfx1154")]))
        edit(rules, "pci_ids.yaml", lambda d: d.update(
            devices=[e for e in d["devices"] if e["id"] not in ("13fe", "73bf")]))
        edit(rules, "torch.yaml", lambda d: (d.update(releases=d["releases"][:-2]),
                                             d.update(nightly_indexes=["rocm7.14"])))
        edit(rules, "rocm_releases.yaml", lambda d: [
            os_entry.update(versions=[v for v in os_entry["versions"] if v != "13"])
            for release in d["releases"] if release["rocm"] == "7.2" for os_entry in release["os"]
            if os_entry["id"] == "debian"])
        code, lines, err = diff("--rules", rules, *INPUTS)
        r.check(code == 1, f"old rules: exit 1, got {code} {err}")
        expected = [
            "~ torch.yaml: the build matrix releases ROCm 7.14, 7.2; rules' newest torch 2.13.0 "
            "has 7.1, 7.2 (a newer torch release?)",
            "+ torch.yaml: nightly index rocm10.0",
            "+ rocm_releases.yaml: ROCm 7.2 supports debian 13",
            "+ gfx_targets.yaml: gfx1153 (kfd 110503, GC IP 11.5.3)",
            "+ gfx_targets.yaml: gfx1154 (kfd 110504, GC IP 11.5.4)",
            "+ pci_ids.yaml: 13fe CHIP_CYAN_SKILLFISH (Cyan Skillfish [BC-250])",
            "+ pci_ids.yaml: 73bf CHIP_SIENNA_CICHLID (Navi 21 [Radeon RX 6800/6800 XT / 6900 XT])",
        ]
        for line in expected:
            r.check(line in lines, f"old rules report {line!r}: {lines}")

    # Usage errors are exit 2.
    code, _, err = diff()
    r.check(code == 2 and "name at least one upstream file" in err, f"no input: {code} {err}")
    code, _, err = diff("--pci-ids", os.path.join(DATA, "missing.txt"))
    r.check(code == 2 and "missing.txt" in err, f"missing file: {code} {err}")
    r.finish()


if __name__ == "__main__":
    main()
