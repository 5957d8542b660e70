"""The one sampling loop: every source, one drift-free schedule, one JSONL file per kind.

Tick k is due at ``start + k * interval`` on the monotonic clock, so time spent
sampling never accumulates as drift; a tick that is already past when the previous
one finishes is skipped (counted in the end marker, and seen as a gap by the
summary) rather than sampled late. A source that raises gets a rate-limited error
line; the loop goes on. SIGTERM/SIGINT, ``Stopper.stop()`` or the duration end it,
and every source's file gets an ``end`` line.
"""

from __future__ import annotations

import contextlib
import math
import os
import select
import signal
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, TextIO

from chipperf_runtime.monitors.records import SourceLog
from chipperf_runtime.monitors.source import SamplerUnavailable, Source


class Stopper:
    """A stop request that wakes the loop at once; safe to call from a signal handler."""

    def __init__(self) -> None:
        self.reason: str | None = None
        self._read_fd, self._write_fd = os.pipe()
        os.set_blocking(self._write_fd, False)

    def stop(self, reason: str = "stopped") -> None:
        if self.reason is None:
            self.reason = reason
        with contextlib.suppress(OSError):
            os.write(self._write_fd, b"x")

    def wait(self, timeout_s: float) -> bool:
        """Sleep up to ``timeout_s``; True as soon as a stop was asked for."""
        if self.reason is None and timeout_s > 0:
            select.select([self._read_fd], [], [], timeout_s)
        return self.reason is not None

    def close(self) -> None:
        for fd in (self._read_fd, self._write_fd):
            with contextlib.suppress(OSError):
                os.close(fd)


class Ticker:
    """Drift-free schedule: tick k is due at ``start + k * interval``."""

    def __init__(self, interval_s: float, start: float):
        self.interval_s = interval_s
        self.start = start
        self.tick = 0
        self.skipped = 0

    def next_due(self, now: float) -> float:
        """Advance to the first tick after the current one that is not yet past."""
        wanted = self.tick + 1
        reachable = math.floor((now - self.start) / self.interval_s) + 1
        if reachable > wanted:
            self.skipped += reachable - wanted
            wanted = reachable
        self.tick = wanted
        return self.start + wanted * self.interval_s


@dataclass
class Running:
    source: Source
    log: SourceLog


def start_sources(sources: Sequence[Source], logs: dict[str, SourceLog],
                  interval_s: float) -> tuple[list[Running], dict[str, Any]]:
    """Set every source up; write its info or its one unavailable line.

    Returns the running sources and, per source name, its info dict or
    ``{"unavailable": reason}``.
    """
    running, facts = [], {}
    for source in sources:
        log = logs[source.name]
        try:
            info = source.setup()
        except SamplerUnavailable as e:
            log.unavailable(str(e))
            facts[source.name] = {"unavailable": str(e)}
            continue
        except Exception as e:  # noqa: BLE001 - one broken source must not stop the others
            reason = f"setup failed: {type(e).__name__}: {e}"
            log.unavailable(reason)
            facts[source.name] = {"unavailable": reason}
            continue
        log.info(info, interval_s)
        facts[source.name] = info
        running.append(Running(source, log))
    return running, facts


def sample_all(running: Sequence[Running]) -> None:
    for item in running:
        try:
            values = item.source.sample()
        except Exception as e:  # noqa: BLE001 - recorded as an error line; the loop goes on
            item.log.error(f"{type(e).__name__}: {e}")
            continue
        if values is not None:
            item.log.sample(values)


def run_loop(running: Sequence[Running], logs: dict[str, SourceLog], interval_s: float,
             duration_s: float | None, stopper: Stopper,
             clock: Callable[[], float] = time.monotonic) -> str:
    """Sample on schedule until stopped or the duration ends; returns why it ended."""
    start = clock()
    end = start + duration_s if duration_s is not None else math.inf
    ticker = Ticker(interval_s, start)
    streams = {id(log.stream): log.stream for log in logs.values()}.values()
    while stopper.reason is None and clock() < end:
        sample_all(running)
        for stream in streams:
            stream.flush()
        due = min(ticker.next_due(clock()), end)
        if stopper.wait(due - clock()):
            break
    reason = stopper.reason or "duration"
    return f"{reason}; {ticker.skipped} tick(s) skipped" if ticker.skipped else reason


def finish(running: Sequence[Running], logs: dict[str, SourceLog], reason: str) -> None:
    """Close every source and write the end marker to every source's file."""
    for item in running:
        try:
            item.source.close()
        except Exception as e:  # noqa: BLE001 - still write the end marker
            item.log.error(f"close failed: {type(e).__name__}: {e}")
    for log in logs.values():
        log.end(reason)


@contextlib.contextmanager
def open_logs(out_dir: Path, sources: Sequence[Source]) -> Iterator[dict[str, SourceLog]]:
    """One appending stream per file (sources may share one), one SourceLog per source."""
    with contextlib.ExitStack() as stack:
        streams: dict[str, TextIO] = {}
        for source in sources:
            if source.file not in streams:
                streams[source.file] = stack.enter_context(
                    open(out_dir / source.file, "a", encoding="utf-8"))
        yield {s.name: SourceLog(streams[s.file], s.name) for s in sources}


@contextlib.contextmanager
def stop_on_signals(stopper: Stopper) -> Iterator[None]:
    """SIGTERM/SIGINT ask the loop to stop (only possible from the main thread)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    wanted = (signal.SIGTERM, signal.SIGINT)
    previous = {s: signal.getsignal(s) for s in wanted}

    def handler(signum: int, _frame: object) -> None:
        stopper.stop(f"signal {signal.Signals(signum).name}")

    for s in wanted:
        signal.signal(s, handler)
    try:
        yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
