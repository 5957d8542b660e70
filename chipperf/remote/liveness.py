"""Whether the hosts of a round still answer: a host cut off from the master (its link down,
its packets lost) sends no reset, so a wait on its engine would hang until the round's
deadline; a probe over SSH every few seconds tells within ``lost_after_s`` instead.

Each host gets a thread that runs ``true`` over its SSH connection, one probe at a time,
and notes when one last came back; ``silent()`` names the hosts that have not answered for
``lost_after_s`` seconds. A slow but answering host (a CPU-starved one) is not silent.
"""

from __future__ import annotations

import threading
import time
from typing import Sequence

from chipperf.errors import HostError
from chipperf.remote.host import Host

PROBE = ("true",)


def probe_interval(lost_after_s: float) -> float:
    """How often a host is probed: several times within ``lost_after_s``, at most every 10 s."""
    return max(0.5, min(10.0, lost_after_s / 6))


class Liveness:
    def __init__(self, hosts: Sequence[Host], lost_after_s: float):
        self.lost_after_s = lost_after_s
        self.interval_s = probe_interval(lost_after_s)
        now = time.monotonic()
        self._hosts = list(hosts)
        self._answered = {h.name: now for h in self._hosts}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._probe, args=(h,), daemon=True,
                                          name=f"liveness-{h.name}") for h in self._hosts]

    def __enter__(self) -> "Liveness":
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()   # a probe blocked on a silent host ends with its own timeout

    def silent_for(self, name: str) -> float:
        with self._lock:
            return time.monotonic() - self._answered[name]

    def silent(self) -> list[str]:
        """Hosts that have not answered a probe for ``lost_after_s`` seconds."""
        return [h.name for h in self._hosts if self.silent_for(h.name) > self.lost_after_s]

    def _probe(self, host: Host) -> None:
        while not self._stop.is_set():
            try:
                host.run(PROBE, timeout=self.lost_after_s)
            except HostError:   # no answer in time, or the connection is gone: not noted
                pass
            else:
                with self._lock:
                    self._answered[host.name] = time.monotonic()
            self._stop.wait(self.interval_s)


def silence_error(host: str, silent_s: float, interval_s: float) -> HostError:
    return HostError(host, f"no answer over SSH for {silent_s:.0f} s (probed every "
                           f"{interval_s:.3g} s): cut off from the master, or down",
                     "check the host's network link and that it is up; HOST_LOST_AFTER in the "
                     "cluster config sets how long a host may stay silent", unreachable=True)
