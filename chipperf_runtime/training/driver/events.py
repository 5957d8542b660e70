"""The PerfLog helper a case calls: lifecycle events from rank 0, STEP_END every N steps; each
event also written as MLPerf's ``:::MLLOG`` lines (chipperf_runtime/mllog.py)."""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping
from typing import Any, TextIO

from chipperf_runtime.mllog import MLLogMapper, MLLogWriter
from chipperf_runtime.perflog import PerfLogger

# Frames of these modules are the driver's own: an MLPerf line names the case's caller.
DRIVER_MODULES = ("chipperf_runtime.training.driver", "contextlib")


class CaseLog:
    """Emits PerfLog events from rank 0 only (``all_ranks=True``: from every rank, each
    tagged with its rank in the metadata)."""

    def __init__(self, rank: int, all_ranks: bool = False, step_every: int = 10,
                 stream: TextIO | None = None):
        self.rank = rank
        self.all_ranks = all_ranks
        self.step_every = max(1, int(step_every))
        self._logger = PerfLogger(rank=rank, stream=stream, skip_modules=("driver",))
        self._mllog = MLLogMapper(MLLogWriter(stream))

    @property
    def active(self) -> bool:
        return self.all_ranks or self.rank == 0

    def emit(self, name: str, value: Mapping[str, Any] | None = None) -> dict | None:
        if not self.active:
            return None
        record = self._logger.event(name, value)
        self._mllog.on_event(record, _case_caller())
        return record

    def step_end(self, step: int, value: Mapping[str, Any]) -> dict | None:
        """STEP_END for every ``step_every``-th step (steps counted from 1)."""
        if step % self.step_every:
            return None
        return self.emit("STEP_END", {"step": step, **value})

    def eval_window(self, start: bool) -> None:
        """MLPerf's eval_start (``start``) or eval_stop: the evaluation window has no PerfLog
        event of its own."""
        if self.active:
            self._mllog.eval_window(start, int(time.time() * 1000), _case_caller())


def _case_caller() -> dict[str, Any]:
    frame = sys._getframe(1)
    while frame.f_back is not None and \
            frame.f_globals.get("__name__", "").startswith(DRIVER_MODULES):
        frame = frame.f_back
    return {"file": frame.f_code.co_filename, "lineno": frame.f_lineno}
