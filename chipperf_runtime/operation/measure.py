"""One operator over its shape set: correctness, then timed calls inside one window."""

from __future__ import annotations

import contextlib
import zlib
from collections.abc import Iterator
from typing import Any

import torch

from chipperf_runtime.bench.case import (
    BenchCase,
    BenchError,
    Unsupported,
    WrongResult,
    common_finished,
    is_out_of_memory,
)
from chipperf_runtime.bench.peaks import Peak, memory_bandwidth_peak, share
from chipperf_runtime.device import DeviceError
from chipperf_runtime.device.torch import TorchDevice, open_torch_device
from chipperf_runtime.operation.check import compare
from chipperf_runtime.operation.table import OPS, Op, Shape
from chipperf_runtime.timing import Loop, latency_ms, run_each, warm

TORCH_DTYPES = {"FP64": torch.float64, "FP32": torch.float32, "FP16": torch.float16,
                "BF16": torch.bfloat16, "INT32": torch.int32, "INT16": torch.int16}


@contextlib.contextmanager
def provider(name: str) -> Iterator[None]:
    """nativetorch: torch as it is; flaggems: FlagGems' kernels registered for the calls."""
    if name == "nativetorch":
        yield
        return
    try:
        import flag_gems
    except Exception as exc:  # ImportError, or a failure of its Triton backend
        raise Unsupported(f"provider flaggems: flag_gems does not import ({type(exc).__name__}: "
                          f"{exc}); install flag-gems in the image") from exc
    with flag_gems.use_gems():
        yield


def shapes(case: BenchCase, op: Op) -> tuple[Shape, ...]:
    raw = case.settings.get("shapes")
    if raw is None:
        return op.shapes
    ok = isinstance(raw, list) and raw and all(
        isinstance(s, list) and len(s) == len(op.shapes[0]) and
        all(isinstance(v, int) and v > 0 for v in s) for s in raw)
    if not ok:
        raise BenchError(f"{op.name}: shapes {raw!r} in the vendor config: give a list of "
                         f"[{op.shape_form or 'n'}] lists of {len(op.shapes[0])} positive ints")
    return tuple(tuple(s) for s in raw)


def measure(case: BenchCase, dtype_name: str, provider_name: str, spec_tflops: float) -> None:
    op, dtype = OPS[case.name], TORCH_DTYPES[dtype_name]
    try:
        device = open_torch_device(case.local_rank)
    except DeviceError as exc:
        raise BenchError(str(exc)) from exc
    if not device.supports_dtype(dtype):
        raise Unsupported(f"{dtype_name} on {device.name()}: the device layer reports it "
                          "unsupported")
    loop = Loop(case.setting("warmup", 3), case.setting("iters", 20),
                case.setting("min_time_s", 0.2, float))
    with provider(provider_name):
        prepared = [_prepare(case, op, s, dtype, device) for s in shapes(case, op)]
        case.ready({**device.describe(), "chip": case.chip, "provider": provider_name})
        with case.window(device.synchronize):
            rows = [_time(op, s, inputs, device, loop) for s, inputs, _ in prepared]
    checks = [c for _, _, c in prepared]
    _finish(case, op, dtype_name, provider_name, spec_tflops, rows, checks, loop, device)


def _prepare(case: BenchCase, op: Op, shape: Shape, dtype: torch.dtype, device: TorchDevice
             ) -> tuple[Shape, tuple, dict]:
    g = torch.Generator().manual_seed(zlib.crc32(f"{op.name}{shape}".encode()))
    try:
        inputs = op.make(shape, dtype, device.device, g)
        out = op.call(*inputs)
        device.synchronize()
    except (RuntimeError, NotImplementedError) as exc:
        if is_out_of_memory(exc):
            raise BenchError(f"{op.name}: shape {list(shape)} does not fit in device memory "
                             f"({exc}): use smaller shapes in the vendor config") from exc
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise Unsupported(f"{op.name} in {dtype} on {device.name()}: {first}") from exc
    return shape, inputs, {"shape": list(shape), **compare(op, inputs, out, dtype)}


def _time(op: Op, shape: Shape, inputs: tuple, device: TorchDevice, loop: Loop) -> dict:
    call = lambda: op.call(*inputs)  # noqa: E731
    warm(call, device.synchronize, loop)
    timed = run_each(call, device.synchronize, loop)
    latency = latency_ms(timed.per_iter_s)
    out = call()
    moved = sum(t.numel() * t.element_size() for t in (*inputs, out) if torch.is_tensor(t))
    seconds = latency["p50"] / 1000
    row: dict[str, Any] = {"shape": list(shape), "latency_ms": latency, "bytes": moved,
                           "calls": timed.iterations, "seconds": timed.seconds,
                           "gbs": moved / seconds / 1e9}
    if op.flops is not None:
        row["flops"] = op.flops(shape)
        row["tflops"] = row["flops"] / seconds / 1e12
    return row


def _finish(case: BenchCase, op: Op, dtype_name: str, provider_name: str, spec_tflops: float,
            rows: list[dict], checks: list[dict], loop: Loop, device: TorchDevice) -> None:
    last = rows[-1]
    window = case.window_s or sum(r["seconds"] for r in rows)
    if op.flops is not None:
        value, unit = last["tflops"], "TFLOP/s"
        work = sum(r["flops"] * r["calls"] for r in rows)
        peak: Any = Peak(spec_tflops * 1e12, "FLOP/s", "the case key") if spec_tflops > 0 else \
            "the case key gives no spec peak (op:dtype:TFLOPS:provider:chip)"
        shared = share(value * 1e12, peak)
        common = common_finished(value, unit, work, "FLOP", window, dtype_name.lower(), 1.0,
                                 device.max_memory_allocated())
    else:
        value, unit = last["gbs"], "GB/s"
        work = sum(r["bytes"] * r["calls"] for r in rows)
        shared = share(value * 1e9, memory_bandwidth_peak(case.vendor, case.chip))
        common = common_finished(value, unit, work, "bytes", window, dtype_name.lower(), 0.0,
                                 device.max_memory_allocated())
    passed = all(c["passed"] for c in checks)
    case.finish({
        "operator": op.name, "provider": provider_name, **common, "converged": passed,
        "correctness": {"passed": passed, "reference": "same call on float64 copies on the CPU",
                        "shapes": checks},
        "latency_ms": last["latency_ms"], "shapes": rows,
        "method": {"what": f"{op.name} in {dtype_name} via {provider_name}; value at the "
                           f"largest shape from its median latency", "shape_form": op.shape_form,
                   **loop.describe(), "timing": "each call timed alone, device synchronized "
                                                "before and after"},
        **shared,
    })
    if not passed:
        bad = [c for c in checks if not c["passed"]]
        raise WrongResult(f"{op.name} {dtype_name} via {provider_name}: wrong result at shape "
                          f"{bad[0]['shape']} (max abs error {bad[0].get('max_abs_err')}, "
                          f"tolerance rtol={bad[0].get('rtol')} atol={bad[0].get('atol')} x "
                          f"{bad[0].get('scale')})")
