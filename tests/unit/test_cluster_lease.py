"""The cluster lease (issue 27): a run holds its hosts on the hosts; a second run is refused
naming the holder, or waits; a lease whose master is gone is taken over with a line; hosts
are taken in sorted order and released on the way out. On this machine's own shell
(LocalHost, real flock), each "host" with its own lock file under tmp_path."""

from __future__ import annotations

import argparse
import json
import logging
from pathlib import Path
from typing import Sequence

import pytest

from chipperf.cli import parser, wait_policy
from chipperf.errors import ConfigError
from chipperf.remote.group import HostGroup
from chipperf.remote.host import Held, LocalHost
from chipperf.run import causes
from chipperf.run.clusterlease import ClusterLease, Holder, HostsBusy, Wait, holder_of

FIRST = Holder("master-a", 4242, "2026-01-02T03:04:05+00:00", "root", "run20260102030405",
               "/r/run20260102030405")
SECOND = Holder("master-b", 77, "2026-01-02T03:05:00+00:00", "eve")


class Host(LocalHost):
    """A host of its own on this machine: its lock file's base carries its name."""

    def __init__(self, name: str, order: list[str] | None = None):
        super().__init__(name)
        self.order = order if order is not None else []

    def hold(self, argv: Sequence[str], timeout: float = 60) -> Held:
        self.order.append(self.name)
        return super().hold([*argv[:4], f"{argv[4]}-{self.name}", *argv[5:]], timeout)


def records(base: Path) -> dict[str, dict]:
    return {p.name: json.loads(p.read_text()) for p in base.parent.glob(f"{base.name}*.json")}


def test_the_record_says_who_and_reads_back() -> None:
    assert Holder.parse(FIRST.to_json()) == FIRST
    assert FIRST.describe() == ("run run20260102030405 (master master-a, pid 4242, user root, "
                                "since 2026-01-02T03:04:05+00:00)")
    assert SECOND.describe().startswith("a run that is starting (master master-b, pid 77")
    assert Holder.parse("") is None and Holder.parse('{"pid": 1}') is None
    assert holder_of(f"lease /x\nwas {FIRST.to_json()}\n", "was") == FIRST
    assert holder_of("busy \n", "busy") is None


def test_a_second_run_is_refused_naming_the_holder(tmp_path) -> None:
    base = tmp_path / "lease"
    first = ClusterLease.take({"h1": Host("h1")}, base=str(base), holder=FIRST)
    try:
        with pytest.raises(HostsBusy) as refused:
            ClusterLease.take({"h1": Host("h1")}, base=str(base), holder=SECOND)
        assert str(refused.value) == (
            "h1 is in use by run run20260102030405 (master master-a, pid 4242, user root, since "
            "2026-01-02T03:04:05+00:00): this run was not started (nothing was touched); start "
            "it when that run has ended, or with `chipperf run --wait` to wait for it")
        assert refused.value.holder == FIRST
    finally:
        first.release()
    assert records(base) == {}                       # released: the record went with the lock
    ClusterLease.take({"h1": Host("h1")}, base=str(base), holder=SECOND).release()


def test_hosts_are_taken_sorted_and_a_refusal_releases_what_was_taken(tmp_path) -> None:
    base, order = tmp_path / "lease", []
    other = ClusterLease.take({"h2": Host("h2")}, base=str(base), holder=FIRST)
    try:
        with pytest.raises(HostsBusy, match="^h2 is in use by run run20260102030405"):
            ClusterLease.take({"h3": Host("h3", order), "h1": Host("h1", order),
                               "h2": Host("h2", order)}, base=str(base), holder=SECOND)
        assert order == ["h1", "h2"]                 # sorted; h3 never asked
        assert [n.split("-")[1] for n in records(base)] == ["h2"]   # h1's went with its lease
    finally:
        other.release()


def test_the_record_names_the_run_once_it_has_its_dir(tmp_path) -> None:
    base = tmp_path / "lease"
    lease = ClusterLease.take({"h1": Host("h1")}, base=str(base), holder=SECOND)
    try:
        lease.name_run("run20260102030500", "/r/run20260102030500")
        with pytest.raises(HostsBusy, match=r"^h1 is in use by run run20260102030500 \(master "
                                            r"master-b, pid 77, user eve"):
            ClusterLease.take({"h1": Host("h1")}, base=str(base), holder=FIRST)
    finally:
        lease.release()


def test_wait_says_whom_it_waits_for_and_starts_when_it_ends(tmp_path, caplog) -> None:
    base = tmp_path / "lease"
    first = ClusterLease.take({"h1": Host("h1")}, base=str(base), holder=FIRST)
    slept: list[float] = []

    def sleep(seconds: float) -> None:   # the first run ends while the second waits
        slept.append(seconds)
        if len(slept) == 2:
            first.release()

    with caplog.at_level(logging.WARNING, "chipperf"):
        second = ClusterLease.take({"h1": Host("h1")}, Wait(poll_s=0.5), base=str(base),
                                   holder=SECOND, sleep=sleep)
    try:
        assert slept == [0.5, 0.5] and list(second.held) == ["h1"]
        waits = [r.getMessage() for r in caplog.records if "waiting" in r.getMessage()]
        assert waits == ["h1 is in use by run run20260102030405 (master master-a, pid 4242, user "
                         "root, since 2026-01-02T03:04:05+00:00): waiting for it (--wait, "
                         "asking every 0.5 s, no limit)"]     # once per holder, not per poll
        assert not second.taken_over                 # released properly: nothing taken over
    finally:
        second.release()


def test_wait_gives_up_after_its_timeout(tmp_path) -> None:
    base = tmp_path / "lease"
    first = ClusterLease.take({"h1": Host("h1")}, base=str(base), holder=FIRST)
    try:
        with pytest.raises(HostsBusy, match=r"still after waiting 0 s \(--wait-timeout\): this "
                                            r"run was not started"):
            ClusterLease.take({"h1": Host("h1")}, Wait(timeout_s=0), base=str(base),
                              holder=SECOND, sleep=lambda s: None)
    finally:
        first.release()


def test_a_lease_whose_master_is_gone_is_taken_over_with_a_line(tmp_path, caplog) -> None:
    """The master's end without `release` (SIGKILL: its channel closes) frees the lock and
    leaves the record: the next run says whose lease it took."""
    base = tmp_path / "lease"
    gone = ClusterLease.take({"h1": Host("h1")}, base=str(base), holder=FIRST)
    gone.held["h1"].end()                           # the channel closes, nothing said
    with caplog.at_level(logging.WARNING, "chipperf"):
        taker = ClusterLease.take({"h1": Host("h1")}, base=str(base), holder=SECOND)
    try:
        assert taker.taken_over == {"h1": FIRST}
        assert "[h1] took over the lease of run run20260102030405 (master master-a, pid 4242, " \
               "user root, since 2026-01-02T03:04:05+00:00): its master is gone (it ended " \
               "without releasing the host)" in caplog.text
        assert list(records(base).values()) == [json.loads(SECOND.to_json())]
        assert taker.previous_holder("h1").startswith("run run20260102030405 (master master-a")
    finally:
        taker.release()


def test_a_port_clash_names_the_run_whose_lease_was_taken_over(tmp_path) -> None:
    from test_failure_causes import TORCH_213, failed_node  # type: ignore[import-not-found]

    from chipperf.run.rounds import name_port_clash

    (tmp_path / "rank0.out.log").write_text("\n".join(TORCH_213) + "\n")
    hosts = HostGroup([LocalHost()])
    hosts.earlier_holders["127.0.0.1"] = "run run1 (master m, pid 1, since t), whose lease ..."
    st = failed_node()
    name_port_clash(hosts, st, tmp_path)   # ss: nothing listens on 29778 here
    assert st.kind == causes.PORT and st.port_in_use == 29778
    assert st.reason.startswith("port 29778 on 127.0.0.1 is already in use, held by run run1 "
                                "(master m, pid 1, since t), whose lease ... (EADDRINUSE in "
                                "rank0.out.log)")


def test_wait_options() -> None:
    def policy(*argv: str) -> Wait | None:
        return wait_policy(parser().parse_args(["run", *argv]))

    assert policy() is None
    assert policy("--wait") == Wait(None)
    assert policy("--wait-timeout", "90") == Wait(90.0)       # implies --wait
    for bad in ("-1", "nan"):   # argparse refuses them: exit 2, with the usage line
        with pytest.raises(SystemExit, match="2"):
            policy("--wait-timeout", bad)
    with pytest.raises(ConfigError, match="--wait-timeout -1"):   # a caller's Namespace
        wait_policy(argparse.Namespace(wait_timeout=-1.0))


def test_a_host_whose_port_is_in_use_gets_no_later_rounds(tmp_path, monkeypatch) -> None:
    """Round 1 fails on a port in use (what run_round returns then): round 2 is not started,
    and the record says why, with the port."""
    from dataclasses import replace

    from test_clear_caches import one_node_round  # type: ignore[import-not-found]

    from chipperf.config.model import TestConfig
    from chipperf.plan import CasePlan
    from chipperf.run import case as case_module
    from chipperf.run import controller
    from chipperf.run.rounds import RoundOutcome, RoundSettings

    class Record:
        def __init__(self) -> None:
            self.cases: dict[str, dict] = {}

        def case(self, dir_name, **fields):
            self.cases.setdefault(dir_name, {}).update(fields)

        def round(self, dir_name, entry):
            self.cases.setdefault(dir_name, {}).setdefault("rounds", []).append(entry.copy())

    first = RoundOutcome(1, "failed", "node 0 (127.0.0.1): port 29517 on 127.0.0.1 is ...", 0, 1,
                         port_in_use={"127.0.0.1": 29517})
    ran = []
    monkeypatch.setattr(case_module, "run_round", lambda *a: ran.append(a[2].number) or first)
    rounds = (one_node_round(), replace(one_node_round(), number=2))
    case = CasePlan("resnet50:pytorch_2.13:xeon:1:1:2", "resnet50-x", "cpu", "pytorch_2.13",
                    "pytorch", "xeon", 1, 1, "/d", "chipperf/x", tmp_path, rounds)
    hosts, record = HostGroup([LocalHost()]), Record()
    controller.run_case(case, RoundSettings(tmp_path, "img", {}), TestConfig("cpu", ()),
                        hosts, record, controller.RunOutcome(tmp_path))  # type: ignore[arg-type]
    assert ran == [1] and hosts.port_in_use == {"127.0.0.1": 29517}
    entry = record.cases["resnet50-x"]
    assert entry["skipped_rounds"] == [2]
    assert entry["skipped_because"] == "port 29517 on 127.0.0.1 is already in use in round 1"
    assert entry["rounds"][0]["port_in_use"] == {"127.0.0.1": 29517}
