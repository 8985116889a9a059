"""A fake ROCm torch for e2e.smoke (tests/e2e/test_smoke.py): it imports the real torch of the
machine (Debian's python3-torch, a CPU build, through the venv's system site packages), makes
torch.cuda answer as a ROCm build on two Radeon RX 7900 XTX (gfx1100) would, runs the "GPU"
work on the CPU, and misbehaves as the file _rocdoc_fake_mode beside it says:

ok, import_error, unavailable, available_error, wrong (fp16 on cuda:1 comes back perturbed),
invalid_function and oom (cuda:1 raises what ROCm's torch raises), hang and crash (in cuda:1's
first copy), flood (megabytes on stdout), no_arch (get_arch_list lacks gfx1100), one_gpu
(torch counts one GPU).
"""
import contextlib
import os
import signal
import sys
import time
import warnings

_here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(_here, "_rocdoc_fake_mode")) as _f:
    _mode = _f.read().strip()

if _mode == "import_error":
    # What a ROCm wheel says when its bundled runtime's dependencies are missing.
    raise ImportError("libamdhip64.so: cannot open shared object file: No such file or directory")
if _mode == "flood":
    sys.stdout.write(("x" * 1023 + "\n") * 3000)
    sys.stdout.flush()

_site = os.path.dirname(_here)
del sys.modules["torch"]
sys.path[:] = [p for p in sys.path if os.path.abspath(p) != _site]
import torch as _real  # noqa: E402  the machine's own torch

sys.path.insert(0, _site)
sys.modules["torch"] = _real

_real.__version__ = "2.6.0+rocm6.2.4"
_real.version.hip = "6.2.41134-65d174c3e"
_real.version.cuda = None


class _Props:
    def __init__(self, index):
        self.name = "AMD Radeon RX 7900 XTX"
        self.gcnArchName = "gfx1100"
        self.total_memory = 25753026560
        self.major, self.minor = 11, 0


def _is_available():
    if _mode == "unavailable":
        warnings.warn("CUDA initialization: HIP error: no ROCm-capable device is detected")
        return False
    if _mode == "available_error":
        raise RuntimeError("HIP error: hipErrorNoDevice")
    return True


_cuda = _real.cuda
_cuda.is_available = _is_available
_cuda.device_count = lambda: 1 if _mode == "one_gpu" else (2 if _mode != "unavailable" else 0)
_cuda.get_device_properties = _Props
_cuda.get_arch_list = lambda: ["gfx90a", "gfx942"] if _mode == "no_arch" else ["gfx90a", "gfx1100"]
_cuda.is_bf16_supported = lambda: True
_cuda.device = lambda index: contextlib.nullcontext()


def _index(target):
    if isinstance(target, str):
        return int(target.split(":")[1]) if ":" in target else 0
    return target.index or 0


def _on_gpu(target):
    return (isinstance(target, _real.device) and target.type == "cuda") or (
        isinstance(target, str) and target.startswith("cuda"))


_orig_to = _real.Tensor.to


def _to(self, *args, **kwargs):
    target = args[0] if args else kwargs.get("device")
    if not _on_gpu(target):
        return _orig_to(self, *args, **kwargs)
    index = _index(target)
    if index == 1:
        if _mode == "hang":
            time.sleep(3600)
        if _mode == "crash":
            os.kill(os.getpid(), signal.SIGSEGV)
        if _mode == "invalid_function":
            raise RuntimeError("HIP error: invalid device function\nHIP kernel errors might be "
                               "asynchronously reported at some other API call, so the stacktrace "
                               "below might be incorrect.")
    moved = self
    if self.dtype in (_real.float16, _real.bfloat16):
        # The CPU build has no half-precision matrix product: compute in float32.
        moved = _orig_to(self, _real.float32)
        if _mode == "wrong" and index == 1 and self.dtype == _real.float16:
            moved = moved + 0.5
    return moved


_real.Tensor.to = _to
_orig_empty = _real.empty


def _empty(*args, **kwargs):
    device = kwargs.pop("device", None)
    if _on_gpu(device) and _index(device) == 1 and _mode == "oom":
        raise RuntimeError("HIP out of memory. Tried to allocate 64.00 MiB (GPU 1; 23.98 GiB total "
                           "capacity; 23.90 GiB already allocated)")
    return _orig_empty(*args, **kwargs)


_real.empty = _empty

if _mode == "environment":
    # What the child was given: every variable's name, as the exception of cuda:0's first copy.
    _names = ",".join(sorted(os.environ))

    def _tell(self, *args, **kwargs):
        raise RuntimeError("environment: " + _names)

    _real.Tensor.to = lambda self, *a, **k: _tell(self) if a and _on_gpu(a[0]) else _orig_to(
        self, *a, **k)
