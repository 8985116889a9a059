#!/usr/bin/python3
"""scripts/rules-upstream-diff.py on verbatim excerpts of the upstream files (tests/data/upstream,
cited in its README.md): what it prints for the shipped rules, that it finds each kind of gap in
a rules copy that lacks the facts, that it stays quiet where upstream and rules agree in other
words, and that bad input is exit 2 with the file named."""
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
KFD = ["--kfd-device", os.path.join(DATA, "kfd_device.c.txt"),
       "--kfd-device", os.path.join(DATA, "kfd_device-gc-11.5.6.patch.txt")]
INPUTS = ["--build-matrix", os.path.join(DATA, "generate_binary_build_matrix.py.txt"),
          "--compat-matrix", os.path.join(DATA, "compatibility-matrix.rst.txt"),
          # gpus.yaml and os-support.yaml as the ROCm 10.1 documentation (README.md: why).
          "--docs-release", "10.1",
          "--gpus", os.path.join(DATA, "gpus.yaml.txt"),
          "--os-support", os.path.join(DATA, "os-support.yaml.txt"),
          *KFD,
          "--amdgpu-drv", os.path.join(DATA, "amdgpu_drv.c.txt"),
          "--pci-ids", os.path.join(DATA, "pci.ids.txt")]
# The driver table ends at 31.50.0, ROCm 10.0's driver: it is 10.0's.
DRIVERS = ["--docs-release", "10.0",
           "--driver-firmware", os.path.join(DATA, "driver-firmware-support.yaml.txt")]

# What the shipped rules get with the 2026-12 audit's facts in them. Each line is true: the build
# matrix excerpt is older than the rules; the 7.1 Azure Linux row is kept on purpose (its note
# says why).
SHIPPED = [
    "! generate_binary_build_matrix.py: older than the rules (its CURRENT_STABLE_VERSION is "
    "2.13.0, rules' newest torch 2.14.1): only that release was compared, its nightly indexes "
    "were not",
    "~ rocm_releases.yaml: ROCm 7.1 lists azurelinux 3.0, the 7.1.0 column does not",
]

# pciidlist ids of the excerpt that are SI, CIK or pre-Polaris VI: never reported.
PRE_ROCM_IDS = ["6780", "6784", "6800", "1304", "67a0", "6920"]


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


def rules_copy(temp):
    rules = os.path.join(temp, "rules")
    shutil.copytree(os.path.join(SOURCE_DIR, "rules"), rules)
    return rules


def target(data, name):
    return next(t for t in data["targets"] if t["name"] == name)


def release(data, rocm):
    return next(r for r in data["releases"] if str(r["rocm"]) == rocm)


def without(names, *drop):
    return [n for n in names or [] if n not in drop]


def old_gfx_targets(d):
    """A year behind: no gfx1153/gfx1154, RX 7600 not yet in 10.0, products missing, gfx906 and
    gfx1030 "deprecated", and GC 10.3.7 believed to be gfx1035 (a changed KFD value)."""
    d["targets"] = [t for t in d["targets"] if t["name"] not in ("gfx1153", "gfx1154")]
    target(d, "gfx1102")["rocm"].pop("10.1", None)
    gfx1201 = target(d, "gfx1201")
    gfx1201["products"] = without(gfx1201.get("products"), "Radeon AI PRO R9700S")
    gfx1151 = target(d, "gfx1151")
    gfx1151["products"] = without(gfx1151.get("products"), "Radeon 8065S")
    gfx1151["processors"] = without(gfx1151.get("processors"), "Ryzen AI Max+ PRO 495")
    target(d, "gfx906")["rocm"].update({"7.2": "deprecated", "10.1": "deprecated"})
    target(d, "gfx1030")["rocm"]["10.1"] = "deprecated"
    target(d, "gfx1035").update(note="Rembrandt iGPU (GC 10.3.3 and 10.3.7).", source="test")
    target(d, "gfx1036").update(note="Raphael iGPU (GC 10.3.6).", source="test")


def old_rocm_releases(d):
    """No Debian 13 in 7.2, no SLES 16.0 in 10.1, and no word of driver 31.50."""
    for os_entry in release(d, "7.2")["os"]:
        if os_entry["id"] == "debian":
            os_entry["versions"] = without(os_entry["versions"], "13")
    for os_entry in release(d, "10.1")["os"]:
        if os_entry["id"] == "sles":
            os_entry["versions"] = without(os_entry["versions"], "16.0")
    for rocm in ("10.0", "10.1"):
        release(d, rocm)["driver_compat"] = "AMD GPU Driver 31.40.x and older"
    d["driver_versions"] = [v for v in d["driver_versions"] if not str(v["rocm"]).startswith("10")]


def old_wsl(d):
    """A 10.1 row with 7.2's GPUs and distributions (M11's gap)."""
    d["releases"] = [r for r in d["releases"] if not str(r["rocm"]).startswith("10")]
    d["releases"].append({"rocm": "10.1", "runtime_library": "librocdxg.so", "source": "test",
                          "distros": ["ubuntu 24.04", "ubuntu 22.04"],
                          "gpus": ["gfx1100", "gfx1101", "gfx1151", "gfx1200", "gfx1201"]})


def old_pci_ids(d):
    d["devices"] = [e for e in d["devices"] if e["id"] not in ("13fe", "73bf")]
    for entry in d["devices"]:
        if entry["id"] == "13f9":
            entry["name"] = "BC-250 APU"  # a different name: reported
        if entry["id"] == "1900":
            entry["name"] = "Hawk Point1 iGPU (Radeon 780M / Radeon 760M)"  # HawkPoint1: not


OLD_EXPECTED = [
    "+ torch.yaml: torch 2.13.0 (the build matrix's CURRENT_STABLE_VERSION) with ROCm indexes "
    "rocm7.1, rocm7.2; rules' newest is 2.12.1",
    "+ torch.yaml: nightly index rocm7.2",
    "+ torch.yaml: nightly index rocm7.14",
    "+ rocm_releases.yaml: ROCm 7.2 supports debian 13",
    "+ gfx_targets.yaml: gfx1102 on ROCm 10.1's GPU list (AMD Radeon RX 7600) (not supported "
    "there in rules)",
    "+ gfx_targets.yaml: gfx1153 on ROCm 10.1's GPU list (AMD Ryzen AI 5 435) (unknown target)",
    "~ gfx_targets.yaml: gfx1030 on ROCm 10.1's GPU list (gpus.yaml); rules say deprecated",
    "+ gfx_targets.yaml: gfx1201 product Radeon AI PRO R9700S (gpus.yaml)",
    "+ gfx_targets.yaml: gfx1151 product Radeon 8065S (gpus.yaml: AMD Ryzen AI Max+ PRO 495)",
    "+ rocm_releases.yaml: ROCm 10.1 supports sles 16.0 (os-support.yaml)",
    "+ wsl.yaml: ROCm 10.1 WSL2 GPU gfx1150 (os-support.yaml: AMD Ryzen AI 9 HX 370)",
    "+ wsl.yaml: ROCm 10.1 WSL2 GPU gfx1152 (os-support.yaml: AMD Ryzen AI 7 PRO 450)",
    "+ wsl.yaml: ROCm 10.1 WSL2 GPU gfx1153 (os-support.yaml: AMD Ryzen AI 5 435)",
    "+ wsl.yaml: ROCm 10.1 WSL2 distribution ubuntu 26.04 (os-support.yaml)",
    "~ gfx_targets.yaml: GC IP 10.3.7 reports 100306 (gfx1036) in kfd_device.c; rules name it "
    "under gfx1035 (kfd 100305)",
    "+ gfx_targets.yaml: gfx1153 (kfd 110503, GC IP 11.5.3)",
    "+ gfx_targets.yaml: gfx1154 (kfd 110504, GC IP 11.5.6)",
    "+ pci_ids.yaml: 13fe CHIP_CYAN_SKILLFISH (Cyan Skillfish [BC-250])",
    "+ pci_ids.yaml: 73bf CHIP_SIENNA_CICHLID (Navi 21 [Radeon RX 6800/6800 XT / 6900 XT])",
    "~ pci_ids.yaml: 13f9 is 'BC-250 APU', pci.ids says 'Oberon/Navi12Lite'",
    "+ rocm_releases.yaml: AMD GPU Driver 31.50.0 is supported with ROCm 10.0 "
    "(driver-firmware-support.yaml); no release names 31.50",
]


def check_quiet(r, lines, case):
    """What must never be reported: SI/CIK/pre-Polaris ids, "deprecated" targets AMD does not
    list, names that differ in spacing only, a stale nightly index."""
    for device in PRE_ROCM_IDS:
        r.check(not any(f"pci_ids.yaml: {device} " in line for line in lines),
                f"{case}: {device} (SI/CIK/VI) not reported: {lines}")
    r.check(not any("gfx906" in line for line in lines), f"{case}: gfx906 quiet: {lines}")
    r.check(not any("pci_ids.yaml: 1900" in line for line in lines),
            f"{case}: HawkPoint1 = Hawk Point1: {lines}")
    r.check(not any("newer torch" in line for line in lines), f"{case}: no 'newer torch': {lines}")


def test_shipped(r):
    code, lines, err = diff(*INPUTS)
    r.check(code == 1, f"shipped rules: exit 1, got {code} {err}")
    r.check(lines == SHIPPED, "shipped rules print:\n  " + "\n  ".join(lines))
    code, drivers, err = diff(*DRIVERS)
    r.check(code == 0 and drivers == ["no differences"], f"shipped drivers: {code} {drivers} {err}")
    r.check(not any(line.startswith("+ torch.yaml: nightly") for line in lines),
            f"shipped rules: a stale build matrix's nightlies are not new: {lines}")
    check_quiet(r, lines, "shipped rules")


def test_old_rules(r):
    with tempfile.TemporaryDirectory() as temp:
        rules = rules_copy(temp)
        edit(rules, "gfx_targets.yaml", old_gfx_targets)
        edit(rules, "rocm_releases.yaml", old_rocm_releases)
        edit(rules, "wsl.yaml", old_wsl)
        edit(rules, "pci_ids.yaml", old_pci_ids)
        edit(rules, "torch.yaml", lambda d: d.update(
            releases=[t for t in d["releases"] if [int(p) for p in t["torch"].split(".")]
                      <= [2, 12, 1]],
            nightly_indexes=["rocm7.1"]))
        code, lines, err = diff("--rules", rules, *INPUTS)
        r.check(code == 1, f"old rules: exit 1, got {code} {err}")
        code, drivers, err = diff("--rules", rules, *DRIVERS)
        r.check(code == 1, f"old rules, drivers: exit 1, got {code} {err}")
        lines += drivers
        for line in OLD_EXPECTED:
            r.check(line in lines, f"old rules report {line!r}:\n  " + "\n  ".join(lines))
        r.check(not any(line.startswith("!") for line in lines),
                f"old rules: the build matrix is not older than them: {lines}")
        check_quiet(r, lines, "old rules")


def test_gc_11_5_6(r):
    """The audit's M5: a target that names GC 11.5.4 while GC 11.5.6 reports the same value."""
    with tempfile.TemporaryDirectory() as temp:
        rules = rules_copy(temp)
        edit(rules, "gfx_targets.yaml", lambda d: target(d, "gfx1154").update(
            note="GC 11.5.4, an RDNA3.5 APU iGPU.", source="kfd_device.c (GC 11.5.4 -> 110504)"))
        code, lines, err = diff("--rules", rules, *KFD)
        expected = ("+ gfx_targets.yaml: gfx1154 (kfd 110504) is also GC IP 11.5.6 in "
                    "kfd_device.c; its entry names GC 11.5.4")
        r.check(code == 1 and expected in lines, f"GC 11.5.6: {code} {lines} {err}")


def test_bad_input(r):
    code, _, err = diff()
    r.check(code == 2 and "name at least one upstream file" in err, f"no input: {code} {err}")
    code, _, err = diff("--pci-ids", os.path.join(DATA, "missing.txt"))
    r.check(code == 2 and "missing.txt" in err, f"missing file: {code} {err}")
    code, _, err = diff("--gpus", os.path.join(DATA, "gpus.yaml.txt"))
    r.check(code == 2 and "--docs-release" in err, f"gpus.yaml without a release: {code} {err}")
    code, _, err = diff("--kfd-device", os.path.join(DATA, "pci.ids.txt"))
    r.check(code == 2 and "pci.ids.txt: no kgd2kfd_probe()" in err, f"not kfd_device.c: {err}")
    with tempfile.TemporaryDirectory() as temp:
        broken = os.path.join(temp, "os-support.yaml")
        with open(broken, "w", encoding="utf-8") as handle:
            handle.write("AMD Radeon:\n  AMD Radeon RX 7600: [\n")
        code, _, err = diff("--docs-release", "10.0", "--gpus", os.path.join(DATA, "gpus.yaml.txt"),
                            "--os-support", broken)
        r.check(code == 2 and broken in err, f"unparsable os-support.yaml: {code} {err}")


def main():
    r = Results()
    test_shipped(r)
    test_old_rules(r)
    test_gc_11_5_6(r)
    test_bad_input(r)
    r.finish()


if __name__ == "__main__":
    main()
