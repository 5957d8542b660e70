"""The step boundary of a PyTorch loop, and on an XLA device the proof that the step ran in XLA.

On torch_xla's device (``device.is_xla``) a loop's operations are traced, not run: each step ends
with ``mark_step`` (the graph is cut, compiled the first time its shape is seen, and launched),
and after it torch_xla's metrics are read (counters only: no device sync, no loss read). An op
that torch_xla could not lower ran on the CPU in eager PyTorch (an ``aten::<op>`` counter): the
case stops there with ``XlaFallback`` naming each such op and its calls, rather than measure a
step that is not one XLA program. Every other device: the boundary does nothing.

    boundary = step_boundary(device)        # Loop.boundary
    boundary("in training step 3")          # after the optimizer step
    driver.executed(xla=xla_record(device)) # what XLA compiled and ran, for FINISHED
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from chipperf_runtime.device.torch import TorchDevice
from chipperf_runtime.device.xla import XlaModule
from chipperf_runtime.device.xlametrics import fallback_message
from chipperf_runtime.training.driver.errors import CaseError

Boundary = Callable[[str], None]


class XlaFallback(CaseError):
    """Ops of the step ran outside XLA, on the CPU: str() names each and its call count."""


def no_boundary(where: str) -> None:
    """An eager device's step boundary: each op already ran when it was issued."""


def check_fallbacks(module: XlaModule, where: str) -> None:
    """``XlaFallback`` when torch_xla counted any op run outside XLA so far."""
    ops = module.fallback_ops()
    if ops:
        raise XlaFallback(fallback_message(ops, where))


def step_boundary(device: TorchDevice) -> Boundary:
    """What a loop calls where a step (or an evaluation batch) ends, ``where`` naming it."""
    module = device.module
    if not isinstance(module, XlaModule):
        return no_boundary

    def boundary(where: str) -> None:
        module.mark_step()
        check_fallbacks(module, where)
    return boundary


def xla_record(device: TorchDevice) -> Optional[dict[str, Any]]:
    """What XLA compiled and ran so far (``XlaModule.record``); None on an eager device."""
    module = device.module
    return module.record() if isinstance(module, XlaModule) else None
