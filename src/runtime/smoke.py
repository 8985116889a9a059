# torch.smoke (rocdoc check --smoke): run by one Python interpreter, in a child of rocdoc, with a
# deadline. It imports torch and does a little real work on every GPU torch sees, then prints
# one JSON document on its last line. Before each step it prints "# step NAME", so that a hang
# or a crash still tells rocdoc where it stopped. It installs, downloads and writes nothing: it
# first leaves the network (a network namespace of its own where the kernel allows one), and
# rocdoc points the caches it knows at a directory it removes afterwards.
# Backend-agnostic: torch.cuda is torch's GPU API under both HIP (ROCm) and CUDA.
import json
import sys
import time
import traceback

FORMAT = 1
SIZE = 256  # the matrices are SIZE x SIZE, the products accumulate SIZE terms
TOLERANCE = {"fp32": 1e-3, "fp16": 1e-2, "bf16": 3e-2}  # of the largest |value| of the result
ALLOC_BYTES = 64 << 20
MAX_DEVICES = 64

out = {"format": FORMAT, "python": sys.version.split()[0], "executable": sys.executable}


def step(name):
    print("# step " + name, flush=True)


def error_of(exc):
    text = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    return {"type": type(exc).__name__, "message": text[-2000:],
            "traceback": traceback.format_exc()[-4000:]}


def finish():
    print(json.dumps(out, sort_keys=True), flush=True)
    sys.exit(0)


def leave_network():
    """A network namespace of its own (CLONE_NEWNET, with CLONE_NEWUSER where only that is
    allowed): the interfaces left are what rocdoc reports."""
    how = None
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        for flags, name in ((0x40000000, "network namespace"),
                            (0x40000000 | 0x10000000, "user and network namespace")):
            if libc.unshare(flags) == 0:
                how = name
                break
    except Exception:  # noqa: BLE001 - any failure leaves the network as it was
        how = None
    try:
        import socket
        interfaces = sorted(name for _, name in socket.if_nameindex())
    except Exception:  # noqa: BLE001
        interfaces = None
    out["network"] = {"isolated": how is not None, "how": how, "interfaces": interfaces}


def compare(torch, dtype_name, device, generator):
    dtype = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}[dtype_name]
    a = torch.randn(SIZE, SIZE, generator=generator).to(dtype)
    b = torch.randn(SIZE, SIZE, generator=generator).to(dtype)
    expected = a.float() @ b.float()  # the CPU's product of the same rounded inputs
    started = time.monotonic()
    got = (a.to(device) @ b.to(device)).float().cpu()
    seconds = time.monotonic() - started
    scale = max(1.0, float(expected.abs().max()))
    error = float((got - expected).abs().max()) / scale
    ok = error <= TOLERANCE[dtype_name]
    return {"status": "ok" if ok else "wrong", "error": error, "tolerance": TOLERANCE[dtype_name],
            "seconds": seconds}


def convolve(torch, device, generator):
    x = torch.randn(2, 8, 32, 32, generator=generator)
    w = torch.randn(16, 8, 3, 3, generator=generator)
    expected = torch.nn.functional.conv2d(x, w, padding=1)
    started = time.monotonic()
    got = torch.nn.functional.conv2d(x.to(device), w.to(device), padding=1).cpu()
    seconds = time.monotonic() - started
    scale = max(1.0, float(expected.abs().max()))
    error = float((got - expected).abs().max()) / scale
    return {"status": "ok" if error <= 1e-2 else "wrong", "error": error, "tolerance": 1e-2,
            "seconds": seconds}


def allocate(torch, device):
    started = time.monotonic()
    block = torch.empty(ALLOC_BYTES, dtype=torch.uint8, device=device)
    block.fill_(0x5A)
    value = int(block[-1].item())
    del block
    return {"status": "ok" if value == 0x5A else "wrong", "bytes": ALLOC_BYTES,
            "seconds": time.monotonic() - started}


def run_test(name, index, work):
    step("%s cuda:%d" % (name, index))
    try:
        return work()
    except Exception as exc:  # noqa: BLE001 - every failure is the answer
        return {"status": "failed", "exception": error_of(exc)}


def device_tests(torch, index):
    entry = {"index": index}
    try:
        props = torch.cuda.get_device_properties(index)
        entry["name"] = props.name
        # gcnArchName on ROCm builds; CUDA builds have the attribute too, holding the name.
        entry["arch"] = (getattr(props, "gcnArchName", None) if torch.version.hip else
                         "sm_%d%d" % (props.major, props.minor) if torch.version.cuda else None)
        entry["total_memory"] = props.total_memory
    except Exception as exc:  # noqa: BLE001
        entry["properties_error"] = error_of(exc)
    device = torch.device("cuda", index)
    generator = torch.Generator().manual_seed(1234 + index)
    tests = {}
    for dtype_name in ("fp32", "fp16", "bf16"):
        if dtype_name == "bf16":
            try:
                with torch.cuda.device(index):
                    supported = torch.cuda.is_bf16_supported()
            except Exception:  # noqa: BLE001
                supported = True
            if not supported:
                tests["bf16"] = {"status": "skipped"}
                continue
        tests[dtype_name] = run_test("matmul-" + dtype_name, index,
                                     lambda d=dtype_name: compare(torch, d, device, generator))
    tests["conv2d"] = run_test("conv2d", index, lambda: convolve(torch, device, generator))
    tests["alloc"] = run_test("alloc", index, lambda: allocate(torch, device))
    entry["tests"] = tests
    return entry


def main():
    leave_network()
    step("import torch")
    started = time.monotonic()
    try:
        import torch
    except BaseException as exc:  # noqa: BLE001 - ImportError, OSError, SystemExit alike
        out["import_error"] = error_of(exc)
        finish()
    out["import_seconds"] = time.monotonic() - started
    version = getattr(torch, "version", None)
    out["torch"] = {"version": getattr(torch, "__version__", None),
                    "file": getattr(torch, "__file__", None),
                    "hip": getattr(version, "hip", None), "cuda": getattr(version, "cuda", None)}
    step("is_available")
    import warnings
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out["available"] = bool(torch.cuda.is_available())
            out["device_count"] = int(torch.cuda.device_count())
        # torch says why it sees no GPU only in a warning ("CUDA initialization: ...").
        out["warnings"] = [str(w.message)[:1000] for w in caught][:5]
    except Exception as exc:  # noqa: BLE001
        out["available_error"] = error_of(exc)
        finish()
    try:
        out["arch_list"] = list(torch.cuda.get_arch_list()) if out["available"] else []
    except Exception as exc:  # noqa: BLE001
        out["arch_list_error"] = error_of(exc)
    out["devices"] = []
    if out["available"]:
        for index in range(min(out["device_count"], MAX_DEVICES)):
            out["devices"].append(device_tests(torch, index))
    finish()


main()
