"""The end every textlm-loop case shares: train until the goal or the run's length, then
FINISHED with the work of every rank summed (``textlm.loop.run``, ``Driver.finish``)."""

from __future__ import annotations

from typing import Any, Mapping

from chipperf_runtime.device.torch import TorchDevice
from chipperf_runtime.training.driver import Driver
from chipperf_runtime.training.driver.torchdist import all_reduce_sum
from chipperf_runtime.training.textlm.loop import Goal, Schedule, Trainer, run


def run_and_finish(driver: Driver, loop: Trainer, device: TorchDevice, goal: Goal,
                   work_unit: str, flops_per_unit: float, **finished: Any) -> None:
    """``loop`` until ``goal`` or ``max_steps`` (evaluating every ``eval_every_steps``), then
    FINISHED: every rank's ``work_unit``s summed, the metric, ``flops_per_unit``, the dtype,
    the peak memory and ``finished``'s extra keys."""
    driver.emit_finished(run_and_measure(driver, loop, device, goal, work_unit, flops_per_unit,
                                         driver.config, **finished))


def run_and_measure(driver: Driver, loop: Trainer, device: TorchDevice, goal: Goal,
                    work_unit: str, flops_per_unit: float, cfg: Mapping[str, Any],
                    **finished: Any) -> dict[str, Any]:
    """``run_and_finish``'s training and FINISHED value, not emitted: ``cfg`` gives the
    stage's ``max_steps``, ``eval_every_steps``, ``global_batch_size`` and ``dtype`` (a case
    training stages one after the other passes each stage's)."""
    progress = run(driver, loop, Schedule(goal, cfg["max_steps"], cfg["eval_every_steps"],
                                          work_unit, cfg["global_batch_size"]))
    work_done = int(all_reduce_sum([float(progress.work)], device.device)[0])
    return driver.finished_value(work_done=work_done, work_unit=work_unit,
                                 metric=goal.metric(progress.value),
                                 flops_per_unit=flops_per_unit, dtype=cfg["dtype"],
                                 peak_memory_bytes=device.max_memory_allocated(), **finished)
