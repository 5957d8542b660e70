"""CLEAR_CACHES (FlagPerf's): each round's hosts drop their page cache before it starts; a host
that cannot is named, and the round still runs."""

from __future__ import annotations

import os

import pytest

from chipperf import controller
from chipperf.containerplan import NodeContainers
from chipperf.containers.spec import ContainerSpec
from chipperf.plan import NodePlan, RoundPlan
from chipperf.remote.group import HostGroup
from chipperf.remote.host import LocalHost


def one_node_round() -> RoundPlan:
    spec = ContainerSpec("c", "img", (), {}, (), "run1")
    node = NodePlan("127.0.0.1", 0, "/w", "c", "m", "case/round1/127.0.0.1_noderank0", "/w/o",
                    {}, (), NodeContainers(spec, spec))
    return RoundPlan(1, "127.0.0.1", 29500, 60.0, (node,))


@pytest.mark.skipif(os.geteuid() != 0, reason="dropping the page cache needs root (CI is root)")
def test_the_round_host_drops_its_page_cache(caplog) -> None:
    caplog.set_level("INFO", logger="chipperf")
    hosts = HostGroup([LocalHost()])
    assert controller.drop_page_caches(one_node_round(), hosts) == {"127.0.0.1": "dropped"}
    assert "[127.0.0.1] CLEAR_CACHES: page cache dropped before round 1" in caplog.text


def test_a_host_that_cannot_is_named_and_the_round_goes_on(caplog, monkeypatch) -> None:
    monkeypatch.setattr(controller, "DROP_CACHES",
                        ("sh", "-c", "echo 'Permission denied' >&2; exit 1"))
    done = controller.drop_page_caches(one_node_round(), HostGroup([LocalHost()]))
    assert done == {"127.0.0.1": "not dropped: Permission denied"}
    assert "the page cache was not dropped (Permission denied)" in caplog.text
