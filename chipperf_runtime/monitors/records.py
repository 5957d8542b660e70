"""The monitor log format: one JSON object per line (JSONL), every line stamped.

Every line has ``ts_ms`` (epoch milliseconds) and ``source`` (``cpu``, ``mem``,
``ipmi``, ``rapl`` or the vendor name). Its other keys say what kind of line it is::

    {"ts_ms": .., "source": "cpu", "info": {...}, "interval_s": 1.0}   once, at start
    {"ts_ms": .., "source": "cpu", "util_pct": 12.5, ...}              a sample
    {"ts_ms": .., "source": "ipmi", "unavailable": "<reason>"}         once; never sampled
    {"ts_ms": .., "source": "rapl", "error": "<what>", "suppressed": 3} rate-limited
    {"ts_ms": .., "source": "cpu", "end": "<why>", "samples": 60, "errors": 0}  last line

Values carry their unit in the key (``util_pct``, ``used_bytes``, ``power_w``,
``energy_j``). ``SourceLog`` writes them; ``parse_lines`` reads them back, counting
the lines it cannot use instead of raising.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Callable, TextIO

KINDS = ("info", "unavailable", "error", "end")


def epoch_ms(clock: Callable[[], float] = time.time) -> int:
    return int(clock() * 1000)


def dumps(record: Mapping[str, Any]) -> str:
    return json.dumps(record, separators=(",", ":"), allow_nan=False)


def kind(record: Mapping[str, Any]) -> str:
    """``info``, ``unavailable``, ``error``, ``end`` or ``sample``."""
    return next((k for k in KINDS if k in record), "sample")


class SourceLog:
    """Writes one source's lines to its (possibly shared) file.

    Errors are rate-limited: the first is written at once, later ones at most every
    ``error_every_s`` seconds, each carrying how many were suppressed before it.
    """

    def __init__(self, stream: TextIO, source: str, error_every_s: float = 60.0,
                 clock: Callable[[], float] = time.time):
        self.source = source
        self.samples = 0
        self.errors = 0
        self.stream = stream
        self._clock = clock
        self._error_every_s = error_every_s
        self._last_error_at: float | None = None
        self._suppressed = 0

    def info(self, info: Mapping[str, Any], interval_s: float) -> None:
        self._write({"info": dict(info), "interval_s": interval_s})

    def unavailable(self, reason: str) -> None:
        self._write({"unavailable": reason})

    def sample(self, values: Mapping[str, Any]) -> None:
        self._write(dict(values))
        self.samples += 1

    def error(self, message: str) -> None:
        self.errors += 1
        now = self._clock()
        if self._last_error_at is not None and now - self._last_error_at < self._error_every_s:
            self._suppressed += 1
            return
        self._write({"error": message[:2000], "suppressed": self._suppressed})
        self._last_error_at, self._suppressed = now, 0

    def end(self, reason: str) -> None:
        self._write({"end": reason, "samples": self.samples, "errors": self.errors,
                     "suppressed": self._suppressed})

    def _write(self, values: Mapping[str, Any]) -> None:
        # A sampler may stamp its own reading (a tool that answered late): keep its ts_ms.
        record = {"ts_ms": epoch_ms(self._clock), "source": self.source, **values}
        try:
            line = dumps(record)
        except (TypeError, ValueError) as e:  # NaN, a non-JSON value: say so, keep going
            line = dumps({"ts_ms": record["ts_ms"], "source": self.source,
                          "error": f"unserialisable record: {e}", "suppressed": 0})
        self.stream.write(line + "\n")


@dataclass(frozen=True)
class ParsedLog:
    """The records of one file, and the lines that could not be used."""

    records: tuple[dict[str, Any], ...]
    problems: tuple[str, ...]
    malformed: int


def parse_lines(lines: Iterable[str], name: str = "<log>") -> ParsedLog:
    """Pure: JSONL lines in, records + problems out; a truncated last line is counted."""
    records: list[dict[str, Any]] = []
    problems: list[str] = []
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        record, problem = _parse_line(line)
        if problem:
            problems.append(f"{name}:{lineno}: {problem}")
        else:
            records.append(record)
    return ParsedLog(tuple(records), tuple(problems), len(problems))


def _parse_line(line: str) -> tuple[dict[str, Any], str]:
    try:
        record = json.loads(line)
    except json.JSONDecodeError as e:
        return {}, f"not JSON ({e.msg}): {line.strip()[:80]!r}"
    if not isinstance(record, dict):
        return {}, f"not a JSON object: {line.strip()[:80]!r}"
    ts = record.get("ts_ms")
    if isinstance(ts, bool) or not isinstance(ts, (int, float)):
        return {}, f"no numeric ts_ms: {line.strip()[:80]!r}"
    return record, ""
