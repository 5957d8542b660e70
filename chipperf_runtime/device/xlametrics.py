"""torch_xla's numbers read as facts, pure (standard library only; device.xla reads them).

A counter named ``aten::<op>`` counts calls of an op that torch_xla did not lower to XLA: it
ran on the CPU in eager PyTorch, its tensors copied off the device and back. One is not a
computation: ``aten::_local_scalar_dense`` is ``tensor.item()``, the read of a device scalar
into Python (the logged loss, the evaluation's count), which every device does.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Optional

FALLBACK_PREFIX = "aten::"
# aten:: counters that are not a computation left out of XLA: reads of a device scalar
NOT_FALLBACKS = frozenset({"_local_scalar_dense"})


def release(version: str) -> str:
    """``major.minor`` of a version string (``2.9.0+cu128`` -> ``2.9``)."""
    match = re.match(r"(\d+)\.(\d+)", version)
    return f"{match[1]}.{match[2]}" if match else version


def version_mismatch(torch_version: str, torch_xla_version: Optional[str]) -> Optional[str]:
    """Why this torch_xla cannot run beside this torch, or None. torch_xla is built against
    one torch release and requires it exactly (torch_xla 2.9.0 requires torch 2.9.0)."""
    if torch_xla_version is None:
        return (f"torch_xla is not installed beside torch {torch_version} (each torch_xla "
                "release needs its own torch release exactly: a pytorch_xla_<version> image "
                "installs the pair)")
    if release(torch_version) != release(torch_xla_version):
        return (f"torch_xla {torch_xla_version} is built for torch {release(torch_xla_version)} "
                f"and this image has torch {torch_version}: install the matching pair "
                f"(torch=={release(torch_xla_version)}.* with torch_xla {torch_xla_version}, or "
                f"torch_xla=={release(torch_version)}.* with torch {torch_version})")
    return None


def fallback_ops(counters: Mapping[str, int]) -> dict[str, int]:
    """The ops that ran outside XLA, each with its call count, from torch_xla's counters."""
    ops = {}
    for name, count in sorted(counters.items()):
        op = name[len(FALLBACK_PREFIX):]
        if name.startswith(FALLBACK_PREFIX) and count and op not in NOT_FALLBACKS:
            ops[op] = int(count)
    return ops


def fallback_message(ops: Mapping[str, int], where: str) -> str:
    """The case's stop message for ops that fell back to the CPU."""
    listed = ", ".join(f"aten::{op} ({n} call{'s' if n != 1 else ''})" for op, n in ops.items())
    return (f"{len(ops)} op(s) ran outside XLA {where}, on the CPU in eager PyTorch "
            f"(torch_xla's metrics: {listed}); the step would not be one XLA program, so the "
            "case stops instead of measuring it: replace the op(s) in the model or the loop")


def metric_seconds(data: Optional[tuple[Any, ...]]) -> tuple[int, float]:
    """(count, total seconds) of a torch_xla metric's ``metric_data`` (count, total ns, samples)."""
    if not data:
        return 0, 0.0
    return int(data[0]), float(data[1]) / 1e9
