#!/usr/bin/python3
"""Prints what upstream sources say that rules/ does not: the next knowledge-base update
becomes a reviewed diff, not a hunt (CONTRIBUTING.md: Updating the knowledge base).

Usage:
  scripts/rules-upstream-diff.py [--rules DIR] [--build-matrix FILE] [--compat-matrix FILE]
      [--docs-release X.Y --gpus FILE [--os-support FILE] [--driver-firmware FILE]]
      [--kfd-device FILE ...] [--amdgpu-drv FILE] [--pci-ids FILE]

Each option names a local copy of one upstream file (fetch it from its repository first):
  --build-matrix     pytorch/test-infra:tools/scripts/generate_binary_build_matrix.py
                     (ROCM_ARCHES_DICT and CURRENT_STABLE_VERSION)
  --compat-matrix    ROCm/ROCm:docs/compatibility/compatibility-matrix.rst (the csv-table of the
                     releases up to 7.2: ROCm versions, operating systems, GPU / LLVM targets)
  --gpus             ROCm/rocm-docs:docs/data/gpus.yaml (product -> gfx target; from ROCm 7.14)
  --os-support       ROCm/rocm-docs:docs/data/os-support.yaml (product -> OS versions, WSL2;
                     needs --gpus of the same commit for the products' targets)
  --driver-firmware  ROCm/rocm-docs:docs/data/driver-firmware-support.yaml (AMD GPU Drivers)
  --docs-release     the ROCm release (major.minor) the three rocm-docs files describe: they do
                     not say it themselves (the release notes of the same commit do)
  --kfd-device       drivers/gpu/drm/amd/amdkfd/kfd_device.c of ROCm/amdgpu (the DKMS tree) or
                     torvalds/linux, or an amd-gfx patch to it; repeat for several (GC IP
                     version -> gfx_target_version in kgd2kfd_probe())
  --amdgpu-drv       drivers/gpu/drm/amd/amdgpu/amdgpu_drv.c (pciidlist)
  --pci-ids          pciutils/pciids:pci.ids (vendor 1002 device names)

Output, one line each, in the order of the options above:
  "+ RULES-FILE: ..."  a fact upstream has that rules/ lacks
  "~ RULES-FILE: ..."  a fact upstream states differently
  "! UPSTREAM-FILE: ..." something about the input itself (an upstream file older than the
                       rules, a product the files do not agree on): fetch or check it; no fact
"no differences" when there is no line at all.
Exit status: 0 no "+" or "~" line, 1 at least one, 2 usage error or unreadable input (the
message names the file). Needs PyYAML (Debian: python3-yaml) and Python 3.9 or later. Never
edits rules/: a maintainer reviews each line and edits.
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
RULES_FILES = ("gfx_targets", "pci_ids", "rocm_releases", "torch", "wsl")

MATRIX_OS_IDS = {  # the compatibility matrix's names -> os-release ID
    "ubuntu": "ubuntu", "rhel": "rhel", "sles": "sles", "oracle linux": "ol", "debian": "debian",
    "rocky linux": "rocky", "azure linux": "azurelinux", "centos": "centos",
}
DOCS_OS_IDS = {  # os-support.yaml's OS keys -> os-release ID
    "Ubuntu": "ubuntu", "Red Hat Enterprise Linux": "rhel", "SUSE Linux Enterprise Server": "sles",
    "Oracle Linux": "ol", "Debian": "debian", "Rocky Linux": "rocky", "Azure Linux": "azurelinux",
    "CentOS": "centos",
}
DOCS_NOT_LINUX = {"Windows", "WSL2"}  # os-support.yaml keys that are no Linux distribution

# pciidlist families left out of the comparison. amdgpu binds them, but no ROCm release the rules
# cover runs on them and gfx_targets.yaml (which starts at gfx803) has no target a pci_ids.yaml
# entry could name: SI (Tahiti, Pitcairn, Verde, Oland, Hainan) has no KFD at all; of CIK, KFD
# knows only Kaveri (gfx700) and Hawaii (gfx701, experimental), and only in kernels built with
# CONFIG_DRM_AMDGPU_CIK; Bonaire, Kabini and Mullins have no KFD case; of the VI chips before
# Polaris, Topaz and Stoney have no KFD case and Carrizo (gfx801) and Tonga (gfx802) are targets
# no ROCm 5.x or later release supports. A full amdgpu_drv.c would otherwise print about 130
# lines no rules edit can answer. Fiji, Polaris and VegaM (gfx803) are compared.
PRE_ROCM_CHIPS = {
    "CHIP_TAHITI", "CHIP_PITCAIRN", "CHIP_VERDE", "CHIP_OLAND", "CHIP_HAINAN",
    "CHIP_BONAIRE", "CHIP_KAVERI", "CHIP_HAWAII", "CHIP_KABINI", "CHIP_MULLINS",
    "CHIP_TOPAZ", "CHIP_STONEY", "CHIP_CARRIZO", "CHIP_TONGA",
}

# An AMD GPU Driver release number (30.10, 31.50.0, 30.20.x) in rules' free text; the module
# versions with a release code (7.1.3.31500000) are not matched.
DRIVER_NUMBER = re.compile(r"(?<![\d.])(3\d\.\d\d)(?:\.(?:\d+|x))?(?![\d])")
# "GC 11.5.4", "GC 9.1.0 / 9.2.2", "GC 11.0.1 and 11.0.4", "GC 9.4.3 rev >= 1, 9.4.4" in a
# target's note or source: the GC IP versions the rules say report that target.
GC_MENTION = re.compile(
    r"\bGC\s+(?:IP\s+(?:version\s+)?)?(\d+\.\d+\.\d+"
    r"(?:(?:\s*(?:/|,|and|or)\s*|\s+rev(?:ision)?\s*[<>=]*\s*\d+\s*,\s*)\d+\.\d+\.\d+)*)")
IP_VERSION = re.compile(r"\d+\.\d+\.\d+")


class InputError(Exception):
    """An upstream or rules file that cannot be read as what it should be."""


def read(path):
    with open(path, encoding="utf-8", errors="replace") as handle:
        return handle.read()


def parse_file(path, parse):
    """parse(text of path); any problem of the content is an InputError naming the file."""
    try:
        return parse(read(path))
    except (ValueError, yaml.YAMLError) as error:
        raise InputError(f"{path}: {error}") from error


def load_rules(directory):
    rules = {}
    for name in RULES_FILES:
        path = os.path.join(directory, name + ".yaml")
        rules[name] = parse_file(path, yaml.safe_load)
        if not isinstance(rules[name], dict):
            raise InputError(f"{path}: not a YAML mapping")
    for name, key in (("gfx_targets", "targets"), ("pci_ids", "devices"),
                      ("rocm_releases", "releases"), ("torch", "releases"), ("wsl", "releases")):
        if not isinstance(rules[name].get(key), list):
            raise InputError(f"{os.path.join(directory, name + '.yaml')}: no '{key}' list "
                             "(rocdoc rules lint tells more)")
    return rules


def version_key(version):
    return [int(part) for part in re.findall(r"\d+", str(version))]


def major_minor(version):
    parts = re.findall(r"\d+", str(version))
    return ".".join(parts[:2]) if len(parts) >= 2 else str(version)


def squash(name):
    """Lower case, letters, digits and '+' only: 'Hawk Point1' and 'HawkPoint1' are one name."""
    squashed = re.sub(r"[^0-9a-z+]", "", name.lower())
    return squashed[3:] if squashed.startswith("amd") else squashed


def gfx_name(version):
    major, minor, stepping = version // 10000, (version // 100) % 100, version % 100
    return f"gfx{major}{minor:x}{stepping:x}" if minor < 16 and stepping < 16 else f"kfd {version}"


def few(names, limit=3):
    names = list(names)
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


# ---------------------------------------------------------------------------- parsers

def parse_build_matrix(text):
    """{"arches": {"nightly": [...], "test": [...], "release": [...]}, "stable": "2.13.0"}."""
    match = re.search(r"ROCM_ARCHES_DICT\s*=\s*\{(.*?)\}", text, re.S)
    if not match:
        raise ValueError("no ROCM_ARCHES_DICT")
    stable = re.search(r'^CURRENT_STABLE_VERSION\s*=\s*"([\d.]+)"', text, re.M)
    if not stable:
        raise ValueError("no CURRENT_STABLE_VERSION")
    arches = {key: re.findall(r'"([\d.]+)"', values)
              for key, values in re.findall(r'"(\w+)"\s*:\s*\[([^\]]*)\]', match.group(1))}
    return {"arches": arches, "stable": stable.group(1)}


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
    kept = (":ref:`Operating", ":doc:`GPU", ":doc:`AMD GPU Driver", ":doc:`Architecture")
    columns = {v: {"os": set(), "gfx": set(), "driver": ""} for v in versions}
    section = None
    table = "\n".join(r for r in rows if r and (not r.startswith(":") or r.startswith(kept)))
    for row in csv.reader(io.StringIO(table)):
        if not row:
            continue
        section = matrix_section(row[0], section)
        for version, cell in zip(versions, row[1:]):
            column = columns[version]
            cell = re.sub(r"\|br\||\[#[^\]]*\]_", " ", cell).strip()
            if section == "os":
                column["os"].update(parse_os_cell(cell))
            elif section == "gfx":
                column["gfx"].update(re.findall(r"gfx[0-9a-f]+", cell))
            elif section == "driver":
                column["driver"] = cell
    return columns


def matrix_section(stub, section):
    """The section a row of the matrix belongs to: its stub names a new one, an empty stub
    continues the last."""
    if stub.startswith(":ref:`Operating"):
        return "os"
    if stub.startswith(":doc:`GPU") or "LLVM target" in stub:
        return "gfx"
    if stub.startswith(":doc:`Architecture"):
        return "arch"
    if stub.startswith(":doc:`AMD GPU Driver"):
        return "driver"
    return None if stub else section


def parse_os_cell(cell):
    """"RHEL 10.1, 10.0, 9.7" -> {("rhel", "10.1"), ...}; "SLES 15 SP7" -> ("sles", "15.7")."""
    found = set()
    match = re.match(r"([A-Za-z ]+?)\s+([\d].*)$", cell)
    if not match:
        return found
    os_id = MATRIX_OS_IDS.get(match.group(1).strip().lower())
    if os_id is None:
        return found
    for part in match.group(2).split(","):
        part = part.strip()
        sp = re.match(r"(\d+)\s+SP(\d+)", part)
        if sp:
            found.add((os_id, f"{sp.group(1)}.{sp.group(2)}"))
        elif re.match(r"^\d+(\.\d+)*$", part):
            found.add((os_id, version_id(os_id, part)))
        elif re.match(r"^SP(\d+)$", part) and found:  # "SLES 15 SP7, SP6"
            base = next(iter(found))[1].split(".")[0]
            found.add((os_id, f"{base}.{part[2:]}"))
    return found


def version_id(os_id, version):
    """The os-release VERSION_ID the rules use: Ubuntu's has no point release (24.04.3 ->
    24.04); the others are kept as written."""
    return ".".join(version.split(".")[:2]) if os_id == "ubuntu" else version


def docs_families(data):
    """A rocm-docs data file: {"AMD Instinct": {...}, ...}, the "_" anchor blocks left out."""
    if not isinstance(data, dict):
        raise ValueError("not a YAML mapping")
    families = {k: v for k, v in data.items() if not str(k).startswith("_")}
    if not families or not all(isinstance(v, dict) for v in families.values()):
        raise ValueError("no product families (AMD Instinct, AMD Radeon, AMD Ryzen)")
    return families


def parse_gpus(text):
    """gpus.yaml: [{"family", "name", "gfx", "igpu"}] in file order."""
    products = []
    for family, entries in docs_families(yaml.safe_load(text)).items():
        for name, entry in entries.items():
            if not isinstance(entry, dict) or not isinstance(entry.get("gfx"), str):
                raise ValueError(f"{family} / {name}: no 'gfx'")
            products.append({"family": family, "name": str(name), "gfx": entry["gfx"],
                             "igpu": entry.get("igpu")})
    return products


def parse_os_support(text):
    """os-support.yaml: {product: {OS key: [version strings]}}. A version is an anchor map
    ({version: "24.04.4", kernel: ...}) or a plain string (the WSL2 rows)."""
    result = {}
    for family, entries in docs_families(yaml.safe_load(text)).items():
        for name, systems in entries.items():
            if not isinstance(systems, dict):
                raise ValueError(f"{family} / {name}: not a mapping of operating systems")
            result[str(name)] = {str(os_name): os_versions(family, name, os_name, entry)
                                 for os_name, entry in systems.items()}
    return result


def os_versions(family, name, os_name, entry):
    versions = entry.get("versions") if isinstance(entry, dict) else None
    if not isinstance(versions, list):
        raise ValueError(f"{family} / {name} / {os_name}: no 'versions' list")
    result = []
    for version in versions:
        value = version.get("version") if isinstance(version, dict) else version
        if not isinstance(value, (str, int, float)):
            raise ValueError(f"{family} / {name} / {os_name}: a version without 'version'")
        result.append(str(value))
    return result


def parse_driver_firmware(text):
    """driver-firmware-support.yaml: the AMD GPU Drivers listed under any product's (Instinct)
    or family's (Radeon) linux.amdgpu: {version: url}. Ryzen's linux rows name inbox kernels,
    not amdgpu releases, and are not read."""
    drivers = {}
    for family, entries in docs_families(yaml.safe_load(text)).items():
        holders = [entries] if "linux" in entries else list(entries.values())
        for holder in holders:
            linux = holder.get("linux") if isinstance(holder, dict) else None
            amdgpu = linux.get("amdgpu") if isinstance(linux, dict) else None
            for driver in amdgpu or []:
                if not isinstance(driver, dict) or "version" not in driver:
                    raise ValueError(f"{family}: an amdgpu entry without 'version'")
                drivers[str(driver["version"])] = str(driver.get("url", ""))
    if not drivers:
        raise ValueError("no linux amdgpu driver versions")
    return drivers


def parse_kfd_device(text):
    """kgd2kfd_probe(): {GC IP version: {gfx_target_version, ...}} from 'case IP_VERSION(a, b,
    c):' lines and the 'gfx_target_version = N;' after them (every number of a ternary). Reads
    a kfd_device.c or a patch to it (a hunk headed by kgd2kfd_probe; removed '-' lines are
    left out). The CHIP_* cases of the pre-IP-discovery chips (gfx7/gfx8) have no GC IP
    version and are not read."""
    result = {}
    pending = []
    found = False
    for line in kgd2kfd_probe_lines(text):
        found = True
        case = re.search(r"case\s+IP_VERSION\((\d+),\s*(\d+),\s*(\d+)\)", line)
        if case:
            pending.append(".".join(case.groups()))
            continue
        assignment = re.search(r"gfx_target_version\s*=\s*([^;]+);", line)
        if assignment and pending:
            for ip in pending:
                result.setdefault(ip, set()).update(
                    int(n) for n in re.findall(r"\b(\d{5,6})\b", assignment.group(1)))
            pending = []
        elif re.match(r"^[+ ]?\s*(break|default)\b", line):
            pending = []
    if not found:
        raise ValueError("no kgd2kfd_probe()")
    return result


def kgd2kfd_probe_lines(text):
    inside = False
    for line in text.splitlines():
        if "kgd2kfd_probe(" in line:
            inside = True
            continue
        if inside and (line == "}" or line.startswith(("@@", "diff ", "-- "))):
            inside = False
        if inside and not line.startswith("-"):
            yield line


def parse_amdgpu_drv(text):
    """pciidlist: {device id: CHIP_*} for vendor 0x1002."""
    found = {int(device, 16): chip for device, chip in
             re.findall(r"\{0x1002,\s*0x([0-9A-Fa-f]{4}),[^}]*?(CHIP_\w+)", text)}
    if not found and "pciidlist" not in text:
        raise ValueError("no pciidlist")
    return found


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


# ---------------------------------------------------------------------------- rules views

def targets_of(rules):
    return {t["name"]: t for t in rules["gfx_targets"]["targets"]}


def supported_in(rules, release, state="supported"):
    return {name for name, t in targets_of(rules).items()
            if (t.get("rocm") or {}).get(release) == state}


def release_row(rules, release):
    return next((r for r in rules["rocm_releases"]["releases"] if str(r["rocm"]) == release),
                None)


def missing_release(release, out):
    out.append(f"+ rocm_releases.yaml: ROCm {release} (the rocm-docs data files describe it)")


def name_keys(entry):
    """The squashed names a gfx target (products, processors) or PCI entry (name, products)
    goes by, with and without a trailing '(...)'."""
    names = list(entry.get("products") or []) + list(entry.get("processors") or [])
    if isinstance(entry.get("products"), dict):
        names = list(entry["products"].values())
    if "id" in entry:
        names += str(entry.get("name", "")).split(" / ")
    keys = set()
    for name in names:
        keys.add(squash(str(name)))
        keys.add(squash(re.sub(r"\s*\([^)]*\)\s*$", "", str(name))))
    return keys


def gc_versions(target):
    text = f"{target.get('note', '')} {target.get('source', '')}"
    return {ip for mention in GC_MENTION.findall(text) for ip in IP_VERSION.findall(mention)}


# ---------------------------------------------------------------------------- comparisons

def diff_build_matrix(rules, matrix, out):
    releases = rules["torch"]["releases"]
    newest = str(releases[-1]["torch"])
    stable = matrix["stable"]
    indexes = sorted(matrix["arches"].get("release", []), key=version_key)
    row = next((r for r in releases if str(r["torch"]) == stable), None)
    if version_key(stable) > version_key(newest):
        out.append(f"+ torch.yaml: torch {stable} (the build matrix's CURRENT_STABLE_VERSION) "
                   f"with ROCm indexes {', '.join('rocm' + i for i in indexes)}; rules' newest "
                   f"is {newest}")
    elif row is None:
        out.append(f"~ torch.yaml: the build matrix's CURRENT_STABLE_VERSION {stable} is no "
                   "torch release of the rules")
    elif set(indexes) != {i[4:] for i in row["rocm_indexes"]}:
        out.append(f"~ torch.yaml: torch {stable} releases ROCm {', '.join(indexes)} in the "
                   f"build matrix; rules have {', '.join(i[4:] for i in row['rocm_indexes'])}")
    if version_key(stable) < version_key(newest):
        out.append(f"! generate_binary_build_matrix.py: older than the rules (its "
                   f"CURRENT_STABLE_VERSION is {stable}, rules' newest torch {newest}): only "
                   "that release was compared, its nightly indexes were not")
        return
    diff_nightly(rules, matrix["arches"].get("nightly", []), out)


def diff_nightly(rules, nightly, out):
    """A nightly index rules lack, unless it is older than every one they list (a stale
    file: nightlies only move forward)."""
    known = [str(i) for i in rules["torch"].get("nightly_indexes", [])]
    oldest = min((version_key(i) for i in known), default=[])
    for version in sorted(nightly, key=version_key):
        if f"rocm{version}" not in known and version_key(version) >= oldest:
            out.append(f"+ torch.yaml: nightly index rocm{version}")


def diff_compat_matrix(rules, columns, out):
    releases = {str(r["rocm"]): r for r in rules["rocm_releases"]["releases"]}
    targets = targets_of(rules)
    for version, column in columns.items():
        for single in version.split("/"):
            release = major_minor(single)
            if release not in releases:
                out.append(f"+ rocm_releases.yaml: ROCm {release} (matrix column {single})")
                continue
            diff_matrix_os(releases[release], single, column["os"], out)
            diff_targets(rules, targets, release, column["gfx"], f"the {single} column", out)


def diff_matrix_os(row, single, upstream, out):
    release = str(row["rocm"])
    listed = {(os["id"], str(v)) for os in row["os"] for v in os.get("versions", [])
              if not os.get("since") or version_key(os["since"]) <= version_key(single)}
    for os_id, os_version in sorted(upstream - listed):
        out.append(f"+ rocm_releases.yaml: ROCm {release} supports {os_id} {os_version}")
    for os_id, os_version in sorted(listed - upstream):
        out.append(f"~ rocm_releases.yaml: ROCm {release} lists {os_id} {os_version}, "
                   f"the {single} column does not")


def diff_targets(rules, targets, release, listed, where, out, products=None):
    """AMD's GPU list of one release against gfx_targets.yaml's `rocm` states. AMD lists the
    supported targets only: a target rules call "deprecated" is expected to be absent."""
    supported = supported_in(rules, release)
    deprecated = supported_in(rules, release, "deprecated")
    for gfx in sorted(listed - supported, key=lambda g: (len(g), g)):
        named = f" ({few(products[gfx])})" if products else ""
        if gfx not in targets:
            out.append(f"+ gfx_targets.yaml: {gfx} on ROCm {release}'s GPU list{named} "
                       "(unknown target)")
        elif gfx in deprecated:
            out.append(f"~ gfx_targets.yaml: {gfx} on ROCm {release}'s GPU list ({where}); "
                       "rules say deprecated")
        else:
            out.append(f"+ gfx_targets.yaml: {gfx} on ROCm {release}'s GPU list{named} "
                       "(not supported there in rules)")
    for gfx in sorted(supported - listed, key=lambda g: (len(g), g)):
        out.append(f"~ gfx_targets.yaml: {gfx} supported in ROCm {release} by rules, "
                   f"not in {where}")


def diff_gpus(rules, products, release, out):
    targets = targets_of(rules)
    by_gfx = {}
    for product in products:
        by_gfx.setdefault(product["gfx"], []).append(product["name"])
    diff_targets(rules, targets, release, set(by_gfx), "gpus.yaml", out, by_gfx)
    missing = {}
    for product in products:
        target = targets.get(product["gfx"])
        if target is None or product_known(target, product):
            continue
        elsewhere = sorted(name for name, other in targets.items()
                           if squash(product["name"]) in name_keys(other))
        if elsewhere:
            out.append(f"~ gfx_targets.yaml: {product['name']} is {product['gfx']} in gpus.yaml; "
                       f"rules list it under {', '.join(elsewhere)}")
            continue
        label = product["igpu"] or re.sub(r"^AMD ", "", product["name"])
        missing.setdefault((product["gfx"], label), []).append(product["name"])
    for (gfx, label), names in missing.items():
        source = f"gpus.yaml: {few(names)}" if names != ["AMD " + label] else "gpus.yaml"
        out.append(f"+ gfx_targets.yaml: {gfx} product {label} ({source})")
    diff_pci_names(rules, products, out)


def product_known(target, product):
    """By its own name (Radeon, Instinct, a Ryzen processor in `processors`) or, for an APU,
    by its iGPU's name (gfx_targets.yaml names APUs by their Radeon iGPU)."""
    keys = name_keys(target)
    return squash(product["name"]) in keys or bool(product["igpu"]) and \
        squash(product["igpu"]) in keys


def diff_pci_names(rules, products, out):
    """A product name that a pci_ids.yaml entry of another target carries."""
    for product in products:
        key = squash(product["name"])
        for entry in rules["pci_ids"]["devices"]:
            if entry.get("kind") != "bridge" and entry.get("gfx") != product["gfx"] and \
                    key in name_keys(entry):
                out.append(f"~ pci_ids.yaml: {entry['id']} names {product['name']} as "
                           f"{entry.get('gfx')}, gpus.yaml gives {product['gfx']}")


def diff_os_support(rules, systems, products, release, out):
    row = release_row(rules, release)
    if row is None:
        missing_release(release, out)
    else:
        diff_docs_os(row, systems, out)
    diff_wsl(rules, systems, products, release, out)


def diff_docs_os(row, systems, out):
    release = str(row["rocm"])
    upstream = set()
    for product, oses in systems.items():
        for os_name, versions in oses.items():
            if os_name in DOCS_NOT_LINUX:
                continue
            os_id = DOCS_OS_IDS.get(os_name)
            if os_id is None:
                out.append(f"+ rocm_releases.yaml: ROCm {release} supports {os_name} "
                           f"{', '.join(versions)} (os-support.yaml, {product}; no os-release ID "
                           "known to this script: add it to DOCS_OS_IDS)")
                continue
            upstream.update((os_id, version_id(os_id, v)) for v in versions)
    listed = {(os["id"], str(v)) for os in row["os"] for v in os.get("versions", [])}
    for os_id, os_version in sorted(upstream - listed):
        out.append(f"+ rocm_releases.yaml: ROCm {release} supports {os_id} {os_version} "
                   "(os-support.yaml)")
    for os_id, os_version in sorted(listed - upstream):
        out.append(f"~ rocm_releases.yaml: ROCm {release} lists {os_id} {os_version}, "
                   "os-support.yaml does not")


def wsl_row(rules, release):
    """The row rocdoc uses for a release: its own, else the last of its major.minor."""
    rows = [r for r in rules["wsl"]["releases"] if major_minor(r["rocm"]) == release]
    return rows[-1] if rows else None


def diff_wsl(rules, systems, products, release, out):
    """os-support.yaml's WSL2 rows (Ubuntu releases) against wsl.yaml's row of the release."""
    gfx_of = {p["name"]: p["gfx"] for p in products}
    gpus, distros = {}, set()
    for product, oses in systems.items():
        if "WSL2" not in oses:
            continue
        if product not in gfx_of:
            out.append(f"! os-support.yaml: {product} has WSL2 rows but gpus.yaml has no such "
                       "product (its gfx target is unknown): use both files of one commit")
            continue
        gpus.setdefault(gfx_of[product], []).append(product)
        distros.update(f"ubuntu {version}" for version in oses["WSL2"])
    if not gpus:
        return
    row = wsl_row(rules, release)
    if row is None or row.get("supported") is False:
        state = "no row" if row is None else f"row {row['rocm']} says supported: false"
        out.append(f"+ wsl.yaml: ROCm {release} has {state}; os-support.yaml gives WSL2 "
                   f"({', '.join(sorted(distros))}) to {', '.join(sorted(gpus))}")
        return
    listed = {str(g) for g in row.get("gpus") or []}
    for gfx in sorted(set(gpus) - listed):
        out.append(f"+ wsl.yaml: ROCm {row['rocm']} WSL2 GPU {gfx} (os-support.yaml: "
                   f"{few(gpus[gfx])})")
    for gfx in sorted(listed - set(gpus)):
        out.append(f"~ wsl.yaml: ROCm {row['rocm']} lists WSL2 GPU {gfx}, os-support.yaml "
                   "gives WSL2 to no product of it")
    rules_distros = {str(d) for d in row.get("distros") or []}
    for distro in sorted(distros - rules_distros):
        out.append(f"+ wsl.yaml: ROCm {row['rocm']} WSL2 distribution {distro} (os-support.yaml)")
    for distro in sorted(rules_distros - distros):
        out.append(f"~ wsl.yaml: ROCm {row['rocm']} lists WSL2 distribution {distro}, "
                   "os-support.yaml does not")


def driver_numbers(rules, release=None):
    """AMD GPU Driver releases (31.50) the rules name in driver_compat and driver_versions,
    for one ROCm release or for all."""
    texts = [str(r.get("driver_compat", "")) for r in rules["rocm_releases"]["releases"]
             if release is None or str(r["rocm"]) == release]
    texts += [f"{d.get('note', '')} {d.get('source', '')}"
              for d in rules["rocm_releases"].get("driver_versions") or []
              if release is None or str(d.get("rocm")) == release]
    return {number for text in texts for number in DRIVER_NUMBER.findall(text)}


def diff_driver_firmware(rules, drivers, release, out):
    """The drivers AMD supports with the release. Preview drivers (their release notes live
    under a *-preview path) belong to the 7.9-7.13 technology previews, which the rules do not
    list as releases, and are left out."""
    if release_row(rules, release) is None:
        missing_release(release, out)
        return
    named, named_here = driver_numbers(rules), driver_numbers(rules, release)
    series = {}
    for version, url in drivers.items():
        if "preview" not in url:
            series.setdefault(major_minor(version), []).append(version)
    for number in sorted(series, key=version_key, reverse=True):
        if number not in named:
            out.append(f"+ rocm_releases.yaml: AMD GPU Driver "
                       f"{', '.join(sorted(series[number], key=version_key))} is supported with "
                       f"ROCm {release} (driver-firmware-support.yaml); no release names "
                       f"{number}")
    newest = max(series, key=version_key, default=None)
    if newest and newest in named and newest not in named_here:
        out.append(f"~ rocm_releases.yaml: ROCm {release}'s driver data do not name AMD GPU "
                   f"Driver {newest}, the newest driver-firmware-support.yaml lists for it")


def diff_kfd_device(rules, kfd, out):
    """Each GC IP version's gfx_target_version against the target whose note or source names
    that GC version ("GC 11.5.4"), and every number against the targets' `kfd`."""
    targets = targets_of(rules)
    by_kfd = {t["kfd"]: name for name, t in targets.items()}
    named = {name: gc_versions(t) for name, t in targets.items()}
    unknown = {}
    for ip in sorted(kfd, key=version_key):
        numbers = kfd[ip]
        for number in sorted(numbers - set(by_kfd)):
            unknown.setdefault(number, []).append(ip)
        naming = [name for name, ips in sorted(named.items()) if ip in ips]
        # Several targets may name one GC version (gfx940/941/942: GC 9.4.3 by revision and
        # kernel age); only when none of them has one of its numbers do the rules disagree.
        conflicts = [] if any(targets[n]["kfd"] in numbers for n in naming) else naming
        for name in conflicts:
            out.append(f"~ gfx_targets.yaml: GC IP {ip} reports "
                       f"{', '.join(f'{n} ({gfx_name(n)})' for n in sorted(numbers))} in "
                       f"kfd_device.c; rules name it under {name} (kfd {targets[name]['kfd']})")
        known = [by_kfd[n] for n in sorted(numbers) if n in by_kfd]
        if known and not conflicts and not any(ip in named[name] for name in known):
            out.append(kfd_gap_line(known[0], targets[known[0]]["kfd"], ip, named[known[0]]))
    for number, ips in sorted(unknown.items()):
        out.append(f"+ gfx_targets.yaml: {gfx_name(number)} (kfd {number}, GC IP "
                   f"{', '.join(ips)})")


def kfd_gap_line(name, number, ip, ips):
    if not ips:
        return (f"+ gfx_targets.yaml: {name} (kfd {number}) is GC IP {ip} in kfd_device.c; its "
                "entry names no GC IP version")
    return (f"+ gfx_targets.yaml: {name} (kfd {number}) is also GC IP {ip} in kfd_device.c; its "
            f"entry names GC {', '.join(sorted(ips, key=version_key))}")


def diff_pci(rules, drv, names, out):
    known = {int(e["id"], 16) for e in rules["pci_ids"]["devices"]}
    for device, chip in sorted(drv.items()):
        if device not in known and chip not in PRE_ROCM_CHIPS:
            out.append(f"+ pci_ids.yaml: {device:04x} {chip} "
                       f"({names.get(device, 'no pci.ids name')})")
    for entry in rules["pci_ids"]["devices"]:
        device = int(entry["id"], 16)
        if entry.get("kind") == "bridge" or device not in names:
            continue
        if not same_name(entry.get("name", ""), names[device]):
            out.append(f"~ pci_ids.yaml: {device:04x} is '{entry.get('name')}', pci.ids says "
                       f"'{names[device]}'")


def same_name(rules_name, upstream):
    """A word in common, or one name inside the other once spacing and case are gone
    ('Hawk Point1 iGPU (Radeon 780M)' and 'HawkPoint1')."""
    words = set(re.findall(r"[0-9a-z]+", rules_name.lower()))
    if words & set(re.findall(r"[0-9a-z]+", upstream.lower())):
        return True
    a, b = squash(rules_name), squash(upstream)
    return bool(a and b) and (a in b or b in a)


# ---------------------------------------------------------------------------- main

def arguments(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default=DEFAULT_RULES)
    parser.add_argument("--build-matrix")
    parser.add_argument("--compat-matrix")
    parser.add_argument("--gpus")
    parser.add_argument("--os-support")
    parser.add_argument("--driver-firmware")
    parser.add_argument("--docs-release")
    parser.add_argument("--kfd-device", action="append", default=[])
    parser.add_argument("--amdgpu-drv")
    parser.add_argument("--pci-ids")
    args = parser.parse_args(argv)
    docs = args.gpus or args.os_support or args.driver_firmware
    if not any([args.build_matrix, args.compat_matrix, docs, args.kfd_device, args.amdgpu_drv,
                args.pci_ids]):
        parser.error("name at least one upstream file")
    if docs and not re.fullmatch(r"\d+\.\d+", args.docs_release or ""):
        parser.error("--gpus, --os-support and --driver-firmware need --docs-release X.Y, the "
                     "ROCm release those rocm-docs files describe")
    if args.os_support and not args.gpus:
        parser.error("--os-support needs --gpus (os-support.yaml names products; gpus.yaml "
                     "gives their gfx targets)")
    return args


def compare(args):
    rules = load_rules(args.rules)
    out = []
    if args.build_matrix:
        diff_build_matrix(rules, parse_file(args.build_matrix, parse_build_matrix), out)
    if args.compat_matrix:
        diff_compat_matrix(rules, parse_file(args.compat_matrix, parse_compat_matrix), out)
    products = parse_file(args.gpus, parse_gpus) if args.gpus else []
    if args.gpus:
        diff_gpus(rules, products, args.docs_release, out)
    if args.os_support:
        systems = parse_file(args.os_support, parse_os_support)
        diff_os_support(rules, systems, products, args.docs_release, out)
    if args.driver_firmware:
        drivers = parse_file(args.driver_firmware, parse_driver_firmware)
        diff_driver_firmware(rules, drivers, args.docs_release, out)
    if args.kfd_device:
        kfd = {}
        for path in args.kfd_device:
            for ip, numbers in parse_file(path, parse_kfd_device).items():
                kfd.setdefault(ip, set()).update(numbers)
        diff_kfd_device(rules, kfd, out)
    if args.amdgpu_drv or args.pci_ids:
        drv = parse_file(args.amdgpu_drv, parse_amdgpu_drv) if args.amdgpu_drv else {}
        names = parse_file(args.pci_ids, parse_pci_ids) if args.pci_ids else {}
        diff_pci(rules, drv, names, out)
    return list(dict.fromkeys(out))  # one line once, in order


def main(argv):
    args = arguments(argv)
    try:
        out = compare(args)
    except (OSError, InputError) as error:
        sys.stderr.write(f"rules-upstream-diff: {error}\n")
        return 2
    print("\n".join(out) if out else "no differences")
    return 1 if any(line[0] in "+~" for line in out) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
