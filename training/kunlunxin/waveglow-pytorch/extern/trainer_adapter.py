"""Kunlunxin's WaveGlow adaptation through chipperf's adapter hooks
(chipperf_runtime/training/driver/adapter.py).

What FlagPerf's kunlunxin WaveGlow adapter does (FlagOpen/FlagPerf@1b5a0303
training/kunlunxin/Waveglow-pytorch/extern/trainer_adapter.py): one function,
``create_grad_scaler``, making no grad scaler. Here the same hook for the loss loop (whose
own is none too: its dtypes are fp32 and bf16), so a run records that the vendor's choice was
the one made.
"""

from __future__ import annotations

from typing import Any

HOOKS = ["create_grad_scaler"]
NOT_CARRIED: dict[str, str] = {}


def create_grad_scaler(config: Any) -> None:
    """No grad scaler (FlagPerf's)."""
    return None
