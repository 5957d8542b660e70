"""CLEAR_CACHES (FlagPerf's): each round's hosts drop their page cache before it starts; a host
that cannot is named once (one warning, its run.json host entry), and the rounds still run."""

from __future__ import annotations

import os

import pytest

from chipperf.containers.containerplan import NodeContainers
from chipperf.containers.spec import ContainerSpec
from chipperf.plan import NodePlan, RoundPlan
from chipperf.remote.group import HostGroup
from chipperf.remote.host import LocalHost
from chipperf.run import controller, pagecache


def one_node_round() -> RoundPlan:
    spec = ContainerSpec("c", "img", (), {}, (), "run1")
    node = NodePlan("127.0.0.1", 0, "/w", "c", "m", "case/round1/127.0.0.1_noderank0", "/w/o",
                    {}, (), NodeContainers(spec, spec))
    return RoundPlan(1, "127.0.0.1", 29500, 60.0, (node,))


@pytest.mark.skipif(os.geteuid() != 0, reason="dropping the page cache needs root (CI is root)")
def test_the_round_host_drops_its_page_cache(caplog) -> None:
    caplog.set_level("INFO", logger="chipperf")
    hosts = HostGroup([LocalHost()])
    done = controller.drop_page_caches(one_node_round(), hosts)
    if not _proc_sys_writable():
        # a container (the fresh-Debian test runs the suite in one) mounts /proc/sys read-only:
        # the host is named with the reason, as for any host that cannot drop it
        (why,) = done.values()
        assert why.startswith("not dropped: ") and "Read-only file system" in why, done
        return
    assert done == {"127.0.0.1": "dropped"}
    assert "[127.0.0.1] CLEAR_CACHES: page cache dropped before round 1" in caplog.text


def _proc_sys_writable() -> bool:
    """Whether /proc/sys is mounted read-write here (not so inside a Docker container)."""
    with open("/proc/self/mounts") as mounts:
        for line in mounts:
            fields = line.split()
            if fields[1] == "/proc/sys":
                return "rw" in fields[3].split(",")
    return True


def test_a_host_that_cannot_is_named_and_the_round_goes_on(caplog, monkeypatch) -> None:
    monkeypatch.setattr(pagecache, "DROP_CACHES",
                        ("sh", "-c", "echo 'Permission denied' >&2; exit 1"))
    done = controller.drop_page_caches(one_node_round(), HostGroup([LocalHost()]))
    assert done == {"127.0.0.1": "not dropped: Permission denied"}
    assert "the page cache cannot be dropped (Permission denied)" in caplog.text


def test_a_host_that_cannot_is_said_so_once_per_run(caplog, monkeypatch) -> None:
    """Where the host is a container (read-only /proc/sys), every round would warn: the
    first says so, run.json's host entry keeps it, later rounds do not ask again."""
    monkeypatch.setattr(pagecache, "DROP_CACHES",
                        ("sh", "-c", "echo 'Read-only file system' >&2; exit 1"))
    hosts, facts = HostGroup([LocalHost()]), {}

    class Record:
        def host(self, name: str, **found: str) -> None:
            facts.setdefault(name, {}).update(found)

    for _ in range(3):
        done = controller.drop_page_caches(one_node_round(), hosts, Record())  # type: ignore[arg-type]
    assert done == {"127.0.0.1": "not dropped: Read-only file system (not asked again)"}
    assert facts == {"127.0.0.1": {"page_cache": "not dropped: Read-only file system"}}
    assert [r.levelname for r in caplog.records if "CLEAR_CACHES" in r.message] == ["WARNING"]
