"""PyTorch pieces the torch cases share: joining the process group and summing numbers over
the ranks. Imports torch, so ``driver/__init__`` does not import it; torch cases do::

    from driver.torchdist import all_reduce_sum, init_distributed
"""

from __future__ import annotations

import torch
import torch.distributed as tdist

from driver.dist import DistEnv, use_interface_towards_master


def init_distributed(dist: DistEnv) -> torch.device:
    """The rank's device; joins the process group (nccl on CUDA, gloo otherwise)."""
    cuda = torch.cuda.is_available()
    device = torch.device("cuda", dist.local_rank) if cuda else torch.device("cpu")
    if cuda:
        torch.cuda.set_device(device)
    if dist.distributed:
        if not cuda:
            use_interface_towards_master(dist)
        tdist.init_process_group("nccl" if cuda else "gloo", rank=dist.rank,
                                 world_size=dist.world_size)
    return device


def all_reduce_sum(values: list[float], device: torch.device) -> list[float]:
    """Element-wise sum over all ranks (the values themselves when not distributed)."""
    tensor = torch.tensor(values, dtype=torch.float64, device=device)
    if tdist.is_available() and tdist.is_initialized():
        tdist.all_reduce(tensor, op=tdist.ReduceOp.SUM)
    return tensor.tolist()
