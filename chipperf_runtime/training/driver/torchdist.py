"""PyTorch pieces the torch cases share: the rank's device (through ``chipperf_runtime.device``),
joining the process group and summing numbers over the ranks. Imports torch, so
``driver/__init__`` does not import it; torch cases do::

    from chipperf_runtime.training.driver.torchdist import all_reduce_sum, init_distributed
"""

from __future__ import annotations

import torch
import torch.distributed as tdist

from chipperf_runtime.device import DeviceError
from chipperf_runtime.device.torch import TorchDevice, open_torch_device
from chipperf_runtime.training.driver.dist import DistEnv, use_interface_towards_master
from chipperf_runtime.training.driver.errors import DeviceUnavailable


def init_distributed(dist: DistEnv) -> TorchDevice:
    """The rank's device as the vendor named it (made current); joins the process group on
    the device's backend (nccl, hccl, cncl, ... gloo on cpu) when there is more than one rank.

    Raises ``DeviceUnavailable`` when the vendor's device cannot be seen."""
    try:
        device = open_torch_device(dist.local_rank)
    except DeviceError as exc:
        raise DeviceUnavailable(str(exc)) from exc
    if dist.distributed:
        if device.backend == "gloo":
            use_interface_towards_master(dist)
        tdist.init_process_group(device.backend, rank=dist.rank, world_size=dist.world_size)
    return device


def all_reduce_sum(values: list[float], device: torch.device) -> list[float]:
    """Element-wise sum over all ranks (the values themselves when not distributed)."""
    tensor = torch.tensor(values, dtype=torch.float64, device=device)
    if tdist.is_available() and tdist.is_initialized():
        tdist.all_reduce(tensor, op=tdist.ReduceOp.SUM)
    return tensor.tolist()
