"""interconnect-*: host-to-device copy, point-to-point and all-reduce bandwidth.

Bandwidths follow nccl-tests (doc/PERFORMANCE.md there): for a message of S bytes taking
t seconds, algorithm bandwidth algbw = S / t; bus bandwidth busbw = algbw for send/recv
and algbw x 2(n-1)/n for an all-reduce over n ranks, so it compares with link speed
whatever the rank count. GB = 1e9 bytes. The reported value is busbw.

Ranks time each iteration window alike (barrier, sync, loop, sync); the window is the
slowest rank's (all-reduce MAX).
"""

from __future__ import annotations

import os
from collections.abc import Callable

import torch

from chipperf_runtime.base.device import allocate, check_fits, facts, init_group, open_device
from chipperf_runtime.bench.case import BenchCase, BenchError, Unsupported, common_finished
from chipperf_runtime.device.torch import TorchDevice
from chipperf_runtime.timing import Loop, run_window, warm


def _loop(case: BenchCase) -> Loop:
    return Loop(case.setting("warmup", 3), case.setting("iters", 20),
                case.setting("min_time_s", 1.0, float))


def _topology(case: BenchCase, inter: bool) -> None:
    nnodes = int(os.environ.get("NNODES", "1"))
    if inter and nnodes < 2:
        raise BenchError(f"{case.name} measures between servers and runs on {nnodes} node: "
                         "list at least 2 hosts in HOSTS")
    if not inter and nnodes != 1:
        raise BenchError(f"{case.name} measures inside one server and runs on {nnodes} nodes")


def _finish(case: BenchCase, device: TorchDevice, size: int, seconds: float, iterations: int,
            bus_factor: float, what: str, loop: Loop) -> None:
    algbw = size * iterations / seconds / 1e9
    busbw = algbw * bus_factor
    case.finish({
        "spec": case.name,
        **common_finished(busbw, "GB/s", size * iterations * bus_factor, "bytes", seconds,
                          "fp32", 0.0, device.max_memory_allocated()),
        "converged": True, "algbw_gbs": algbw, "busbw_gbs": busbw,
        "method": {"what": what, "bytes": size, "ranks": case.world_size,
                   "bus_factor": bus_factor, **loop.describe(), "iterations": iterations,
                   "timing": "slowest rank's wall clock over the loop, synchronized at both ends"},
        "spec_peak": None, "share_of_peak": None,
        "share_reason": "chip spec sheets in chipperf_runtime/vendors carry no interconnect bandwidth",
    })


def host_to_device(case: BenchCase) -> None:
    device = open_device(case)
    if not device.is_accelerator:
        raise Unsupported(f"{case.name} on {device.device}: the cpu device is the host itself; "
                          "there is no host-to-device link to measure")
    size, loop = case.setting("bytes", 1 << 28), _loop(case)
    host = torch.ones(size // 4, dtype=torch.float32, pin_memory=device.pin_memory)
    dev = allocate(case, size, f"a {size >> 20} MiB buffer",
                   lambda: torch.empty(size // 4, dtype=torch.float32, device=device.device))
    copy = lambda: dev.copy_(host, non_blocking=True)  # noqa: E731
    warm(copy, device.synchronize, loop)
    case.ready(facts(case, device))
    with case.window(device.synchronize):
        timed = run_window(copy, device.synchronize, loop)
    _finish(case, device, size, timed.seconds, timed.iterations, 1.0,
            "pinned host buffer -> device buffer copy (busbw = algbw)", loop)


def _slowest(seconds: float, device: TorchDevice) -> float:
    import torch.distributed as dist

    t = torch.tensor([seconds], dtype=torch.float64, device=device.device)
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return float(t.item())


def _p2p(case: BenchCase, inter: bool) -> None:
    import torch.distributed as dist

    _topology(case, inter)
    device = open_device(case)
    init_group(case, device)
    nproc = int(os.environ.get("NPROC_PER_NODE", "1"))
    peer = nproc if inter else 1            # rank 0 sends to the first rank of node 1, or rank 1
    size, loop = case.setting("bytes", 1 << 26), _loop(case)
    check_fits(case, device, size, f"a {size >> 20} MiB message")
    buf = allocate(case, size, f"a {size >> 20} MiB message",
                   lambda: torch.ones(size // 4, dtype=torch.float32, device=device.device))
    step: Callable[[], object]
    if case.rank == 0:
        step = lambda: dist.send(buf, peer)  # noqa: E731
    elif case.rank == peer:
        step = lambda: dist.recv(buf, 0)  # noqa: E731
    else:
        step = lambda: None  # noqa: E731
    _timed(case, device, step, loop, size, 1.0,
           f"rank 0 sends one message to rank {peer} per iteration (send/recv; busbw = algbw)")
    dist.destroy_process_group()


def _timed(case: BenchCase, device: TorchDevice, step, loop: Loop, size: int,  # noqa: ANN001
           bus_factor: float, what: str) -> None:
    import torch.distributed as dist

    fixed = Loop(loop.warmup, loop.iters, 0.0)   # every rank runs the same number of steps
    warm(step, device.synchronize, fixed)
    dist.barrier()
    case.ready(facts(case, device))
    with case.window(device.synchronize):
        timed = run_window(step, device.synchronize, fixed)
        seconds = _slowest(timed.seconds, device)
    _finish(case, device, size, seconds, timed.iterations, bus_factor, what, fixed)


def _allreduce(case: BenchCase, inter: bool) -> None:
    import torch.distributed as dist

    _topology(case, inter)
    device = open_device(case)
    init_group(case, device)
    size, loop = case.setting("bytes", 1 << 26), _loop(case)
    check_fits(case, device, size, f"a {size >> 20} MiB buffer")
    buf = allocate(case, size, f"a {size >> 20} MiB buffer",
                   lambda: torch.ones(size // 4, dtype=torch.float32, device=device.device))
    n = case.world_size
    _timed(case, device, lambda: dist.all_reduce(buf), loop, size, 2 * (n - 1) / n,
           f"all_reduce(sum) of one fp32 buffer over {n} ranks (busbw = algbw x 2(n-1)/n)")
    dist.destroy_process_group()


def p2p_intraserver(case: BenchCase) -> None:
    _p2p(case, inter=False)


def p2p_interserver(case: BenchCase) -> None:
    _p2p(case, inter=True)


def allreduce_intraserver(case: BenchCase) -> None:
    _allreduce(case, inter=False)


def allreduce_interserver(case: BenchCase) -> None:
    _allreduce(case, inter=True)
