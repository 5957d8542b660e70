"""main_memory-bandwidth and main_memory-capacity.

Bandwidth: a whole-buffer copy of ``bytes`` on the device (``dst.copy_(src)`` on an
accelerator, memcpy on the host CPU: ``copier``); each copy reads and writes the buffer, so
it moves 2 x bytes (the convention of STREAM's copy and of the numpy reference in
selfbench/base_reference.py). GB = 1e9 bytes.

Capacity: on an accelerator, ``chunk_mib`` blocks are allocated until the device reports
out of memory, and the sum is the memory one process can hold. On the cpu device the
host's memory is what the kernel and the container's cgroup allow (allocating it to the
limit would swap or start the OOM killer on a shared host); the method says which.
"""

from __future__ import annotations

import os
from typing import Callable

import torch

from chipperf_runtime.base.bare import beside, timed
from chipperf_runtime.base.device import allocate, check_fits, facts, open_device
from chipperf_runtime.bench.case import BenchCase, common_finished, is_out_of_memory
from chipperf_runtime.bench.peaks import memory_bandwidth_peak, memory_capacity_peak, share
from chipperf_runtime.device.torch import TorchDevice
from chipperf_runtime.timing import Loop, run_window, warm


def bandwidth(case: BenchCase) -> None:
    device = open_device(case)
    size = case.setting("bytes", 1 << 30)
    loop = Loop(case.setting("warmup", 3), case.setting("iters", 10),
                case.setting("min_time_s", 1.0, float))
    check_fits(case, device, 2 * size, f"two {size / 2**20:.0f} MiB buffers")
    src, dst = allocate(case, 2 * size, f"two {size / 2**20:.0f} MiB buffers", lambda: (
        torch.ones(size // 4, dtype=torch.float32, device=device.device),
        torch.empty(size // 4, dtype=torch.float32, device=device.device)))
    copy, what = copier(device, dst, src)
    warm(copy, device.synchronize, loop)
    case.ready(facts(case, device))
    with case.window(device.synchronize):
        timed = run_window(copy, device.synchronize, loop)
    moved = 2.0 * src.numel() * 4 * timed.iterations
    gbs = moved / timed.seconds / 1e9
    copied, memory = bool(torch.equal(dst[:1024], src[:1024])), device.max_memory_allocated()
    nbytes = src.numel() * 4
    del src, dst, copy                            # the reference allocates its own buffers
    bare = beside(case, lambda s: bare_copy(device, nbytes, s))
    case.finish({
        "spec": case.name, "world_size": 1, "ranks_measuring": case.world_size,
        **common_finished(gbs, "GB/s", moved, "bytes", timed.seconds, "fp32", 0.0, memory),
        "converged": copied,
        "method": {"what": f"{what}, 2 x bytes moved per copy (read + write), GB = 1e9 bytes",
                   "bytes": nbytes,
                   **loop.describe(), "iterations": timed.iterations,
                   "timing": "wall clock over the whole loop, device synchronized at both ends"},
        **share(gbs * 1e9, memory_bandwidth_peak(case.vendor, case.chip)), **bare,
    })


def copier(device, dst: torch.Tensor, src: torch.Tensor) -> tuple[Callable[[], object], str]:  # noqa: ANN001
    """The device's own fastest whole-buffer copy: the runtime's device-to-device copy behind
    ``Tensor.copy_`` on an accelerator; on the host CPU the C library's memcpy (through numpy's
    ``copyto`` on the tensors' memory), which ``Tensor.copy_``'s element loop does not reach
    (STREAM-style tools time memcpy too)."""
    if device.is_accelerator:
        return (lambda: dst.copy_(src)), "dst.copy_(src) on the device"
    import numpy as np

    a, b = src.numpy(), dst.numpy()
    return (lambda: np.copyto(b, a)), "memcpy of the host buffer (numpy.copyto on the tensors)"


def capacity(case: BenchCase) -> None:
    device = open_device(case)
    case.ready(facts(case, device))
    with case.window(device.synchronize):
        if device.is_accelerator:
            held, method = _fill(device, case.setting("chunk_mib", 256))
        else:
            held, method = _host_limit()
    seconds = case.window_s or 0.0
    gib = held / 2**30
    case.finish({
        "spec": case.name, "world_size": 1, "ranks_measuring": case.world_size,
        **common_finished(gib, "GiB", held, "bytes", seconds, "bytes", 0.0,
                          device.max_memory_allocated()),
        "converged": held > 0, "method": method,
        **share(float(held), memory_capacity_peak(case.vendor, case.chip)),
    })


def _fill(device, chunk_mib: int) -> tuple[int, dict]:  # noqa: ANN001
    blocks, chunk = [], chunk_mib << 20
    while chunk >= 1 << 20:
        try:
            blocks.append(torch.empty(chunk, dtype=torch.uint8, device=device.device))
        except RuntimeError as exc:   # torch.OutOfMemoryError, or a plug-in's own
            if not is_out_of_memory(exc):
                raise
            chunk //= 2
    held = sum(b.numel() for b in blocks)
    del blocks
    return held, {"what": "allocate blocks until out of memory, halving the block size down "
                          "to 1 MiB; the sum held", "first_block_mib": chunk_mib}


def _host_limit() -> tuple[int, dict]:
    physical = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    limit = _cgroup_limit()
    held = min(physical, limit) if limit else physical
    return held, {"what": "host memory a process may hold: physical pages (sysconf) and the "
                          "cgroup memory limit, whichever is lower; not allocated to the limit "
                          "(that would swap or start the OOM killer)",
                  "physical_bytes": physical, "cgroup_limit_bytes": limit}


def _cgroup_limit() -> int | None:
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            with open(path, encoding="ascii") as f:
                text = f.read().strip()
        except OSError:
            continue
        if text.isdigit() and int(text) < 1 << 60:
            return int(text)
    return None


def bare_copy(device: TorchDevice, nbytes: int, seconds: float) -> dict:
    """The device's whole-buffer copy of ``nbytes`` in base/'s loop, no case around it."""
    src = torch.ones(nbytes // 4, dtype=torch.float32, device=device.device)
    dst = torch.empty_like(src)
    fn, what = copier(device, dst, src)
    run = timed(fn, device, seconds)
    return {"value": 2.0 * src.numel() * 4 * run.iterations / run.seconds / 1e9, "unit": "GB/s",
            "method": f"{what}, {nbytes} bytes, bare loop", "iterations": run.iterations,
            "seconds": run.seconds}
