"""Which simulated hosts a test session, or one pytest-xdist worker of it, takes."""

from __future__ import annotations

import pytest

from tests.sim_hosts import default_host_names, worker_host_names, worker_index

SLURM = frozenset({"h7", "h8"})


def test_a_session_without_xdist_has_h1_to_h3() -> None:
    assert worker_host_names(default_host_names(1, SLURM), "", 1) == ("h1", "h2", "h3")


def test_two_workers_split_h1_to_h6_into_two_runs_of_three() -> None:
    hosts = default_host_names(2, SLURM)
    assert worker_host_names(hosts, "gw0", 2) == ("h1", "h2", "h3")
    assert worker_host_names(hosts, "gw1", 2) == ("h4", "h5", "h6")


def test_the_default_pool_passes_over_the_slurm_nodes() -> None:
    assert default_host_names(3, SLURM)[6:] == ("h9", "h10", "h11")


def test_named_hosts_are_split_in_the_order_given() -> None:
    named = ("h4", "h5", "h6", "h9", "h10", "h11")
    assert worker_host_names(named, "gw1", 2) == ("h9", "h10", "h11")
    assert worker_host_names(named, "", 1) == named        # one session: all of them


def test_too_few_hosts_for_the_workers_says_how_many_to_name() -> None:
    with pytest.raises(ValueError, match="give each fewer than 3: name 6 hosts"):
        worker_host_names(("h4", "h5", "h6"), "gw0", 2)


def test_a_worker_past_the_count_or_misnamed_is_refused() -> None:
    with pytest.raises(ValueError, match="past the 2 workers"):
        worker_host_names(default_host_names(2, SLURM), "gw2", 2)
    with pytest.raises(ValueError, match="is not gw0, gw1"):
        worker_index("worker-1")
