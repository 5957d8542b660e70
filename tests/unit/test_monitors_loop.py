"""The sampling loop: drift-free schedule, stop requests, and how unavailable sources,
failing samplers and malformed lines are recorded without stopping anything."""

from __future__ import annotations

import io
import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from chipperf_runtime.monitors import Stopper, run_monitor
from chipperf_runtime.monitors.loop import Ticker
from chipperf_runtime.monitors.records import SourceLog, kind, parse_lines
from chipperf_runtime.monitors.source import SampleError, SamplerUnavailable


def test_ticker_keeps_the_grid_whatever_the_sampling_took() -> None:
    ticker = Ticker(1.0, start=100.0)
    assert ticker.next_due(100.3) == 101.0  # sampling took 0.3 s: still due on the grid
    assert ticker.next_due(101.9) == 102.0
    assert ticker.skipped == 0


def test_ticker_skips_ticks_already_past() -> None:
    ticker = Ticker(1.0, start=0.0)
    assert ticker.next_due(3.5) == 4.0  # ticks 1, 2, 3 are past: skipped, not sampled late
    assert ticker.skipped == 3
    assert ticker.next_due(4.01) == 5.0


def test_stopper_wakes_a_waiting_loop_at_once() -> None:
    stopper = Stopper()
    threading.Timer(0.2, stopper.stop, args=("test",)).start()
    began = time.monotonic()
    assert stopper.wait(30.0) is True
    assert time.monotonic() - began < 5.0
    assert stopper.reason == "test"
    stopper.close()


class Scripted:
    """A source whose setup and reads follow a script (to inject faults)."""

    def __init__(self, name: str, file: str, reads: list[Any], setup: Exception | None = None):
        self.name, self.file = name, file
        self._reads, self._setup = list(reads), setup
        self.closed = False
        self.calls = 0

    def setup(self) -> dict[str, Any]:
        if self._setup:
            raise self._setup
        return {"scripted": True}

    def sample(self) -> dict[str, Any] | None:
        self.calls += 1
        step = self._reads.pop(0) if self._reads else {"value": 1}
        if isinstance(step, Exception):
            raise step
        return step

    def close(self) -> None:
        self.closed = True


def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_unavailable_once_errors_recorded_and_the_loop_goes_on(tmp_path: Path) -> None:
    missing = Scripted("gone", "a_monitor.log", [], setup=SamplerUnavailable("no such sensor"))
    broken_setup = Scripted("odd", "a_monitor.log", [], setup=RuntimeError("library crashed"))
    flaky = Scripted("flaky", "b_monitor.log",
                     [{"x_w": 1.0}, SampleError("sensor vanished"), ZeroDivisionError("bad"),
                      {"x_w": 2.0}])
    steady = Scripted("steady", "c_monitor.log", [])
    run_monitor(tmp_path, 0.1, 0.75, "cpu", sources=[missing, broken_setup, flaky, steady])

    shared = _records(tmp_path / "a_monitor.log")
    assert [(r["source"], kind(r)) for r in shared] == [
        ("gone", "unavailable"), ("odd", "unavailable"), ("gone", "end"), ("odd", "end")]
    assert shared[0]["unavailable"] == "no such sensor"
    assert "RuntimeError: library crashed" in shared[1]["unavailable"]
    assert missing.calls == 0 and broken_setup.calls == 0  # never sampled

    lines = _records(tmp_path / "b_monitor.log")
    kinds = [kind(r) for r in lines]
    assert kinds[:4] == ["info", "sample", "error", "sample"], lines
    # the second error came within the rate-limit window: counted, not written
    assert lines[2]["error"] == "SampleError: sensor vanished"
    assert lines[-1]["end"].split(";")[0] == "duration" and lines[-1]["errors"] == 2
    assert lines[-1]["suppressed"] == 1
    assert flaky.closed and steady.closed
    steady_samples = [r for r in _records(tmp_path / "c_monitor.log") if kind(r) == "sample"]
    assert len(steady_samples) >= 4  # unaffected by its neighbours' failures


def test_errors_are_rate_limited_with_the_count_of_suppressed_ones() -> None:
    now = [1000.0]
    stream = io.StringIO()
    log = SourceLog(stream, "ipmi", error_every_s=60.0, clock=lambda: now[0])
    for step in range(10):
        now[0] = 1000.0 + step * 10  # one error every 10 s
        log.error(f"failure {step}")
    lines = [json.loads(x) for x in stream.getvalue().splitlines()]
    assert [(r["error"], r["suppressed"]) for r in lines] == [("failure 0", 0), ("failure 6", 5)]
    log.end("duration")
    assert json.loads(stream.getvalue().splitlines()[-1])["suppressed"] == 3


def test_unserialisable_values_become_an_error_line() -> None:
    stream = io.StringIO()
    SourceLog(stream, "x").sample({"power_w": float("nan")})
    record = json.loads(stream.getvalue())
    assert "unserialisable" in record["error"] and "power_w" not in record


def test_stop_request_ends_the_run_with_its_reason(tmp_path: Path) -> None:
    stopper = Stopper()
    threading.Timer(0.5, stopper.stop, args=("controller asked",)).start()
    began = time.monotonic()
    run_monitor(tmp_path, 0.2, None, "cpu", stopper=stopper,
                sources=[Scripted("s", "s_monitor.log", [])])
    assert time.monotonic() - began < 5.0
    assert _records(tmp_path / "s_monitor.log")[-1]["end"].split(";")[0] == "controller asked"


def test_bad_arguments_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="interval"):
        run_monitor(tmp_path, 0, 1.0, "cpu")
    with pytest.raises(ValueError, match="unknown vendor 'nosuch'"):
        run_monitor(tmp_path, 1.0, 1.0, "nosuch")


def test_parser_counts_truncated_and_malformed_lines() -> None:
    lines = ['{"ts_ms": 1, "source": "cpu", "util_pct": 5}', "", "garbage",
             '[1, 2]', '{"source": "cpu"}', '{"ts_ms": 2, "source": "cpu", "util_p']
    parsed = parse_lines(lines, "cpu_monitor.log")
    assert [r["ts_ms"] for r in parsed.records] == [1]
    assert parsed.malformed == 4
    assert parsed.problems[0].startswith("cpu_monitor.log:3: not JSON")
    assert "cpu_monitor.log:6" in parsed.problems[-1]
