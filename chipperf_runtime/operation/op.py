"""What an operator is (``Op``) and the random input every operator draws from (``_t``);
table.py and flagperf_ops.py list the operators."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import torch

Shape = tuple[int, ...]
Inputs = tuple[Any, ...]
FLOATS = ("FP64", "FP32", "FP16", "BF16")
ROWS = ((256, 1024), (1024, 4096))            # the shape sets most operators share
FLAT = ((1 << 16,), (1 << 20,))


@dataclass(frozen=True)
class Op:
    name: str
    shapes: tuple[Shape, ...]                    # default shape set (the vendor config may replace it)
    make: Callable[[Shape, torch.dtype, torch.device, torch.Generator], Inputs]
    call: Callable[..., Any]
    flops: Callable[[Shape], float] | None = None   # None: memory-bound, rated in GB/s
    exact: bool = False                          # values are copies of inputs: compared exactly
    shape_form: str = ""                         # what the numbers of a shape mean
    # compare these instead of the output (argmax: the values its indices pick, as ties
    # may pick another index of the same value): (float64 inputs, output) -> tensor
    compared: Callable[[Inputs, Any], Any] | None = None
    dtypes: tuple[str, ...] = FLOATS             # the case key dtypes it takes


def _t(shape: Sequence[int], dtype: torch.dtype, device: torch.device, g: torch.Generator,
       low: float = -1.0, high: float = 1.0) -> torch.Tensor:
    x = torch.rand(*shape, generator=g, dtype=torch.float64) * (high - low) + low
    return x.to(device=device, dtype=dtype)
