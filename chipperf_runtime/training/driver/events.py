"""The PerfLog helper a case calls: lifecycle events from rank 0, STEP_END every N steps."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TextIO

from chipperf_runtime.perflog import PerfLogger


class CaseLog:
    """Emits PerfLog events from rank 0 only (``all_ranks=True``: from every rank, each
    tagged with its rank in the metadata)."""

    def __init__(self, rank: int, all_ranks: bool = False, step_every: int = 10,
                 stream: TextIO | None = None):
        self.rank = rank
        self.all_ranks = all_ranks
        self.step_every = max(1, int(step_every))
        self._logger = PerfLogger(rank=rank, stream=stream, skip_modules=("driver",))

    @property
    def active(self) -> bool:
        return self.all_ranks or self.rank == 0

    def emit(self, name: str, value: Mapping[str, Any] | None = None) -> dict | None:
        if not self.active:
            return None
        return self._logger.event(name, value)

    def step_end(self, step: int, value: Mapping[str, Any]) -> dict | None:
        """STEP_END for every ``step_every``-th step (steps counted from 1)."""
        if step % self.step_every:
            return None
        return self.emit("STEP_END", {"step": step, **value})
