"""The python probe on real Python environments of this machine (no Python is run by rocdoc).

- Debian's python3-torch (egg-info metadata, CPU build, reports 1.13.0a0) is found and classified.
- A venv built here, holding a copy of that real torch/version.py and a dist-info, is found
  through VIRTUAL_ENV and classified from its version.py.
- --python asks the named interpreter for sys.path, once.
"""
import os
import shutil
import subprocess
import sys
import tempfile

from common import Results, report

binary = sys.argv[1]
results = Results()
DEBIAN_TORCH = "/usr/lib/python3/dist-packages/torch/version.py"

if not os.path.exists(DEBIAN_TORCH):
    results.check(False, f"{DEBIAN_TORCH} missing: scripts/install-test-deps.sh installs python3-torch")
    results.finish()

_, document, _ = report(binary)
environments = {e["site_dir"]: e for e in document["facts"]["python"]["environments"]}
system = environments.get("/usr/lib/python3/dist-packages")
results.check(system is not None, f"Debian's dist-packages is searched: {sorted(environments)}")
torch = (system or {}).get("torch") or {}
results.check(torch.get("version") == "1.13.0a0", f"Debian torch version from version.py: {torch}")
results.check(torch.get("build") == "cpu", "Debian torch is classified as a CPU build (cuda and hip None)")
results.check(torch.get("metadata_version") == "1.13.0a0+gitunknown" and
              torch.get("metadata_path", "").endswith(".egg-info/PKG-INFO"),
              f"Debian torch metadata comes from its egg-info: {torch}")

with tempfile.TemporaryDirectory() as scratch:
    venv = os.path.join(scratch, "venv")
    subprocess.run(["/usr/bin/python3", "-m", "venv", "--without-pip", venv], check=True)
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    site = os.path.join(venv, "lib", version, "site-packages")
    os.makedirs(os.path.join(site, "torch"))
    shutil.copy(DEBIAN_TORCH, os.path.join(site, "torch", "version.py"))
    dist_info = os.path.join(site, "torch-1.13.0a0.dist-info")
    os.makedirs(dist_info)
    with open(os.path.join(dist_info, "METADATA"), "w") as f:
        f.write("Metadata-Version: 2.1\nName: torch\nVersion: 1.13.0a0\n\nTensors and Dynamic neural networks\n")
    proc = subprocess.run([binary, "check", "--json"], capture_output=True, text=True,
                          env={**os.environ, "VIRTUAL_ENV": venv})
    import json

    found = {e["site_dir"]: e for e in json.loads(proc.stdout)["facts"]["python"]["environments"]}
    mine = found.get(site)
    results.check(mine is not None and "VIRTUAL_ENV" in mine["found_by"], f"the venv is found via VIRTUAL_ENV: {found.get(site)}")
    results.check(mine and mine["torch"] and mine["torch"]["version"] == "1.13.0a0" and mine["torch"]["build"] == "cpu",
                  f"the venv's torch is read from its version.py: {mine}")
    results.check(mine and mine["torch"]["metadata_version"] == "1.13.0a0", "the venv's dist-info METADATA is read")

    asked = subprocess.run([binary, "check", "--json", "--python", os.path.join(venv, "bin", "python3")],
                           capture_output=True, text=True, env={k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"})
    by_python = {e["site_dir"]: e for e in json.loads(asked.stdout)["facts"]["python"]["environments"]}
    results.check(site in by_python and any(w.startswith("--python ") for w in by_python[site]["found_by"]),
                  f"--python finds the venv through the sys.path its interpreter reports: {sorted(by_python)}")

results.finish()
