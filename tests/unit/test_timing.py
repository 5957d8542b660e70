"""chipperf_runtime.timing: every clock reading follows a device sync, in every suite."""

from __future__ import annotations

from chipperf_runtime.timing import Loop, now, run_each, timed_call


class Recorder:
    """A device whose sync and a clock that advances 1 s per reading, both logged in order."""

    def __init__(self) -> None:
        self.log: list[str] = []
        self.t = 0.0

    def sync(self) -> None:
        self.log.append("sync")

    def clock(self) -> float:
        self.log.append("clock")
        self.t += 1.0
        return self.t


def test_a_timed_call_is_bracketed_by_syncs_and_returns_its_result() -> None:
    r = Recorder()
    result, seconds = timed_call(lambda: r.log.append("call") or 42, r.sync, r.clock)
    assert (result, seconds) == (42, 1.0)
    assert r.log == ["sync", "clock", "call", "sync", "clock"]


def test_now_syncs_only_when_given_a_sync() -> None:
    r = Recorder()
    assert now(r.sync, r.clock) == 1.0 and now(None, r.clock) == 2.0
    assert r.log == ["sync", "clock", "clock"]


def test_run_each_times_every_call_alone() -> None:
    r = Recorder()
    timed = run_each(lambda: None, r.sync, Loop(warmup=0, iters=3), r.clock)
    assert timed.iterations == 3 and timed.per_iter_s == (1.0, 1.0, 1.0)
    assert r.log == ["sync", "clock", "sync", "clock"] * 3
