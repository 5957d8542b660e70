"""What the batch cases measure besides the scenarios: accuracy vs the reference, forward
FLOPs, peak memory, and the helpers the scenarios share (inputs to the device, post-processing).
The scenarios themselves (offline, single stream, server) are MLPerf LoadGen's:
``inference/scenarios.py``, where every timed engine call is ``timing.timed_call`` (a device
synchronisation before and after it).
"""

from __future__ import annotations

import resource
import sys
from dataclasses import dataclass
from typing import Callable, Sequence

import torch
from torch import nn

from chipperf_runtime.device.torch import TorchDevice
from chipperf_runtime.inference.case import Batch, Dataset, equal, top1
from chipperf_runtime.inference.engines.base import Runner
from chipperf_runtime.inference.stats import Deviation

Scorer = Callable[[torch.Tensor, torch.Tensor], "tuple[torch.Tensor, torch.Tensor]"]
Decide = Callable[[torch.Tensor], torch.Tensor]
Agree = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]


def to_device(tensors: Sequence[torch.Tensor], device: TorchDevice) -> tuple[torch.Tensor, ...]:
    return tuple(t.to(device.device, non_blocking=False) for t in tensors)


def postprocess(output: torch.Tensor, decide: Decide = top1) -> torch.Tensor:
    """Host-side result of a query: the case's decisions (top-1 class of every item or
    token by default), on the host."""
    return decide(output).cpu()


def latency_samples(data: Dataset, count: int, device: TorchDevice) -> list[tuple[torch.Tensor, ...]]:
    """``count`` pre-processed single-item queries, already on the device."""
    return [to_device(data.batch([i % len(data)]).inputs, device) for i in range(count)]


@dataclass(frozen=True)
class Accuracy:
    items: int
    scored: int                 # scored outputs (items, or masked tokens)
    correct: int                # engine decision (top-1) == label
    agree: int                  # engine decision == reference decision
    reference_correct: int      # reference decision == label
    distinct_reference: int     # distinct decisions of the reference
    deviation: Deviation


def accuracy(run: Runner, reference: Runner, data: Dataset, items: int, batch_size: int,
             scored: Scorer, device: TorchDevice, decide: Decide = top1,
             agree: Agree = equal) -> Accuracy:
    """Engine and fp32 reference on the same inputs, for the first ``items`` items."""
    dev, counts, distinct = Deviation(), [0, 0, 0, 0], set()
    for start in range(0, items, batch_size):
        real = min(batch_size, items - start)
        # Pad the last batch to batch_size (static shapes); padded rows are dropped.
        batch = data.batch([start + i if i < real else start for i in range(batch_size)])
        inputs = to_device(batch.inputs, device)
        out = run(*inputs)[:real].float()
        ref = reference(*inputs)[:real].float()
        dev = dev.add(*_deviation(out, ref))
        rows, labels = scored(out, batch.targets[:real].to(out.device))
        ref_rows, _ = scored(ref, batch.targets[:real].to(ref.device))
        top, ref_top = decide(rows), decide(ref_rows)
        counts[0] += labels.numel()
        for i, hits in enumerate((top == labels, agree(top, ref_top), ref_top == labels), start=1):
            counts[i] += int(hits.sum())
        distinct.update(torch.unique(ref_top).tolist())
    return Accuracy(items, counts[0], counts[1], counts[2], counts[3], len(distinct), dev)


def _deviation(out: torch.Tensor, ref: torch.Tensor) -> tuple[float, float, int, float, int]:
    finite = torch.isfinite(out)
    diff = (out - ref).abs()[finite]
    max_diff = float(diff.max()) if diff.numel() else 0.0
    return (max_diff, float(diff.sum()), out.numel(), float(ref.abs().max()),
            int((~finite).sum()))


def forward_flops(module: nn.Module, inputs: Sequence[torch.Tensor]) -> float:
    """FLOPs of one forward pass (2 per multiply-add of matmuls, convolutions, attention).

    Attention runs through PyTorch's math kernel while counting: the fused CPU kernel of
    ``scaled_dot_product_attention`` has no FLOP formula, so its matmuls would go uncounted
    (ViT-L/16: 119.3 instead of 123.1 GFLOPs)."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from torch.utils.flop_counter import FlopCounterMode

    with sdpa_kernel([SDPBackend.MATH]), FlopCounterMode(display=False) as counter, \
            torch.no_grad():
        module(*inputs)
    return float(counter.get_total_flops())


def peak_memory(device: TorchDevice, engine: str) -> tuple[int | None, str]:
    """(bytes, what was measured). On an accelerator only PyTorch's allocator can be read per
    process, so only the PyTorch engines have a figure there."""
    if device.is_accelerator:
        peak = device.max_memory_allocated()
        if engine in ("eager", "compile") and peak is not None:
            return peak, f"torch.{device.type}.max_memory_allocated"
        return None, (f"not measurable per process for engine {engine} on {device.type} "
                      "(allocates outside PyTorch's allocator)")
    scale = 1 if sys.platform == "darwin" else 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale, "process peak RSS (host)"


def first_batch(data: Dataset, size: int) -> Batch:
    return data.batch(range(min(size, len(data))))
