"""A round's and a case's status come from what the nodes had; the node named is always one
that did not succeed; every failure keeps its kind and its own message."""

from __future__ import annotations

import logging

import docker.errors
import paramiko
import pytest
import requests.exceptions

from chipperf.errors import HostError, failure, log_failure
from chipperf.run.controller import case_status
from chipperf.run.rounds import NodeState, RoundOutcome, _outcome, culprit


class Node:
    def __init__(self, rank: int):
        self.node_rank, self.host = rank, f"10.0.0.{rank + 1}"
        self.result_rel = f"case/round1/{self.host}_noderank{rank}"


class Round:
    number = 1


def states(*pairs: tuple[str, str]) -> list[NodeState]:
    out = []
    for rank, (status, kind) in enumerate(pairs):
        st = NodeState(Node(rank))  # type: ignore[arg-type]
        st.status, st.reason, st.kind = status, f"why {rank}", kind
        out.append(st)
    return out


def test_the_named_node_never_succeeded():
    # a canceled round (Ctrl-C) whose node 0 had finished: node 1 is named, not node 0
    canceled = states(("succeeded", ""), ("canceled", ""))
    assert culprit(canceled).node.node_rank == 1
    out = _outcome(Round(), canceled, 0, canceled=True)  # type: ignore[arg-type]
    assert (out.status, out.reason) == ("canceled", "node 1 (10.0.0.2): why 1")
    failed = states(("canceled", ""), ("succeeded", ""), ("failed", "exited"))
    assert culprit(failed).node.node_rank == 2
    assert culprit(states(("succeeded", ""), ("succeeded", ""))) is None
    lost = _outcome(Round(), states(("failed", "unreachable"), ("canceled", "")), 0, False)  # type: ignore[arg-type]
    assert lost.status == "failed" and lost.lost_hosts == ("10.0.0.1",)


def test_case_status_is_the_first_round_that_did_not_succeed():
    ok = RoundOutcome(1, "succeeded", "", 0, 1)
    bad = RoundOutcome(2, "timeout", "node 0 (h): slow", 0, 1)
    worse = RoundOutcome(3, "failed", "node 1 (h): crash", 0, 1)
    assert case_status([ok, ok]) == ("succeeded", "")
    assert case_status([ok, bad, worse]) == ("timeout", "round 2: node 0 (h): slow")
    assert case_status([]) == ("failed", "no round ran")


@pytest.mark.parametrize("exc, kind, words", [
    (requests.exceptions.ConnectionError("Connection aborted"), "unreachable", "lost contact"),
    (paramiko.SSHException("channel closed"), "unreachable", "lost contact"),
    (requests.exceptions.ChunkedEncodingError("Response ended prematurely"), "unreachable",
     "lost contact"),
    (HostError("h", "ssh root@h:22: cannot connect", unreachable=True), "unreachable", "lost contact"),
    (requests.exceptions.ReadTimeout("read timed out"), "timeout", "no answer"),
    (docker.errors.NotFound("no such container"), "exited", "the container is gone"),
    (HostError("h", "starting container c failed: Conflict"), "host", "h: starting container"),
    (KeyError("node"), "internal", "internal error: KeyError"),
])
def test_failures_keep_their_kind(exc, kind, words):
    got, message = failure(exc, "waiting for c")
    assert got == kind and words in message, message


def test_an_internal_error_logs_its_traceback(caplog):
    try:
        {}["x"]
    except KeyError as exc:
        caught = exc
    with caplog.at_level(logging.DEBUG, logger="chipperf"):
        log_failure("[h] node 0", "internal", "boom", caught)
    assert caplog.records[-1].exc_info and caplog.records[-1].levelno == logging.ERROR
    caplog.clear()
    with caplog.at_level(logging.DEBUG, logger="chipperf"):
        log_failure("[h] node 0", "unreachable", "gone", ConnectionError("x"))
    assert caplog.records[-1].levelno == logging.DEBUG  # shown with --debug only
