"""The device and process group a spec runs on (chipperf_runtime.device.torch; never a named backend)."""

from __future__ import annotations

import os
import socket
from datetime import timedelta

import torch

from chipperf_runtime.bench.case import BenchCase, BenchError, is_out_of_memory
from chipperf_runtime.device import DeviceError
from chipperf_runtime.device.torch import TorchDevice, open_torch_device


def open_device(case: BenchCase) -> TorchDevice:
    try:
        return open_torch_device(case.local_rank)
    except DeviceError as exc:
        raise BenchError(str(exc)) from exc


def facts(case: BenchCase, device: TorchDevice) -> dict:
    return {**device.describe(), "chip": case.chip, "world_size": case.world_size,
            "threads": torch.get_num_threads()}


def init_group(case: BenchCase, device: TorchDevice) -> None:
    """The default process group on the device's backend (env:// from the launcher)."""
    import torch.distributed as dist

    if case.world_size < 2:
        raise BenchError(f"{case.name} needs at least 2 ranks (WORLD_SIZE={case.world_size}): "
                         "run it under a launcher with nproc x nnodes >= 2")
    if device.backend == "gloo" and "GLOO_SOCKET_IFNAME" not in os.environ:
        name = _interface_towards(os.environ.get("MASTER_ADDR", "127.0.0.1"))
        if name:
            os.environ["GLOO_SOCKET_IFNAME"] = name
    dist.init_process_group(device.backend, timeout=timedelta(minutes=10),
                            device_id=device.device if device.is_accelerator else None)


def _interface_towards(addr: str) -> str | None:
    """The interface whose address the kernel would use to reach ``addr`` (gloo binds to the
    hostname's address otherwise, which on some hosts is loopback or unreachable)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect((socket.gethostbyname(addr), 9))
            local = s.getsockname()[0]
    except OSError:
        return None
    import fcntl
    import struct

    for _, name in socket.if_nameindex():
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                packed = fcntl.ioctl(s.fileno(), 0x8915, struct.pack("256s", name[:15].encode()))
        except OSError:
            continue
        if socket.inet_ntoa(packed[20:24]) == local:
            return name
    return None


def host_memory_available() -> int | None:
    """Bytes the kernel says are available now (MemAvailable), None where unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        return None
    return None


def check_fits(case: BenchCase, device: TorchDevice, need: int, what: str) -> None:
    """A clear error, before allocating, when ``need`` bytes cannot fit; on an accelerator
    the allocation's own out-of-memory error is turned into the same message."""
    if device.is_accelerator:
        return
    available = host_memory_available()
    if available is not None and need > available * 0.8:
        raise BenchError(f"{case.name}: {what} needs {need / 2**30:.2f} GiB and the host has "
                         f"{available / 2**30:.2f} GiB available: lower the size in the vendor "
                         "config")


def allocate(case: BenchCase, need: int, what: str, make):  # noqa: ANN001, ANN201
    try:
        return make()
    except RuntimeError as exc:   # torch.OutOfMemoryError is one
        if not is_out_of_memory(exc):
            raise
        raise BenchError(f"{case.name}: {what} needs {need / 2**30:.2f} GiB and does not fit "
                         f"in device memory ({exc}): lower the size in the vendor config") from exc
