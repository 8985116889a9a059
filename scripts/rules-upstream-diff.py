#!/usr/bin/python3
"""Prints what upstream sources say that rules/ does not: the next knowledge-base update
becomes a reviewed diff, not a hunt (CONTRIBUTING.md: Updating the knowledge base).

Usage:
  scripts/rules-upstream-diff.py [--rules DIR] [--build-matrix FILE] [--compat-matrix FILE]
                                 [--kfd-device FILE] [--amdgpu-drv FILE] [--pci-ids FILE]

Each option names a local copy of one upstream file (fetch it from its repository first):
  --build-matrix   pytorch/test-infra:tools/scripts/generate_binary_build_matrix.py
                   (ROCM_ARCHES_DICT: the ROCm indexes of release, test and nightly builds)
  --compat-matrix  ROCm/ROCm:docs/compatibility/compatibility-matrix.rst (the csv-table: ROCm
                   versions, operating systems, GPU / LLVM targets, AMD GPU Driver)
  --kfd-device     torvalds/linux:drivers/gpu/drm/amd/amdkfd/kfd_device.c (GC IP version ->
                   gfx_target_version)
  --amdgpu-drv     torvalds/linux:drivers/gpu/drm/amd/amdgpu/amdgpu_drv.c (pciidlist)
  --pci-ids        pciutils/pciids:pci.ids (vendor 1002 device names)

Output: one line per difference, "+ FILE: what upstream has that rules/ lacks" or
"~ FILE: what differs", grouped by rules file; "no differences" when there are none.
Exit status: 0 no differences, 1 differences, 2 usage error or unreadable input.
Needs PyYAML (Debian: python3-yaml). Never edits rules/: a maintainer reviews and edits.
"""

import argparse
import csv
import io
import os
import re
import sys

try:
    import yaml
except ImportError as error:  # pragma: no cover - a missing dependency
    sys.stderr.write(f"rules-upstream-diff: {error} (Debian: apt install python3-yaml)\n")
    sys.exit(2)

DEFAULT_RULES = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "rules")

OS_IDS = {  # the compatibility matrix's names -> os-release ID
    "ubuntu": "ubuntu", "rhel": "rhel", "sles": "sles", "oracle linux": "ol", "debian": "debian",
    "rocky linux": "rocky", "azure linux": "azurelinux", "centos": "centos",
}


def load_rules(directory):
    rules = {}
    for name in ("gfx_targets", "pci_ids", "rocm_releases", "torch"):
        with open(os.path.join(directory, name + ".yaml"), encoding="utf-8") as handle:
            rules[name] = yaml.safe_load(handle)
    return rules


def read(path):
    with open(path, encoding="utf-8", errors="replace") as handle:
        return handle.read()


def version_key(version):
    return [int(part) for part in re.findall(r"\d+", version)]


def major_minor(version):
    parts = re.findall(r"\d+", version)
    return ".".join(parts[:2]) if len(parts) >= 2 else version


# ---------------------------------------------------------------------------- parsers

def parse_build_matrix(text):
    """ROCM_ARCHES_DICT = {"nightly": [...], "test": [...], "release": [...]} -> dict."""
    match = re.search(r"ROCM_ARCHES_DICT\s*=\s*\{(.*?)\}", text, re.S)
    if not match:
        raise ValueError("no ROCM_ARCHES_DICT")
    result = {}
    for key, values in re.findall(r'"(\w+)"\s*:\s*\[([^\]]*)\]', match.group(1)):
        result[key] = re.findall(r'"([\d.]+)"', values)
    return result


def parse_compat_matrix(text):
    """The first csv-table: {version: {"os": {(id, version)}, "gfx": set, "driver": str}}."""
    header = re.search(r':header:\s*(.+)', text)
    if not header:
        raise ValueError("no csv-table header")
    versions = [v.strip() for v in
                next(csv.reader(io.StringIO(header.group(1).strip()), skipinitialspace=True))[1:]]
    body = text[header.end():]
    end = body.find("\n\n\n")
    rows = [line.strip() for line in body[:end if end > 0 else len(body)].splitlines()]
    columns = {v.strip(): {"os": set(), "gfx": set(), "driver": ""} for v in versions}
    section = None
    for row in csv.reader(io.StringIO("\n".join(r for r in rows if r and not r.startswith(":")
                                               or r.startswith(":ref:`Operating")
                                               or r.startswith(":doc:`GPU")
                                               or r.startswith(":doc:`AMD GPU Driver")
                                               or r.startswith(":doc:`Architecture")))):
        if not row:
            continue
        stub = row[0]
        if stub.startswith(":ref:`Operating"):
            section = "os"
        elif stub.startswith(":doc:`GPU") or "LLVM target" in stub:
            section = "gfx"
        elif stub.startswith(":doc:`Architecture"):
            section = "arch"
        elif stub.startswith(":doc:`AMD GPU Driver"):
            section = "driver"
        elif stub:
            section = None
        for version, cell in zip(versions, row[1:]):
            column = columns[version.strip()]
            cell = re.sub(r"\|br\||\[#[^\]]*\]_", " ", cell).strip()
            if section == "os":
                column["os"].update(parse_os_cell(cell))
            elif section == "gfx":
                column["gfx"].update(re.findall(r"gfx[0-9a-f]+", cell))
            elif section == "driver":
                column["driver"] = cell
    return columns


def parse_os_cell(cell):
    """"RHEL 10.1, 10.0, 9.7" -> {("rhel", "10.1"), ...}; "SLES 15 SP7" -> ("sles", "15.7")."""
    found = set()
    match = re.match(r"([A-Za-z ]+?)\s+([\d].*)$", cell)
    if not match:
        return found
    os_id = OS_IDS.get(match.group(1).strip().lower())
    if os_id is None:
        return found
    for part in match.group(2).split(","):
        part = part.strip()
        sp = re.match(r"(\d+)\s+SP(\d+)", part)
        if sp:
            found.add((os_id, f"{sp.group(1)}.{sp.group(2)}"))
        elif re.match(r"^\d+(\.\d+)*$", part):
            version = part
            if os_id == "ubuntu":
                version = ".".join(part.split(".")[:2])  # 24.04.3 -> VERSION_ID 24.04
            found.add((os_id, version))
        elif re.match(r"^SP(\d+)$", part) and found:  # "SLES 15 SP7, SP6"
            base = next(iter(found))[1].split(".")[0]
            found.add((os_id, f"{base}.{part[2:]}"))
    return found


def parse_kfd_device(text):
    """kgd2kfd_probe(): {gfx_target_version: [IP versions]} from 'case IP_VERSION(a, b, c):'
    lines followed by 'gfx_target_version = N;' (every number of a ternary counts)."""
    result = {}
    pending = []
    for line in text.splitlines():
        case = re.search(r"case\s+IP_VERSION\((\d+),\s*(\d+),\s*(\d+)\)", line)
        if case:
            pending.append(".".join(case.groups()))
            continue
        assignment = re.search(r"gfx_target_version\s*=\s*([^;]+);", line)
        if assignment and pending:
            for number in re.findall(r"\b(\d{5,6})\b", assignment.group(1)):
                result.setdefault(int(number), []).extend(pending)
            pending = []
        elif line.strip().startswith("break") or line.strip().startswith("default"):
            pending = []
    return result


def parse_amdgpu_drv(text):
    """pciidlist: {device id: CHIP_*} for vendor 0x1002."""
    return {int(device, 16): chip for device, chip in
            re.findall(r"\{0x1002,\s*0x([0-9A-Fa-f]{4}),[^}]*?(CHIP_\w+)", text)}


def parse_pci_ids(text):
    """Vendor 1002's device lines: {device id: name}."""
    devices = {}
    in_amd = False
    for line in text.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        if not line.startswith("\t"):
            in_amd = line.startswith("1002 ")
            continue
        if in_amd and not line.startswith("\t\t"):
            match = re.match(r"\t([0-9a-f]{4})\s+(.*)", line)
            if match:
                devices[int(match.group(1), 16)] = match.group(2).strip()
    return devices


# ---------------------------------------------------------------------------- comparisons

def gfx_name(version):
    major, minor, stepping = version // 10000, (version // 100) % 100, version % 100
    return f"gfx{major}{minor:x}{stepping:x}" if minor < 16 and stepping < 16 else None


def diff_build_matrix(rules, matrix, out):
    releases = rules["torch"]["releases"]
    newest = releases[-1]
    indexes = {i[4:] for i in newest["rocm_indexes"]}
    release = set(matrix.get("release", []))
    if release and release != indexes:
        out.append(f"~ torch.yaml: the build matrix releases ROCm {', '.join(sorted(release))}; "
                   f"rules' newest torch {newest['torch']} has {', '.join(sorted(indexes))} "
                   "(a newer torch release?)")
    nightly = {f"rocm{v}" for v in matrix.get("nightly", [])}
    known = set(rules["torch"].get("nightly_indexes", []))
    for index in sorted(nightly - known):
        out.append(f"+ torch.yaml: nightly index {index}")


def diff_compat_matrix(rules, columns, out):
    releases = {r["rocm"]: r for r in rules["rocm_releases"]["releases"]}
    targets = {t["name"]: t for t in rules["gfx_targets"]["targets"]}
    for version, column in columns.items():
        for single in version.split("/"):
            release_key = major_minor(single)
            release = releases.get(release_key)
            if release is None:
                out.append(f"+ rocm_releases.yaml: ROCm {release_key} (matrix column {single})")
                continue
            listed = {(os["id"], v) for os in release["os"] for v in os.get("versions", [])
                      if not os.get("since") or version_key(os["since"]) <= version_key(single)}
            for os_id, os_version in sorted(column["os"] - listed):
                out.append(f"+ rocm_releases.yaml: ROCm {release_key} supports {os_id} {os_version}")
            for os_id, os_version in sorted(listed - column["os"]):
                out.append(f"~ rocm_releases.yaml: ROCm {release_key} lists {os_id} {os_version}, "
                           f"the {single} column does not")
            official = {name for name, t in targets.items()
                        if (t.get("rocm") or {}).get(release_key) in ("supported", "deprecated")}
            for gfx in sorted(column["gfx"] - official):
                where = "unknown target" if gfx not in targets else "not supported there in rules"
                out.append(f"+ gfx_targets.yaml: {gfx} on ROCm {release_key}'s GPU list ({where})")
            for gfx in sorted(official - column["gfx"]):
                out.append(f"~ gfx_targets.yaml: {gfx} supported in ROCm {release_key} by rules, "
                           f"not in the {single} column")


def diff_kfd_device(rules, kfd, out):
    by_kfd = {t["kfd"]: t["name"] for t in rules["gfx_targets"]["targets"]}
    for number, ips in sorted(kfd.items()):
        if number not in by_kfd:
            out.append(f"+ gfx_targets.yaml: {gfx_name(number)} (kfd {number}, GC IP "
                       f"{', '.join(ips)})")


def diff_pci(rules, drv, names, out):
    known = {int(e["id"], 16) for e in rules["pci_ids"]["devices"]}
    for device, chip in sorted(drv.items()):
        if device not in known:
            name = names.get(device, "no pci.ids name")
            out.append(f"+ pci_ids.yaml: {device:04x} {chip} ({name})")
    for entry in rules["pci_ids"]["devices"]:
        device = int(entry["id"], 16)
        if entry.get("kind") == "bridge" or device not in names:
            continue
        upstream = names[device]
        words = set(re.findall(r"[0-9A-Za-z]+", entry.get("name", "").lower()))
        if not words & set(re.findall(r"[0-9A-Za-z]+", upstream.lower())):
            out.append(f"~ pci_ids.yaml: {device:04x} is '{entry.get('name')}', pci.ids says "
                       f"'{upstream}'")


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default=DEFAULT_RULES)
    parser.add_argument("--build-matrix")
    parser.add_argument("--compat-matrix")
    parser.add_argument("--kfd-device")
    parser.add_argument("--amdgpu-drv")
    parser.add_argument("--pci-ids")
    args = parser.parse_args(argv)
    if not any([args.build_matrix, args.compat_matrix, args.kfd_device, args.amdgpu_drv,
                args.pci_ids]):
        parser.error("name at least one upstream file")
    try:
        rules = load_rules(args.rules)
        out = []
        if args.build_matrix:
            diff_build_matrix(rules, parse_build_matrix(read(args.build_matrix)), out)
        if args.compat_matrix:
            diff_compat_matrix(rules, parse_compat_matrix(read(args.compat_matrix)), out)
        if args.kfd_device:
            diff_kfd_device(rules, parse_kfd_device(read(args.kfd_device)), out)
        if args.amdgpu_drv or args.pci_ids:
            drv = parse_amdgpu_drv(read(args.amdgpu_drv)) if args.amdgpu_drv else {}
            names = parse_pci_ids(read(args.pci_ids)) if args.pci_ids else {}
            diff_pci(rules, drv, names, out)
    except (OSError, ValueError, KeyError, yaml.YAMLError) as error:
        sys.stderr.write(f"rules-upstream-diff: {error}\n")
        return 2
    print("\n".join(out) if out else "no differences")
    return 1 if out else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
