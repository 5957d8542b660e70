"""A base/ figure's reference: the same operation in base/'s own loop with no case around it,
timed right after the case's window (``beside``), so that a harness figure far from it points
at the harness, not the chip. The operations themselves are gemm.bare_gemm and
memory.bare_copy; ``python3 -m chipperf_runtime.base.reference`` runs one alone."""

from __future__ import annotations

from collections.abc import Callable

from chipperf_runtime.bench.case import BenchCase
from chipperf_runtime.device.torch import TorchDevice
from chipperf_runtime.timing import Loop, Timed, run_window, warm


def timed(fn: Callable[[], object], device: TorchDevice, seconds: float) -> Timed:
    """base/'s own loop (one warm-up call, batches of 4 until ``seconds``), without the case."""
    loop = Loop(warmup=1, iters=4, min_time_s=seconds)
    warm(fn, device.synchronize, loop)
    return run_window(fn, device.synchronize, loop)


def beside(case: BenchCase, measure: Callable[[float], dict], key: str = "reference",
           what: str = "the bare torch loop") -> dict:
    """FINISHED's ``<key>`` of a base/ case: ``measure(seconds)`` run right after the
    case's own window, on every rank as the window was, for the vendor config's
    ``reference_s`` (default 1 s; 0 leaves it out); or ``<key>_reason`` saying why none."""
    seconds = case.setting("reference_s", 1.0, float)
    if seconds <= 0:
        return {f"{key}_reason": f"reference_s is 0 in the vendor config: {what} was not timed"}
    try:
        return {key: measure(seconds)}
    except (RuntimeError, TypeError) as exc:   # the bare op failing is a fact, not a crash
        return {f"{key}_reason": f"{what} failed: {exc}"}
