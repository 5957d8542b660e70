"""Failures named for their cause (issue 27): a port already in use, from the rank log text
torch writes (torch 2.13's own, recorded here: tests/unit/data/causes/), with the process that
holds it; a container engine stopped or gone while the host answers, and such a host gets no
later rounds. On this machine's own shell (127.0.0.1) and a real listening socket."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from chipperf.remote.group import HostGroup
from chipperf.remote.host import LocalHost
from chipperf.run import causes
from chipperf.run.rounds import NodeState, RoundOutcome, culprit, name_engine_loss, name_port_clash

DATA = Path(__file__).parent / "data" / "causes"
TORCH_213 = (DATA / "torch213_eaddrinuse.log").read_text().splitlines()
# jax 0.10.2's rank 0 whose coordinator port has a listener on 127.0.0.1 (its only line
# before it dies of SIGSEGV; glog's warnings left out)
JAX_0102 = (DATA / "jax0102_coordinator_port.log").read_text().splitlines()
# torch < 2.2 (c10d's socket.cpp), as its users quote it in bug reports
TORCH_OLD = ["[W socket.cpp:401] [c10d] The server socket has failed to bind to [::]:29500 "
             "(errno: 98 - Address already in use).",
             "[E socket.cpp:435] [c10d] The server socket has failed to listen on any local "
             "network address."]


def test_torch_213_eaddrinuse_is_a_port_clash_with_its_port() -> None:
    clash = causes.port_clash(TORCH_213)
    assert clash is not None and clash.port == 29778
    assert clash.line.startswith("torch.distributed.DistNetworkError: The server socket has "
                                 "failed to listen") and "EADDRINUSE" in clash.line


@pytest.mark.parametrize("lines, port", [
    (TORCH_OLD, 29500),
    (JAX_0102, 29874),
    (["RuntimeError: Address already in use"], None),            # torch < 1.11: no port
])
def test_other_forms_of_the_message(lines, port) -> None:
    clash = causes.port_clash(lines)
    assert clash is not None and clash.port == port


def test_other_failures_are_not_a_port_clash() -> None:
    assert causes.port_clash(["RuntimeError: CUDA out of memory", "connection refused on port: 22",
                              "Traceback (most recent call last):"]) is None


def test_the_holder_is_named_from_ss() -> None:
    assert causes.holder('LISTEN 0 128 0.0.0.0:29500 0.0.0.0:* users:(("python3",pid=4242,fd=3))') \
        == "python3 (pid 4242)"
    assert causes.holder("") is None
    with socket.socket() as held:          # a real listener on this machine: ss finds it
        held.bind(("0.0.0.0", 0))
        held.listen()
        assert causes.port_holder(LocalHost(), held.getsockname()[1]).endswith(
            f"(pid {__import__('os').getpid()})")


class Node:
    node_rank, host = 0, "127.0.0.1"
    result_rel = "case/round1/127.0.0.1_noderank0"
    output_dir = "/w/run1/127.0.0.1/results/case/round1/127.0.0.1_noderank0"


def failed_node(reason: str = "launcher exited with status 1; see launcher.log") -> NodeState:
    st = NodeState(Node())  # type: ignore[arg-type]
    st.status, st.kind, st.reason = "failed", "exited", reason
    return st


def test_a_node_whose_rank_log_says_eaddrinuse_is_named_so(tmp_path) -> None:
    (tmp_path / "rank0.out.log").write_text("\n".join(TORCH_213) + "\n")
    (tmp_path / "launcher.log").write_text("rank 0 exited with status 1\n")
    st = failed_node()
    name_port_clash(HostGroup([LocalHost()]), st, tmp_path)   # ss asked: nothing holds 29778
    assert st.status == "failed" and st.kind == causes.PORT
    assert st.reason.startswith("port 29778 on 127.0.0.1 is already in use")
    assert "(EADDRINUSE in rank0.out.log): another run or program listens on it: stop it, or " \
        "set MASTER_PORT in the cluster config to a free port (launcher exited with status 1" \
        in st.reason


def test_the_clash_is_blamed_before_a_node_that_failed_after_it() -> None:
    other, clash = failed_node("timed out"), failed_node()
    other.node = type("N1", (Node,), {"node_rank": 1})()  # type: ignore[assignment]
    clash.kind = causes.PORT
    assert culprit([other, clash]) is clash


def test_a_log_without_it_is_left_alone(tmp_path) -> None:
    (tmp_path / "rank0.out.log").write_text("Traceback\nValueError: bad shape\n")
    st = failed_node()
    name_port_clash(HostGroup([LocalHost()]), st, tmp_path)
    assert st.kind == "exited" and st.reason.startswith("launcher exited")


def test_an_engine_gone_while_the_host_answers_is_named(monkeypatch) -> None:
    """The host's Docker engine is away (DOCKER_HOST at a socket nobody serves) and its shell
    answers: the node failed because of the engine, and the round says the host is gone."""
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    st = failed_node()
    name_engine_loss(HostGroup([LocalHost()]), st)
    assert st.kind == causes.ENGINE and st.status == "failed"
    assert st.reason.startswith("the container engine on 127.0.0.1 stopped or is gone (the "
                                "host answers over SSH, its Docker engine does not: ")
    assert "Cannot connect to the Docker daemon at unix:///nonexistent/docker.sock" in st.reason
    assert st.reason.endswith("no later round of this run starts there (launcher exited with "
                              "status 1; see launcher.log)")
    assert st.engine_gone


def test_an_engine_that_answers_is_not_blamed() -> None:
    class Answering(LocalHost):
        def docker(self):   # an engine that answers its ping
            return type("Client", (), {"api": type("Api", (), {"ping": lambda self: True})()})()

    st = failed_node()
    name_engine_loss(HostGroup([Answering()]), st)
    assert st.kind == "exited" and not st.engine_gone


def test_a_host_whose_engine_is_gone_gets_no_later_rounds(tmp_path, monkeypatch) -> None:
    """Round 1 ends with the host's engine gone (what run_round returns then): round 2 is
    not started there, and the record says why."""
    from dataclasses import replace

    from test_clear_caches import one_node_round  # type: ignore[import-not-found]

    from chipperf.config.model import TestConfig
    from chipperf.plan import CasePlan
    from chipperf.run import case as case_module
    from chipperf.run import controller
    from chipperf.run.rounds import RoundSettings

    class Record:
        def __init__(self):
            self.cases: dict[str, dict] = {}

        def case(self, dir_name, **fields):
            self.cases.setdefault(dir_name, {}).update(fields)

        def round(self, dir_name, entry):
            self.cases.setdefault(dir_name, {}).setdefault("rounds", []).append(entry.copy())

    first = RoundOutcome(1, "failed", "node 0 (127.0.0.1): the container engine ...", 0, 1,
                         engine_gone=("127.0.0.1",))
    ran = []

    def one_round(hosts, case, rnd, settings):
        ran.append(rnd.number)
        return first

    rounds = (one_node_round(), replace(one_node_round(), number=2))
    case = CasePlan("resnet50:pytorch_2.13:xeon:1:1:2", "resnet50-x", "cpu", "pytorch_2.13",
                    "pytorch", "xeon", 1, 1, "/d", "chipperf/x", tmp_path, rounds)
    hosts = HostGroup([LocalHost()])
    record, outcome = Record(), controller.RunOutcome(tmp_path)
    monkeypatch.setattr(case_module, "run_round", one_round)
    controller.run_case(case, RoundSettings(tmp_path, "img", {}), TestConfig("cpu", ()),
                        hosts, record, outcome)  # type: ignore[arg-type]
    assert ran == [1] and hosts.engine_gone == {"127.0.0.1"}
    assert record.cases["resnet50-x"]["skipped_rounds"] == [2]
    assert record.cases["resnet50-x"]["rounds"][0]["engine_gone"] == ["127.0.0.1"]


def test_round_teardown_names_an_engine_stopped_normally(tmp_path, monkeypatch) -> None:
    """A dockerd stopped normally ends its containers (the launcher exits 1) and the stop
    calls, which swallow a gone engine, raise nothing: the teardown still asks the engine
    (on sim host h7, SIGTERM to its dockerd: named, round 2 not started)."""
    from chipperf.run.roundend import _teardown_node
    from chipperf.run.rounds import RoundSettings

    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    output = tmp_path / "host" / "node"
    output.mkdir(parents=True)
    (output / "launcher.log").write_text("rank 0 exited with status 1\n")
    node = type("N", (Node,), {"output_dir": str(output)})()
    st = failed_node()
    st.node = node  # type: ignore[assignment]
    _teardown_node(HostGroup([LocalHost()]), st, RoundSettings(tmp_path / "run", "img", {}))
    assert st.kind == causes.ENGINE and st.engine_gone
    assert (tmp_path / "run" / Node.result_rel / "launcher.log").is_file()   # still collected
    assert "the container engine on 127.0.0.1 stopped or is gone" in \
        (tmp_path / "run" / Node.result_rel / "status").read_text()


class Exited:
    """A docker SDK container that exited 1, its State as Docker reports it."""

    def __init__(self, oom_killed: bool):
        self.attrs = {"State": {"ExitCode": 1, "Running": False, "OOMKilled": oom_killed}}

    def reload(self) -> None:
        pass


@pytest.mark.parametrize("killed, start", [
    (True, "out of memory: the container's memory limit was reached and the kernel killed a "
           "process in it (OOMKilled); launcher exited with status 1; see case/round1/"),
    (False, "launcher exited with status 1; see case/round1/127.0.0.1_noderank0/launcher.log"),
])
def test_a_container_the_kernel_oom_killed_is_named_out_of_memory(killed, start) -> None:
    """docker --memory (a sweep's cap): the round's reason says so, not only the exit code."""
    from chipperf.run.roundwait import _record_exit

    st = NodeState(Node(), status="running", container=Exited(killed))  # type: ignore[arg-type]
    assert _record_exit(st, 1, None) is False
    assert st.status == "failed" and st.kind == "exited" and st.reason.startswith(start), st.reason
