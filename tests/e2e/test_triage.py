#!/usr/bin/python3
"""rocdoc triage on real logs from public threads (tests/triage/, cited in SOURCES.md), on
standard input, and on input that is missing, empty, huge or binary.

Usage: test_triage.py ROCDOC_BINARY
"""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from common import SOURCE_DIR, Results, run, validate  # noqa: E402

LOGS = os.path.join(SOURCE_DIR, "tests", "triage")

# Each real log: {check id: (status, [quoted line numbers])}, and facts that must be found.
EXPECT = {
    "kfd-enomem-pitcairn.log": {
        "findings": {"driver.kfd-unusable": ("fail", [3, 9]), "rocm.agents": ("fail", [12])},
        "signatures": {"kfd-enomem", "hsa-out-of-resources", "not-supported-in-kfd"},
        "tools": [('rocminfo', 1), ('a kernel log (dmesg, journalctl -k)', 12)],
        "exit": 1,
    },
    "kfd-enomem-mi100.log": {
        "findings": {"driver.kfd-unusable": ("fail", [3, 14])},
        "exit": 1,
    },
    "kfd-eperm-popos.log": {"findings": {"driver.kfd-unusable": ("fail", [1])}, "exit": 1},
    "kfd-einval-mi300x-container.log": {"findings": {"driver.kfd-unusable": ("fail", [3])}, "exit": 1},
    "pcie-atomics-rx580.log": {
        # The PCI id names the GPU (gfx803): arch.unsupported follows from the facts, as
        # `rocdoc check --gpu gfx803` says.
        "findings": {"pcie.atomics": ("fail", [1]), "arch.unsupported": ("fail", [1])},
        "facts": {"gfx_targets": [("gfx803", 1)]},
        "exit": 1,
    },
    "docker-no-kfd.log": {
        "findings": {"driver.kfd-missing": ("fail", [1])},
        "tools": [("a container runtime's error", 1)],
        "exit": 1,
    },
    "torchvision-nms-rocm-pytorch-image.log": {
        # The untagged (PyPI) torchvision beside AMD's +rocm torch is also found from the facts
        # (issue 22 §3), so the fact lines are quoted too.
        "findings": {"torch.companions": ("fail", [3, 13, 15, 16])},
        "facts": {"torch": ("2.9.1+rocm7.2.1.lw.gitff65f5bc", 15), "torchvision": ("0.24.1", 16),
                  "torch_build": "rocm",
                  "site_packages": ("/opt/venv/lib/python3.12/site-packages", 3)},
        "tools": [('a Python traceback', 1)],
        "exit": 1,
    },
    "tensile-gfx1201-migraphx.log": {
        "findings": {"arch.unsupported": ("fail", [1])},
        # the TensileLibrary_lazy_gfx*.dat list names library files, not the GPU
        "facts": {"gfx_targets": [("gfx1201", 1)]},
        "exit": 1,
    },
    "tensile-no-paths-gfx906.log": {
        "findings": {"arch.unsupported": ("fail", [3, 5])},
        "signatures": {"tensile-library-missing", "tensile-no-paths-matched"},
        "facts": {"gfx_targets": [("gfx906", 3)]},
        "exit": 1,
    },
    "hip-no-binary-a1111.log": {"findings": {"arch.unsupported": ("fail", [9])}, "exit": 1},
    "torch-not-compiled-cuda-comfyui.log": {"findings": {"torch.cpu-wheel": ("fail", [3])}, "exit": 1},
    "no-nvidia-driver-sd-webui-amdgpu.log": {"findings": {"torch.cuda-wheel": ("fail", [3])}, "exit": 1},
    "collect-env-gfx1010-nightly.log": {
        # N4: a pytorch.org nightly is judged by the targets of every pytorch.org release, none
        # of which has gfx1010; the GPU is named in the log's words (RX 5700 XT).
        "findings": {"arch.unsupported": ("fail", [1, 17])},
        "messages": {"arch.unsupported": "no code for gfx1010 (Radeon RX 5700 XT) in torch "
                                         "2.7.0.dev20250123+rocm6.3"},
        "facts": {"gfx_targets": [("gfx1010", 17)], "torch": ("2.7.0.dev20250123+rocm6.3", 1),
                  "torch_build": "rocm", "rocm": ("6.3.42131-fa1d09cbd", 4)},
        "tools": [("collect_env", 1)],
        "exit": 1,
    },
    "rocm-terminal-container-kfd-denied.log": {
        # Issue 22 (N7): in a container the fix is the host's gids at `docker run`, never usermod.
        "findings": {"perm.kfd": ("fail", [1, 5])},
        "facts": {"container": ("docker", 1)},
        "fixes": {"perm.kfd": ['--group-add "$(stat -c %g /dev/kfd)" --group-add '
                               '"$(stat -c %g /dev/dri/renderD128)"']},
        "exit": 1,
    },
    "ollama-override-610m.log": {
        "findings": {},
        "overrides": [("HSA_OVERRIDE_GFX_VERSION", "10.3.0", 1)],
        "exit": 0,
    },
    # rocm-cli diagnose's failure modes (vLLM memory, /dev/shm, WSL2, DKMS, CUDA-only extensions)
    "vllm-no-cache-blocks-memory.log": {
        "findings": {"env.tuning": ("fail", [2, 3])},
        "signatures": {'vllm-no-kv-cache-memory'},
        "exit": 1,
    },
    "vllm-free-memory-below-utilization.log": {
        "findings": {"env.tuning": ("fail", [5])},
        "signatures": {'vllm-free-memory-below-utilization'},
        "exit": 1,
    },
    "vllm-kv-cache-max-seq-len-qwen.log": {
        "findings": {"env.tuning": ("fail", [4])},
        "signatures": {'vllm-max-model-len-exceeds-kv-cache'},
        "exit": 1,
    },
    "vllm-kv-cache-max-model-len-v1.log": {
        "findings": {"env.tuning": ("fail", [1])},
        "signatures": {'vllm-max-model-len-exceeds-kv-cache'},
        "exit": 1,
    },
    "torch-rocm-ext-libtorch-cuda.log": {
        "findings": {"python.cuda-packages": ("fail", [5])},
        "signatures": {'extension-needs-libtorch-cuda'},
        "facts": {"site_packages": ("/home/Gin/Documents/virtual_server/.venv/lib/python3.10/site-packages", 1)},
        "exit": 1,
    },
    "shm-dataloader-bus-error-pipedream.log": {
        "findings": {"shm.small": ("fail", [3, 4, 5, 15])},
        "signatures": {'dataloader-insufficient-shm', 'dataloader-worker-bus-error'},
        "facts": {"site_packages": ("/opt/conda/lib/python3.6/site-packages", 7)},
        "exit": 1,
    },
    "shm-torch-write-file-pangeo.log": {
        "findings": {"shm.small": ("fail", [1, 2, 10, 11, 12])},
        "signatures": {'dataloader-insufficient-shm', 'torch-shm-write-failed'},
        "facts": {"site_packages": ("/srv/conda/envs/notebook/lib/python3.8/site-packages", 8)},
        "exit": 1,
    },
    "wsl-librocdxg-venv-collect-env.log": {
        "findings": {"wsl.runtime-missing": ("fail", [4, 5])},
        "signatures": {'wsl-librocdxg-not-loaded'},
        "facts": {"torch": ("2.11.0+rocm7.13.0", 6), "torch_build": "rocm", "rocm": ("7.13.99004", 9)},
        "exit": 1,
    },
    "wsl-rocdxg-hsa-init-failed.log": {
        "findings": {"wsl.runtime-missing": ("fail", [3, 4]), "wsl.dxg-detection": ("fail", [5])},
        "signatures": {'wsl-hsa-init-no-gpu', 'wsl-librocdxg-not-loaded'},
        "exit": 1,
    },
    "wsl-no-wddm-adapters-strix-halo.log": {
        "findings": {"wsl.dxg-missing": ("fail", [3]), "wsl.dxg-detection": ("fail", [4])},
        "signatures": {'wsl-hsa-init-no-gpu', 'wsl-no-wddm-adapter'},
        "exit": 1,
    },
    "wsl-rocr-unsupported-gpu-7600xt.log": {
        "findings": {"driver.kfd-unusable": ("fail", [4]), "arch.unsupported": ("fail", [2])},
        "signatures": {'hsa-out-of-resources', 'wsl-rocr-unsupported-gpu'},
        "exit": 1,
    },
    "wsl-runtime-libdxcore-bare-metal.log": {
        "findings": {"wsl.runtime-missing": ("fail", [3, 11])},
        "signatures": {'wsl-libdxcore-missing'},
        "facts": {"rocm": ("6.2.4", 1)},
        "exit": 1,
    },
    "wsl-rocr4wsl-package-missing-rocm70.log": {
        "findings": {"wsl.runtime-missing": ("fail", [17, 18])},
        "signatures": {'wsl-runtime-package-missing'},
        "exit": 1,
    },
    "amdgpu-dkms-build-failed-hwe-6.14.log": {
        "findings": {"driver.dkms-build": ("warn", [6, 7])},
        "signatures": {'amdgpu-dkms-build-failed'},
        "exit": 0,
    },
    "amdsmi-mixed-rocm-releases.log": {
        "findings": {"rocm.multiple": ("fail", [17])},
        "signatures": {'rocm-lib-undefined-symbol'},
        "facts": {"rocm": ("7.1.1", 5)},
        "exit": 1,
    },
    # kernel log (dmesg, journalctl -k)
    "aer-uncorrected-fury-nano.log": {
        "findings": {"driver.gpu-faults": ("fail", [7])},
        "signatures": {'amdgpu-pcie-aer-unrecoverable'},
        "exit": 1,
    },
    "athub-ue-aca-mi300x.log": {
        "findings": {"driver.gpu-faults": ("fail", [1, 2, 8])},
        "signatures": {'amdgpu-aca-hardware-error', 'amdgpu-ras-uncorrectable'},
        "exit": 1,
    },
    "athub-ue-reset-mi50.log": {
        "findings": {"driver.gpu-faults": ("fail", [3, 4, 6, 9, 16, 20, 22, 25, 26, 27, 29])},
        "signatures": {'amdgpu-gpu-reset-begin', 'amdgpu-gpu-reset-failed', 'amdgpu-hws-preemption-hang', 'amdgpu-psp-ring-failed', 'amdgpu-ras-uncorrectable', 'amdgpu-smu-unresponsive', 'amdgpu-vram-lost'},
        "tools": [('a kernel log (dmesg, journalctl -k)', 1)],
        "exit": 1,
    },
    "umc-ce-ue-reset-failed-mi50.log": {
        "findings": {"driver.gpu-faults": ("fail", [1, 2, 3, 4, 7, 8])},
        "signatures": {'amdgpu-gpu-reset-begin', 'amdgpu-gpu-reset-failed', 'amdgpu-psp-ring-failed', 'amdgpu-ras-correctable', 'amdgpu-ras-uncorrectable'},
        "exit": 1,
    },
    "umc-error-address-bad-pages.log": {
        "findings": {"driver.gpu-faults": ("fail", [3, 4, 5, 6, 7, 8, 9, 10])},
        "signatures": {'amdgpu-umc-error-address'},
        "tools": [('a kernel log (dmesg, journalctl -k)', 3)],
        "exit": 1,
    },
    "atombios-stuck-radeon-vii.log": {
        "findings": {"driver.amdgpu-missing": ("fail", [1, 4, 5])},
        "signatures": {'amdgpu-fatal-init-error', 'amdgpu-vbios-post-failed'},
        "exit": 1,
    },
    "firmware-ta-missing-radeon-vii.log": {
        "findings": {"driver.firmware": ("warn", [1])},
        "signatures": {'amdgpu-firmware-file-missing'},
        "exit": 0,
    },
    "gpu-reset-failed-rx6750xt.log": {
        "findings": {"driver.gpu-faults": ("fail", [1, 10, 11, 12, 13, 14, 16, 18, 19, 20, 21, 32, 33, 34, 39, 42])},
        "signatures": {'amdgpu-gpu-reset-begin', 'amdgpu-gpu-reset-failed', 'amdgpu-gpu-unreachable', 'amdgpu-hws-preemption-hang', 'amdgpu-kiq-cp-unresponsive', 'amdgpu-psp-ring-failed', 'amdgpu-ring-test-failed', 'amdgpu-vm-page-fault', 'amdgpu-vram-lost'},
        "exit": 1,
    },
    "hw-init-gfx11-kcq-coreboot.log": {
        "findings": {"driver.amdgpu-missing": ("fail", [11, 12, 13]), "driver.gpu-faults": ("fail", [9, 10])},
        "signatures": {'amdgpu-fatal-init-error', 'amdgpu-ip-block-init-failed', 'amdgpu-kiq-cp-unresponsive', 'amdgpu-ring-test-failed'},
        "exit": 1,
    },
    "ip-discovery-invalid-almalinux.log": {
        "findings": {"driver.amdgpu-missing": ("fail", [1, 3, 4, 5])},
        "signatures": {'amdgpu-fatal-init-error', 'amdgpu-ip-discovery-failed'},
        "exit": 1,
    },
    "key-rejected-amdgpu-debian12.log": {
        "findings": {"driver.dkms-build": ("fail", [2])},
        "signatures": {'amdgpu-module-signature-rejected'},
        "exit": 1,
    },
    "kfd-did-missing-navi14.log": {
        "findings": {"driver.kfd-unusable": ("fail", [3, 6]), "rocm.agents": ("fail", [8])},
        "signatures": {'hsa-out-of-resources', 'kfd-device-id-unknown', 'kfd-enomem'},
        "exit": 1,
    },
    "kfd-not-supported-asic-ubuntu1604.log": {
        "findings": {"rocm.agents": ("fail", [5])},
        "signatures": {'kfd-not-supported-on-asic'},
        "exit": 1,
    },
    "kiq-ring-test-failed-navi21.log": {
        "findings": {"driver.gpu-faults": ("fail", [2, 4, 6, 7, 8, 9, 10])},
        "signatures": {'amdgpu-gpu-reset-begin', 'amdgpu-kiq-cp-unresponsive', 'amdgpu-ring-test-failed', 'ring-timeout'},
        "exit": 1,
    },
    "mes-hang-gfxhub-fault-rx7900.log": {
        "findings": {"driver.gpu-faults": ("fail", [1, 2, 3, 7, 9])},
        "signatures": {'amdgpu-gpu-reset-begin', 'amdgpu-mes-unresponsive', 'amdgpu-vm-page-fault'},
        "tools": [('a kernel log (dmesg, journalctl -k)', 1)],
        "exit": 1,
    },
    "mes-remove-queue-mode2-reset.log": {
        "findings": {"driver.gpu-faults": ("fail", [3, 7, 8, 10])},
        "signatures": {'amdgpu-gpu-reset-begin', 'amdgpu-kiq-cp-unresponsive', 'amdgpu-mes-unresponsive', 'ring-timeout'},
        "exit": 1,
    },
    "pcie-atomic-ops-unsupported-rx7900xt.log": {
        "findings": {"pcie.atomics": ("warn", [2])},
        "signatures": {'amdgpu-pcie-atomic-ops-unsupported'},
        "exit": 0,
    },
    "probe-failed-enomem-mi210.log": {
        "findings": {"driver.amdgpu-missing": ("fail", [7, 8, 11, 12])},
        "signatures": {'amdgpu-fatal-init-error', 'amdgpu-probe-enomem-bar', 'amdgpu-probe-failed'},
        "exit": 1,
    },
    "psp-create-ring-failed-mi210.log": {
        "findings": {"driver.gpu-faults": ("fail", [2])},
        "signatures": {'amdgpu-psp-ring-failed'},
        "exit": 1,
    },
    "psp-firmware-loading-failed-centos7.log": {
        "findings": {"driver.amdgpu-missing": ("fail", [3, 4, 5]), "driver.firmware": ("fail", [2])},
        "signatures": {'amdgpu-fatal-init-error', 'amdgpu-ip-block-init-failed', 'amdgpu-psp-firmware-load-failed'},
        "exit": 1,
    },
    "psp-sos-firmware-missing-rx7800xt.log": {
        "findings": {"driver.amdgpu-missing": ("fail", [11]), "driver.firmware": ("warn", [10])},
        "signatures": {'amdgpu-firmware-file-missing', 'amdgpu-ip-block-init-failed'},
        "exit": 1,
    },
    "psp-toc-firmware-missing-skyrim.log": {
        "findings": {"driver.amdgpu-missing": ("fail", [4, 5, 6]), "driver.firmware": ("fail", [1, 2, 3])},
        "signatures": {'amdgpu-fatal-init-error', 'amdgpu-firmware-file-missing', 'amdgpu-ip-block-init-failed', 'amdgpu-psp-firmware-load-failed'},
        "exit": 1,
    },
    "qcm-fence-athub-ue-mi300x.log": {
        "findings": {"driver.gpu-faults": ("fail", [1, 2, 4, 5, 6, 8, 9, 11])},
        "signatures": {'amdgpu-gpu-reset-begin', 'amdgpu-hws-preemption-hang', 'amdgpu-ras-uncorrectable'},
        "exit": 1,
    },
    "sdma-timeout-vram-lost-5700g.log": {
        "findings": {"driver.gpu-faults": ("warn", [1, 3, 9])},
        "signatures": {'amdgpu-gpu-reset-begin', 'amdgpu-sdma-ring-timeout', 'amdgpu-vram-lost'},
        "exit": 0,
    },
    "smu-no-response-imac-navi14.log": {
        "findings": {"driver.amdgpu-missing": ("fail", [2, 3]), "driver.gpu-faults": ("warn", [1])},
        "signatures": {'amdgpu-probe-failed', 'amdgpu-smu-init-failed', 'amdgpu-smu-unresponsive'},
        "exit": 1,
    },
    "smu-not-done-ring-timeout.log": {
        "findings": {"driver.gpu-faults": ("warn", [1, 4, 6, 8])},
        "signatures": {'amdgpu-smu-unresponsive', 'ring-timeout'},
        "exit": 0,
    },
    "sw-ctf-shutdown-rx6600m.log": {
        "findings": {"driver.gpu-faults": ("fail", [1, 2])},
        "signatures": {'amdgpu-over-temperature', 'amdgpu-thermal-shutdown'},
        "exit": 1,
    },
    "vgacon-nomodeset-vega64.log": {
        "findings": {"driver.amdgpu-missing": ("fail", [4, 5])},
        "signatures": {'amdgpu-nomodeset'},
        "exit": 1,
    },
    # torch's own errors (kernels, memory, collectives, libraries)
    "hip-no-kernel-image-autotrain.log": {
        "findings": {"arch.unsupported": ("fail", [1, 7])},
        "signatures": {'hip-no-kernel-image'},
        "exit": 1,
    },
    "hip-oom-comfyui-rx7900xt.log": {
        "findings": {"env.tuning": ("fail", [2])},
        "signatures": {'hip-out-of-memory'},
        "exit": 1,
    },
    "expandable-segments-unsupported-sglang.log": {
        "findings": {"env.tuning": ("warn", [3])},
        "signatures": {'torch-expandable-segments-unsupported'},
        "exit": 0,
    },
    "hip-illegal-address-comfyui-gfx1100.log": {
        "findings": {"driver.gpu-faults": ("fail", [17, 18])},
        "signatures": {'hip-illegal-memory-access'},
        "facts": {"gfx_targets": [("gfx1100", 3)], "torch": ("2.11.0+rocm7.2", 2), "torch_build": "rocm"},
        "exit": 1,
    },
    "memory-access-fault-comfyui-gfx1100.log": {
        "findings": {"driver.gpu-faults": ("fail", [1])},
        "signatures": {'hsa-memory-access-fault'},
        "facts": {"gfx_targets": [("gfx1100", 4)], "torch": ("2.10.0.dev20251206+rocm7.1", 3), "torch_build": "rocm"},
        "exit": 1,
    },
    "hw-exception-gpu-hang-mi300x.log": {
        "findings": {"driver.gpu-faults": ("fail", [1, 2, 3, 4, 5, 6, 7, 8])},
        "signatures": {'hsa-hw-exception-gpu-hang'},
        "exit": 1,
    },
    "hsa-aperture-violation-rx5500xt-override.log": {
        "findings": {"driver.gpu-faults": ("fail", [4])},
        "signatures": {'hsa-memory-aperture-violation'},
        "exit": 1,
    },
    "rccl-missing-iommu-pt-mi250x.log": {
        "findings": {"iommu.mode": ("warn", [5, 7]), "topology.p2p": ("warn", [1, 9])},
        "signatures": {'rccl-missing-fine-grain-pcie', 'rccl-missing-iommu-pt'},
        "exit": 0,
    },
    "miopen-find-db-store-failed-openmpi.log": {
        "findings": {"env.tuning": ("fail", [1, 2, 4])},
        "signatures": {'miopen-user-db-filesystem-error', 'miopen-user-db-unwritable'},
        "facts": {"gfx_targets": [("gfx906", 1)]},
        "exit": 1,
    },
    "miopen-cache-dir-read-only.log": {
        "findings": {"env.tuning": ("fail", [3])},
        "signatures": {'miopen-cache-dir-denied'},
        "exit": 1,
    },
    "hipblaslt-unsupported-arch-error-comfyui.log": {
        "findings": {"env.tuning": ("fail", [1])},
        "signatures": {'hipblaslt-unsupported-arch-error'},
        "exit": 1,
    },
    "hipblaslt-unsupported-arch-warning-mi100.log": {
        "findings": {"env.tuning": ("warn", [1])},
        "signatures": {'hipblaslt-unsupported-arch-fallback'},
        "exit": 0,
    },
    "nccl-shm-no-space-ci-pod.log": {
        "findings": {"shm.small": ("fail", [1, 3])},
        "signatures": {'nccl-shm-segment-failed'},
        "exit": 1,
    },
    "nccl-unhandled-system-error-docker.log": {
        "findings": {"shm.small": ("fail", [1, 2])},
        "signatures": {'nccl-unhandled-system-error'},
        "exit": 1,
    },
    "nccl-watchdog-timeout-p2p.log": {
        "findings": {"topology.p2p": ("fail", [1])},
        "signatures": {'nccl-watchdog-timeout'},
        "exit": 1,
    },
    "nccl-bootstrap-no-interface-eth0.log": {
        "findings": {"env.rccl": ("fail", [2])},
        "signatures": {'nccl-bootstrap-no-interface'},
        "exit": 1,
    },
    "hip-invalid-device-ordinal-ray-mi300x.log": {
        "findings": {"env.visible-devices": ("fail", [1])},
        "signatures": {'hip-invalid-device-ordinal'},
        "exit": 1,
    },
    "aotriton-not-compiled-gfx1151-docker.log": {
        "findings": {"torch.arch-missing": ("warn", [21])},
        "signatures": {'aotriton-arch-not-compiled'},
        "facts": {"gfx_targets": [("gfx1151", 21)], "torch": ("2.8.0+rocm7.0.0.git64359f59", 3), "torch_build": "rocm", "rocm": ("7.0.51831-a3e329ad8", 4)},
        "exit": 0,
    },
    # error lines the seeds quote, and their family
    "hsa-illegal-instruction.log": {
        "findings": {"arch.override-wrong": ("warn", [1])},
        "signatures": {'hsa-illegal-instruction'},
        "exit": 0,
    },
    "ih-fifo-overflow-strix-halo-override.log": {
        "findings": {"arch.override-wrong": ("warn", [1, 2, 3])},
        "signatures": {'gpu-hang-after-override'},
        "exit": 0,
    },
    "invalid-device-function-rx6600.log": {
        "findings": {"arch.unsupported": ("fail", [5])},
        "signatures": {'invalid-device-function'},
        "exit": 1,
    },
    "override-empty-rocm-agent-enumerator.log": {
        "findings": {"arch.override-wrong": ("fail", [2])},
        "signatures": {'override-invalid'},
        "fixes": {"arch.override-wrong": ["unset HSA_OVERRIDE_GFX_VERSION"]},
        "exit": 1,
    },
    "invalid-isa-gfx1150-override.log": {
        "findings": {"arch.unsupported": ("fail", [1]), "arch.override-wrong": ("fail", [2])},
        "signatures": {'invalid-device-function', 'invalid-isa'},
        "exit": 1,
    },
    "kfd-enoent-rocm-pytorch-container.log": {
        "findings": {"driver.kfd-missing": ("fail", [3])},
        "signatures": {'kfd-enoent'},
        "facts": {"rocm": ("5.2.0", 1)},
        "exit": 1,
    },
    "libamdhip64-missing-tensorflow-rocm.log": {
        "findings": {"rocm.not-installed": ("fail", [5])},
        "signatures": {'libamdhip64-missing'},
        "exit": 1,
    },
    "libhsa-runtime-missing-tensorflow.log": {
        "findings": {"rocm.not-installed": ("fail", [14])},
        "signatures": {'libhsa-runtime-missing'},
        "exit": 1,
    },
    "libtorch-hip-undefined-symbol-rccl.log": {
        "findings": {"torch.rocm-mismatch": ("fail", [1])},
        "signatures": {'libtorch-hip-undefined-symbol'},
        "exit": 1,
    },
    "llamacpp-no-rocm-device-strix-point.log": {
        "findings": {"runtime.hip-init": ("fail", [2])},
        "signatures": {'hip-no-device'},
        "exit": 1,
    },
    "miopen-undefined-symbol-rebuilt-ck.log": {
        "findings": {"rocm.multiple": ("fail", [7])},
        "signatures": {'rocm-lib-undefined-symbol'},
        "facts": {"rocm": ("7.2.0", 7)},
        "exit": 1,
    },
    "ollama-gfx1103-not-supported.log": {
        "findings": {"arch.unsupported": ("fail", [2])},
        "signatures": {'ollama-gfx-unsupported'},
        "facts": {"gfx_targets": [("gfx1103", 1)]},
        "exit": 1,
    },
    "ollama-kfd-driver-not-loaded-haos.log": {
        "findings": {"driver.kfd-missing": ("fail", [4])},
        "signatures": {'ollama-kfd-not-loaded'},
        "exit": 1,
    },
    "ollama-rocblas-no-devices-7900xtx.log": {
        "findings": {"runtime.hip-init": ("fail", [1, 3])},
        "signatures": {'rocblas-no-devices'},
        "exit": 1,
    },
    "ring-timeout-gfx1201-gst-plugin-scan.log": {
        "findings": {"driver.gpu-faults": ("warn", [5])},
        "signatures": {'ring-timeout'},
        "exit": 0,
    },
    "rocm-agent-enumerator-no-kfd-topology.log": {
        "findings": {"driver.kfd-missing": ("warn", [8])},
        "signatures": {'rocm-agent-enumerator-no-kfd'},
        "exit": 0,
    },
    "rocm-smi-amdgpu-not-live-mi50.log": {
        "findings": {"driver.amdgpu-missing": ("fail", [2, 8])},
        "signatures": {'rocminfo-rock-not-loaded', 'smi-amdgpu-not-initialized'},
        "exit": 1,
    },
    "rocm-smi-amdgpu-not-loaded-mi210.log": {
        "findings": {"driver.amdgpu-missing": ("warn", [3])},
        "signatures": {'smi-amdgpu-not-initialized'},
        "tools": [('rocm-smi', 1)],
        "exit": 0,
    },
    "rocminfo-rock-not-loaded-v620-vm.log": {
        "findings": {"driver.amdgpu-missing": ("fail", [4])},
        "signatures": {'rocminfo-rock-not-loaded'},
        "facts": {"gfx_targets": [("gfx1030", 2)]},
        "tools": [('lspci -nn', 2), ('rocminfo', 4)],
        "exit": 1,
    },
    "smi-no-gpu-mi50-egpu.log": {
        "findings": {"gpu.not-bound": ("warn", [5, 9])},
        "signatures": {'smi-no-gpu'},
        "facts": {"rocm": ("6.2.4", 3)},
        "tools": [('amd-smi', 1), ('rocm-smi', 6)],
        "exit": 0,
    },
    "torch-no-hip-gpus-rocm42.log": {
        "findings": {"runtime.hip-init": ("fail", [7, 13])},
        "signatures": {'hip-no-device', 'torch-no-hip-gpus'},
        "exit": 1,
    },
    "torchvision-undefined-symbol-faster-rcnn.log": {
        "findings": {"torch.companions": ("fail", [1])},
        "signatures": {'torchvision-undefined-symbol'},
        "exit": 1,
    },
    "torch-hip-device-string-diffusers.log": {
        # The seeds' warning: renaming "cuda" to "hip" breaks torch on ROCm.
        "findings": {"code.cuda-only-api": ("fail", [1])},
        "signatures": {"torch-hip-device-type"},
        "exit": 1,
    },
    # Whole tool outputs as facts (issue 27 §2): collect_env in vLLM's aligned form, and a
    # collect_env whose [pip3] list holds a CUDA torch's leftovers beside a ROCm nightly.
    "collect-env-vllm-cuda-wheel-mi210.log": {
        "findings": {},
        "facts": {"torch": ("2.12.0+rocm7.2", 14), "rocm": ("7.2.53211", 17), "python": ("3.11", 23),
                  "gfx_targets": [("gfx90a", 32)]},
        "tools": [("collect_env", 14)],
        "exit": 0,
    },
    "collect-env-nvidia-cu12-rocm64-wsl-7900xt.log": {
        # PyPI's triton beside pytorch-triton-rocm; thirteen nvidia-*-cu12 wheels left by a CUDA
        # torch (a warning). torchvision 0.22.0.dev of the same night as torch 2.8.0.dev is no
        # finding: nightlies of one night pair whatever their numbers say.
        "findings": {"torch.companions": ("fail", [2, 40, 42, 44, 45]),
                     "python.cuda-packages": ("warn", [2] + list(range(26, 39)))},
        "facts": {"python": ("3.12", 13)},
        "packages": 21,
        "exit": 1,
    },
    "tensors-on-two-gpus-face-transformer.log": {
        "findings": {"env.visible-devices": ("warn", [1])},
        "signatures": {"tensors-on-two-gpus"},
        "exit": 0,
    },
}


TRIAGE_SCHEMA = os.path.join(SOURCE_DIR, "docs", "triage.schema.json")


def triage(binary, *args, stdin=None, timeout=120):
    merged = dict(os.environ)
    return subprocess.run([binary, "triage", *args], input=stdin, capture_output=True,
                          env=merged, timeout=timeout)


def check_real_logs(binary, results):
    on_disk = sorted(name for name in os.listdir(LOGS) if name.endswith(".log"))
    results.check(sorted(EXPECT) == on_disk, f"every real log has expectations: {on_disk}")
    signatures = set()
    with open(os.path.join(LOGS, "SOURCES.md"), encoding="utf-8") as f:
        sources = f.read()
    for name, expect in sorted(EXPECT.items()):
        results.check(f"`{name}`" in sources, f"{name} is cited in SOURCES.md")
        path = os.path.join(LOGS, name)
        proc = triage(binary, "--json", path)
        results.check(proc.returncode == expect["exit"], f"{name}: exit {proc.returncode}, stderr {proc.stderr!r}")
        doc = json.loads(proc.stdout)
        results.check(doc["schema"] == "rocdoc-triage/1", f"{name}: schema")
        problem = validate(doc, TRIAGE_SCHEMA)
        results.check(problem is None, f"{name}: matches docs/triage.schema.json: {problem}")
        got = {f["id"]: (f["status"], [line["number"] for line in f["lines"]]) for f in doc["findings"]}
        results.check(got == expect["findings"], f"{name}: findings {got} != {expect['findings']}")
        for finding in doc["findings"]:
            signatures.update(finding["signatures"])
            results.check(finding["fix"] or finding["id"] == "arch.unsupported",
                          f"{name}: {finding['id']} names a fix")
        for check_id, words in expect.get("messages", {}).items():
            finding = next((f for f in doc["findings"] if f["id"] == check_id), {"message": ""})
            results.check(words in finding["message"], f"{name}: {check_id} says {words!r}")
        for check_id, commands in expect.get("fixes", {}).items():
            finding = next(f for f in doc["findings"] if f["id"] == check_id)
            got_commands = [f["command"] for f in finding["fix"]]
            results.check(got_commands == commands, f"{name}: {check_id} fixes {got_commands}")
        if "signatures" in expect:
            found = {s for f in doc["findings"] for s in f["signatures"]}
            results.check(found == expect["signatures"], f"{name}: signatures {found}")
        facts = doc["facts"]
        for key, value in expect.get("facts", {}).items():
            if key == "gfx_targets":
                got_value = [(v["value"], v["line"]) for v in facts[key]]
            elif key == "torch_build":
                got_value = facts[key]
            else:
                got_value = (facts[key]["value"], facts[key]["line"]) if facts[key] else None
            results.check(got_value == value, f"{name}: fact {key} {got_value!r} != {value!r}")
        if "packages" in expect:
            results.check(len(facts["packages"]) == expect["packages"], f"{name}: {len(facts['packages'])} packages")
        if "tools" in expect:
            got_value = [(v["value"], v["line"]) for v in facts["tools"]]
            results.check(got_value == expect["tools"], f"{name}: tool outputs {got_value}")
        if expect["exit"] == 0 and not expect["findings"]:
            # Issue 27 §3: no all-clear; what was not in the text is said.
            results.check(doc["not_in_log"] and doc["signatures"] >= 20, f"{name}: not_in_log {doc['not_in_log']}")
            plain = triage(binary, "--no-color", path).stdout.decode()
            results.check("Nothing known is wrong in this text" in plain and "no all-clear" in plain
                          and "show no problem" not in plain, f"{name}: honest wording {plain!r}")
        if "overrides" in expect:
            got_value = [(v["variable"], v["value"], v["line"]) for v in facts["overrides"]]
            results.check(got_value == expect["overrides"], f"{name}: overrides {got_value}")
        human = triage(binary, path)
        results.check(human.returncode == expect["exit"], f"{name}: human exit {human.returncode}")
        text = human.stdout.decode()
        for check_id in expect["findings"]:
            results.check(check_id in text, f"{name}: human output names {check_id}")
        markdown = triage(binary, "--format", "markdown", path)
        md = markdown.stdout.decode()
        # check's Markdown dialect: "# rocdoc triage: verdict", "### N. `id` (severity)", fixes
        # as check writes them, "**Verify:**"; "## Answer" when nothing is known to be wrong.
        shaped = (all(f"`{check_id}` (" in md for check_id in expect["findings"]) and "**Verify:** `rocdoc check --only" in md
                  if expect["findings"] else "## Answer\n\nNothing known is wrong in this text" in md)
        results.check(markdown.returncode == expect["exit"] and md.startswith("# rocdoc triage: ") and shaped,
                      f"{name}: markdown {md[:300]!r}")
    # Issue 27 §1: every signature is tested against a stored real excerpt, but for these (each
    # with the reason no real paste exists). override-invalid's is rocm_agent_enumerator's
    # refusal of an empty value (ROCR-Runtime#354); libhsakmt's own words, "HSA_OVERRIDE_GFX_VERSION
    # <value> is invalid", are in no public paste found (it printed them only with
    # HSAKMT_DEBUG_LEVEL set): the unit test triage_test.cpp holds that line.
    without_log = set()
    with open(os.path.join(SOURCE_DIR, "rules", "triage.yaml"), encoding="utf-8") as f:
        defined = set(re.findall(r"^  - id: (\S+)", f.read(), re.M))
    results.check(len(defined) >= 80, f"at least 80 signatures: {len(defined)}")
    results.check(defined - signatures == without_log,
                  f"every signature matches a real log: missing {sorted(defined - signatures - without_log)}, "
                  f"has a log now {sorted(without_log & signatures)}")


def check_same_fix_as_check(binary, results):
    """The fix triage gives for the GPU and torch of a log is the one check gives that machine."""
    proc = run(binary, "check", "--json", "--root", os.path.join(SOURCE_DIR, "tests", "fixtures", "rx6700xt-no-override"))
    report = json.loads(proc.stdout)
    check_fix = next(c["fix"] for c in report["checks"] if c["id"] == "arch.unsupported")
    log = (
        "  Name:                    gfx1031\n"
        '  File "/home/alice/venv/lib/python3.10/site-packages/torch/cuda/__init__.py", line 9\n'
        "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\n"
        "[pip3] torch==2.6.0+rocm6.2.4\n"
    )
    triaged = triage(binary, "--json", "-", stdin=log.encode())
    results.check(triaged.returncode == 1, f"stdin log: exit {triaged.returncode}")
    doc = json.loads(triaged.stdout)
    results.check(doc["input"]["name"] == "standard input", "stdin is named standard input")
    finding = next((f for f in doc["findings"] if f["id"] == "arch.unsupported"), None)
    results.check(finding is not None and finding["fix_from"] == "facts", "triage computed the fix from the facts")
    if finding:
        ours = [(f["description"], f["command"]) for f in finding["fix"]]
        theirs = [(f["description"], f["command"]) for f in check_fix]
        results.check(ours == theirs, f"triage's fix {ours} == check's {theirs}")


def check_same_fixes_as_fixture(binary, results):
    """The RX 580 whose kernel log says "PCI rejects atomics": the fixture of that machine and
    the real log give the same fixes for pcie.atomics and arch.unsupported."""
    fixture = os.path.join(SOURCE_DIR, "tests", "fixtures", "rx580-pci-rejects-atomics")
    if not os.path.isdir(fixture):
        return
    report = json.loads(run(binary, "check", "--json", "--root", fixture).stdout)
    doc = json.loads(triage(binary, "--json", os.path.join(LOGS, "pcie-atomics-rx580.log")).stdout)
    for check_id in ("pcie.atomics", "arch.unsupported"):
        theirs = next(c["fix"] for c in report["checks"] if c["id"] == check_id)
        ours = next(f["fix"] for f in doc["findings"] if f["id"] == check_id)
        results.check([(f["description"], f["command"], f["kind"]) for f in ours]
                      == [(f["description"], f["command"], f["kind"]) for f in theirs],
                      f"{check_id}: triage's fix {ours} == check's {theirs}")
    eperm = json.loads(triage(binary, "--json", os.path.join(LOGS, "kfd-eperm-popos.log")).stdout)
    fix = eperm["findings"][0]["fix"][0]
    results.check(fix["command"] == "--device=/dev/kfd --device=/dev/dri" and fix["kind"] == "container_flag",
                  f"a docker flag is a container_flag fix ({fix})")


def check_bad_input(binary, results):
    with tempfile.TemporaryDirectory() as tmp:
        missing = os.path.join(tmp, "no-such.log")
        proc = triage(binary, missing)
        results.check(proc.returncode == 2 and missing.encode() in proc.stderr and not proc.stdout,
                      f"missing file: exit 2 naming it ({proc.returncode}, {proc.stderr!r})")
        proc = triage(binary, tmp)
        results.check(proc.returncode == 2 and b"directory" in proc.stderr, f"a directory: exit 2 ({proc.stderr!r})")

        empty = os.path.join(tmp, "empty.log")
        open(empty, "wb").close()
        proc = triage(binary, "--json", empty)
        results.check(proc.returncode == 0, f"empty file: exit 0 ({proc.returncode})")
        doc = json.loads(proc.stdout)
        results.check(doc["input"]["lines"] == 0 and doc["findings"] == [], "empty file: nothing")

        huge = os.path.join(tmp, "huge.log")
        with open(huge, "wb") as f:
            f.write(b"hipErrorNoBinaryForGpu\n" * (20 * 1024 * 1024 // 23 + 1))
        proc = triage(binary, huge)
        results.check(proc.returncode == 2 and b"16777216 bytes (16 MiB)" in proc.stderr and not proc.stdout,
                      f"20 MB file: exit 2 naming the limit ({proc.stderr!r})")
        with open(huge, "rb") as f:
            proc = subprocess.run([binary, "triage", "-"], stdin=f, capture_output=True, timeout=120)
        results.check(proc.returncode == 2 and b"16 MiB" in proc.stderr,
                      f"20 MB on standard input: exit 2 ({proc.stderr!r})")

        long_line = os.path.join(tmp, "long.log")
        with open(long_line, "wb") as f:
            f.write(b"x" * (10 * 1024 * 1024) + b"hipErrorNoBinaryForGpu")
        proc = triage(binary, "--json", long_line)
        results.check(proc.returncode == 0, f"10 MB line: exit 0 ({proc.returncode}, {proc.stderr!r})")
        doc = json.loads(proc.stdout)
        results.check(doc["input"]["lines"] == 1 and doc["input"]["cut_lines"] == 1,
                      f"10 MB line: one line, cut ({doc['input']})")

        garbage = os.path.join(tmp, "garbage.log")
        with open(garbage, "wb") as f:
            f.write(bytes(range(256)) * 4096 + b"\x1b[2J\xffhipErrorNoBinaryForGpu\x00\n")
        for args in (["--json"], [], ["--format", "markdown"]):
            proc = triage(binary, *args, garbage)
            results.check(proc.returncode in (0, 1), f"binary garbage {args}: exit {proc.returncode}")
            results.check(b"\x1b" not in proc.stdout and b"\xff" not in proc.stdout,
                          f"binary garbage {args}: output printable")
        doc = json.loads(triage(binary, "--json", garbage).stdout)
        results.check(validate(doc, TRIAGE_SCHEMA) is None, "binary garbage: the JSON matches its schema")
        results.check(any(f["id"] == "arch.unsupported" for f in doc["findings"]),
                      "binary garbage: the signature after it is still found")

    with tempfile.TemporaryDirectory() as rules:
        with open(os.path.join(rules, "triage.yaml"), "w") as f:
            f.write("signatures:\n  - id: made-up\n    match: [\"some error\"]\n"
                    "    check: arch.made-up\n    severity: error\n    message: m\n    source: s\n")
        proc = run(binary, "rules", "lint", rules)
        results.check(proc.returncode == 2 and "arch.made-up" in proc.stderr,
                      f"rules lint refuses a signature naming an unknown check ({proc.stderr!r})")
        proc = triage(binary, "--rules", rules, "-", stdin=b"some error\n")
        results.check(proc.returncode == 2 and b"not in the check table" in proc.stderr,
                      f"triage --rules refuses it too ({proc.stderr!r})")
        with open(os.path.join(rules, "triage.yaml"), "w") as f:
            f.write("signatures:\n  - id: made-up\n    match: [\"some error\"]\n"
                    "    check: perm.kfd\n    severity: warning\n    message: m\n    source: s\n")
        proc = triage(binary, "--json", "--rules", rules, "-", stdin=b"x\nSOME ERROR here\n")
        doc = json.loads(proc.stdout)
        results.check(proc.returncode == 0 and [(f["id"], f["status"], f["lines"][0]["number"]) for f in doc["findings"]]
                      == [("perm.kfd", "warn", 2)], f"a signature from --rules is used ({proc.stdout!r})")

    proc = triage(binary, "--format", "yaml", "-", stdin=b"")
    results.check(proc.returncode == 2 and b"--format" in proc.stderr, "bad --format: exit 2")
    proc = triage(binary, "--fail-on", "warning", "-",
                  stdin=b"amdgpu 0000:03:00.0: amdgpu: GPU reset begin!\n")
    results.check(proc.returncode == 1, f"--fail-on warning: a warning is exit 1 ({proc.returncode})")
    proc = triage(binary, "-", stdin=b"amdgpu 0000:03:00.0: amdgpu: GPU reset begin!\n")
    results.check(proc.returncode == 0, f"a warning alone is exit 0 ({proc.returncode})")
    proc = triage(binary, "--help")
    results.check(proc.returncode == 0 and b"Exit codes:" in proc.stdout, "triage --help has exit codes")
    proc = run(binary, "triag")
    results.check(proc.returncode == 2 and "did you mean triage?" in proc.stderr, f"did you mean triage ({proc.stderr!r})")


def check_dialect(binary, results):
    """Triage speaks check's dialect (issue 22, N26): glyph, message, [id], lower-case fix:,
    the command under it; [FAIL] only where the locale is not UTF-8; colour only on request."""
    log = os.path.join(LOGS, "kfd-einval-mi300x-container.log")
    env = {k: v for k, v in os.environ.items() if k not in ("LC_ALL", "LC_CTYPE", "LANG", "NO_COLOR")}
    utf8 = subprocess.run([binary, "triage", log], capture_output=True, text=True,
                          env={**env, "LC_ALL": "C.UTF-8"}).stdout
    results.check("\n✗ Opening /dev/kfd fails with EINVAL" in utf8 and "  [driver.kfd-unusable]\n" in utf8,
                  f"triage: glyph, message and [id] as check prints them: {utf8!r}")
    results.check("\n    fix: Look for a wedged GPU" in utf8 and
                  "\n      sudo dmesg | grep -iE 'amdgpu|kfd'\n" in utf8,
                  f"triage: 'fix:' with the command under it: {utf8!r}")
    results.check("[FAIL]" not in utf8 and "Fix:" not in utf8 and "\x1b" not in utf8,
                  "triage: no [FAIL], no 'Fix:', no colour into a pipe")
    ascii = subprocess.run([binary, "triage", log], capture_output=True, text=True,
                           env={**env, "LC_ALL": "C"}).stdout
    results.check("\n[FAIL] Opening /dev/kfd" in ascii and all(ord(c) < 128 for c in ascii),
                  f"triage: ASCII glyphs where the locale is not UTF-8: {ascii!r}")
    forced = subprocess.run([binary, "triage", log], capture_output=True, text=True,
                            env={**env, "LC_ALL": "C.UTF-8", "CLICOLOR_FORCE": "1"}).stdout
    results.check("\x1b[31m✗\x1b[0m" in forced, f"triage: colour with CLICOLOR_FORCE: {forced[:200]!r}")
    plain = subprocess.run([binary, "triage", "--no-color", log], capture_output=True, text=True,
                           env={**env, "LC_ALL": "C.UTF-8", "CLICOLOR_FORCE": "1"}).stdout
    results.check("\x1b" not in plain, "triage --no-color: no colour even with CLICOLOR_FORCE")
    # Issue 27 §3: a triage finding has the check report's keys, in its order, then its own; a
    # fix has the report's keys exactly.
    fixture = os.path.join(SOURCE_DIR, "tests", "fixtures", "rx9070xt-vllm-from-pypi-cuda-torch")
    report = json.loads(subprocess.run([binary, "check", "--root", fixture, "--json"],
                                       capture_output=True).stdout)
    check_finding = next(c for c in report["checks"] if c["status"] == "fail" and c["fix"])
    triaged = json.loads(triage(binary, "--json", log).stdout)["findings"][0]
    keys = list(check_finding)
    results.check(list(triaged)[:len(keys)] == keys,
                  f"triage's finding starts with the report's keys {keys}: {list(triaged)}")
    results.check(list(triaged["fix"][0]) == list(check_finding["fix"][0]),
                  f"a fix has the report's keys: {list(triaged['fix'][0])}")
    results.check(triaged["verify"] == "rocdoc check --only driver.kfd-unusable" and
                  triaged["area"] == "Kernel driver" and triaged["caused_by"] == [] and
                  triaged["evidence"][0].startswith("line 3: Unable to open /dev/kfd"),
                  f"area, evidence, caused_by, verify: {triaged}")


def check_blocking_input(binary, results):
    """11-blocking-inputs.sh: a FIFO or a device named as the log is refused at once (the unfixed
    open or read waited for a writer, or for the next kernel message, forever); a stream is read
    from standard input, a pipe included."""
    def bounded(*args, stdin=None):
        try:
            return triage(binary, *args, stdin=stdin, timeout=20)
        except subprocess.TimeoutExpired:
            return None

    with tempfile.TemporaryDirectory() as tmp:
        fifo = os.path.join(tmp, "log.fifo")
        os.mkfifo(fifo)
        proc = bounded(fifo)
        results.check(proc is not None and proc.returncode == 2 and not proc.stdout and
                      proc.stderr.decode() == f"rocdoc: triage: {fifo}: a FIFO, not a log file; pipe a "
                      "stream to standard input instead (dmesg | rocdoc triage -)\n",
                      f"a FIFO: exit 2 at once ({proc and (proc.returncode, proc.stderr)})")
    devices = ["/dev/zero"] + (["/dev/kmsg"] if os.access("/dev/kmsg", os.R_OK) else [])
    for device in devices:
        proc = bounded(device)
        results.check(proc is not None and proc.returncode == 2 and
                      f"{device}: a character device, not a log file".encode() in proc.stderr,
                      f"{device}: exit 2 at once ({proc and (proc.returncode, proc.stderr)})")
    log = b"amdgpu 0000:03:00.0: amdgpu: GPU reset begin!\n"
    for args in (("--json",), ("--json", "-")):
        proc = bounded(*args, stdin=log)  # a pipe, as cat log | rocdoc triage
        lines = json.loads(proc.stdout)["input"]["lines"] if proc and proc.returncode == 0 else None
        results.check(lines == 1, f"triage {args} reads a pipe on standard input ({lines} line)")


def main():
    binary = sys.argv[1]
    results = Results()
    check_real_logs(binary, results)
    check_same_fix_as_check(binary, results)
    check_same_fixes_as_fixture(binary, results)
    check_bad_input(binary, results)
    check_blocking_input(binary, results)
    check_dialect(binary, results)
    results.finish()


if __name__ == "__main__":
    main()
