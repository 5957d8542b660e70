"""The timed windows of a training run.

    e2e            process start -> finish()
    train          train_start() -> train_end()
    no_eval        train minus the evaluation regions that fall inside it
    pure_compute   sum of the compute regions (forward, backward, optimizer step)

Every reading is ``chipperf_runtime.timing.now``: one monotonic clock, read after ``sync`` (the
device layer's ``synchronize``), so queued accelerator work is counted where it belongs.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Optional

from chipperf_runtime.timing import Clock, Sync, now, seconds_since_process_start
from chipperf_runtime.training.driver.errors import CaseError


@dataclass(frozen=True)
class WindowTimes:
    e2e_s: float
    train_s: float
    no_eval_s: float
    compute_s: float
    eval_s: float


class Windows:
    """Records the windows; ``times()`` turns them into ``WindowTimes``."""

    def __init__(self, clock: Clock = time.perf_counter, process_start: float | None = None,
                 sync: Optional[Sync] = None):
        self._clock = clock
        self.sync = sync
        now = clock()
        self.process_start = now - seconds_since_process_start() if process_start is None \
            else process_start
        self.train_started: float | None = None
        self.train_ended: float | None = None
        self.eval_in_train = 0.0
        self.compute = 0.0

    def fresh(self) -> Windows:
        """New train, evaluation and compute windows on the same clock, sync and process
        start (a further training stage of the same process)."""
        return Windows(self._clock, self.process_start, self.sync)

    def now(self) -> float:
        return now(self.sync, self._clock)

    def train_start(self) -> None:
        self.train_started = self.now()

    def train_end(self) -> None:
        if self.train_started is None:
            raise CaseError("train_end() before train_start()")
        self.train_ended = self.now()

    def train_elapsed(self) -> float | None:
        """Seconds since train_start() on the clock, without a device sync (progress only)."""
        if self.train_started is None:
            return None
        return (self.train_ended if self.train_ended is not None else self._clock()) \
            - self.train_started

    @property
    def in_train(self) -> bool:
        return self.train_started is not None and self.train_ended is None

    @contextmanager
    def evaluating(self) -> Iterator[None]:
        """An evaluation region; counted out of no_eval when it lies inside the train window."""
        start = self.now()
        try:
            yield
        finally:
            self.add_eval(self.now() - start)

    @contextmanager
    def computing(self) -> Iterator[None]:
        """A pure-compute region (forward + backward + optimizer step)."""
        start = self.now()
        try:
            yield
        finally:
            self.add_compute(self.now() - start)

    def add_eval(self, seconds: float) -> None:
        if self.in_train:
            self.eval_in_train += seconds

    def add_compute(self, seconds: float) -> None:
        self.compute += seconds

    def times(self, end: float | None = None) -> WindowTimes:
        if self.train_started is None or self.train_ended is None:
            raise CaseError("the train window is not closed: call train_start() and train_end()")
        end = self.now() if end is None else end
        train = self.train_ended - self.train_started
        return WindowTimes(e2e_s=end - self.process_start, train_s=train,
                           no_eval_s=train - self.eval_in_train, compute_s=self.compute,
                           eval_s=self.eval_in_train)
