"""The run's hold on its hosts, watched while it goes: an executor's allocation (a Slurm job)
may end under the run (time limit, node failure, preemption, someone's scancel). Asked before
each round and every WATCH_EVERY_S during one; once it says the hosts are no longer held, the
round stops at once and no further round starts (chipperf.run.roundwait, case)."""

from __future__ import annotations

import logging
import time
from typing import Callable, Optional

from chipperf.errors import ChipperfError

log = logging.getLogger("chipperf")
WATCH_EVERY_S = 2.0   # squeue on the master at most this often during a round (a local RPC)


class HoldLost(ChipperfError):
    """The executor no longer holds the run's hosts: nothing more may start on them."""


class HoldWatch:
    """``lost``: why the hosts are no longer held ('' while they are); ``None``: the hosts
    are the run's own (HOSTS listed), nothing to watch."""

    def __init__(self, lost: Optional[Callable[[], str]] = None,
                 every_s: float = WATCH_EVERY_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._lost, self.every_s, self._clock = lost, every_s, clock
        self._next = 0.0
        self.reason = ""

    @property
    def active(self) -> bool:
        return self._lost is not None

    def due_in(self) -> float:
        """Seconds until the next check during a round (a long time when nothing is watched)."""
        return max(0.0, self._next - self._clock()) if self.active else 3600.0

    def check(self, now: bool = False) -> str:
        """Why the hosts are lost ('' while held): asked when due (or ``now``), kept once said."""
        if self.reason or self._lost is None or (not now and self._clock() < self._next):
            return self.reason
        self._next = self._clock() + self.every_s
        self.reason = self._lost()
        if self.reason:
            log.error("%s: stopping the run", self.reason)
        return self.reason

    def stop_if_lost(self, where: str) -> None:
        """HoldLost naming ``where`` once the hosts are no longer held; a loss already seen
        is asked again (a job seen ending mid-round has its end state by now)."""
        if self.reason and self._lost is not None:
            self.reason = self._lost() or self.reason
        elif not self.check(now=True):
            return
        raise HoldLost(f"{where}: {self.reason}")
