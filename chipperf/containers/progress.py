"""Progress lines for the long image steps: a debootstrap, a build's RUN steps, an image load.

Each step logs when it starts and ends; in between, ``Every`` lets it log at most one line
per interval, so a 3-minute pip install or a 2 GB image load is visibly moving without
flooding the console.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator

PROGRESS_EVERY_S = 10.0


class Every:
    """``due()`` is True at most once per ``seconds`` (the first call after ``seconds``)."""

    def __init__(self, seconds: float = PROGRESS_EVERY_S,
                 clock: Callable[[], float] = time.monotonic):
        self.seconds = seconds
        self.clock = clock
        self.started = clock()
        self._next = self.started + seconds

    def due(self) -> bool:
        now = self.clock()
        if now < self._next:
            return False
        self._next = now + self.seconds
        return True

    def elapsed(self) -> float:
        return self.clock() - self.started


def counted(chunks: Iterable[bytes], report: Callable[[int, bool], None],
            every: Every) -> Iterator[bytes]:
    """Yield ``chunks`` unchanged; call ``report(bytes so far, done)`` when ``every`` is due
    and once at the end."""
    total = 0
    for chunk in chunks:
        total += len(chunk)
        yield chunk
        if every.due():
            report(total, False)
    report(total, True)


def human_bytes(n: float | None) -> str:
    if n is None:
        return "?"
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GiB"  # pragma: no cover (the loop returns)


def stage(line: str) -> str:
    """debootstrap's stage of an ``I: Retrieving libc6 2.36-9`` line: ``Retrieving``."""
    words = line.split()
    return words[1] if len(words) > 1 and words[0] == "I:" else ""
