"""A cluster lease whose master process is gone from this very master while the host still
holds its lock (issue 42: a master SIGKILLed with its link cut; sshd keeps the dead session,
and its lease shell, for minutes): the next run takes it over at once, with a line, and a
refusal names such a holder as ended. On this machine's own shell (LocalHost, real flock,
a real lease shell whose stdin this test keeps open, as the stale SSH session does)."""

from __future__ import annotations

import logging
import os
import platform
from pathlib import Path

import pytest

from chipperf.remote.host import LocalHost
from chipperf.run.clusterlease import ClusterLease, Holder, HostsBusy, refused_message, take_argv


def ended_pid() -> int:
    """A pid no process of this machine has (a master process that is gone)."""
    for pid in range(int(Path("/proc/sys/kernel/pid_max").read_text()) - 1, 1, -1):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return pid
        except PermissionError:
            continue
    raise AssertionError("every pid is in use")


def holder(pid: int) -> Holder:
    return Holder(platform.node(), pid, "2026-01-02T03:04:05+00:00", "root", "run20260102030405",
                  "/r/run20260102030405")


def stale_session(base: str, who: Holder) -> LocalHost:
    """A lease shell holding the lock for ``who``, its stdin kept open (never says release)."""
    session = LocalHost("h1")
    session.hold(take_argv(base, who.to_json()))
    return session


def test_a_holder_whose_master_is_gone_here_is_taken_over_at_once(tmp_path, caplog) -> None:
    base = str(tmp_path / "lease")
    gone = holder(ended_pid())
    session = stale_session(base, gone)
    with caplog.at_level(logging.WARNING, "chipperf"):
        taker = ClusterLease.take({"h1": LocalHost("h1")}, base=base, holder=holder(os.getpid()))
    try:
        assert taker.taken_over == {"h1": gone}
        assert (f"[h1] the lease is held for {gone.describe()}, whose master process is gone "
                "from this master") in caplog.text
        assert f"[h1] took over the lease of {gone.describe()}" in caplog.text
    finally:
        taker.release()
        session.close()


def test_a_holder_whose_master_runs_here_is_refused_as_before(tmp_path) -> None:
    base = str(tmp_path / "lease")
    alive = holder(os.getpid())
    session = stale_session(base, alive)
    with pytest.raises(HostsBusy) as refused:
        ClusterLease.take({"h1": LocalHost("h1")}, base=base, holder=holder(os.getpid()))
    assert str(refused.value).startswith(f"h1 is in use by {alive.describe()}: this run was not")
    assert "ended" not in str(refused.value).split(":")[0]
    session.close()


def test_a_holder_of_another_master_is_not_judged_here(tmp_path) -> None:
    base = str(tmp_path / "lease")
    elsewhere = Holder("another-master", ended_pid(), "2026-01-02T03:04:05+00:00")
    session = stale_session(base, elsewhere)
    with pytest.raises(HostsBusy):
        ClusterLease.take({"h1": LocalHost("h1")}, base=base, holder=holder(os.getpid()))
    session.close()


def test_a_refusal_names_an_ended_holder_as_ended() -> None:
    gone = holder(ended_pid())
    said = refused_message("h1", gone)
    assert said.startswith(f"h1 is still leased by {gone.describe()}, which has ended: its "
                           f"master process {gone.pid} is gone from this master")
    assert "nothing was touched" in said
