"""A node that failed on a full disk says so, naming host, path and free space; a host cut
off keeps its node's files there without being asked anything; per-node round times show a
straggler (issue 17)."""

from __future__ import annotations

from pathlib import Path

from chipperf.remote.host import CommandResult
from chipperf.run.roundend import _keep_on_silent_host, _name_full_disk
from chipperf.run.rounds import NodeState, RoundSettings, node_times


class Node:
    node_rank, host = 1, "10.0.0.2"
    output_dir = "/w/run1/10.0.0.2/results/case/round2/10.0.0.2_noderank1"
    result_rel = "case/round2/10.0.0.2_noderank1"


class DfHost:
    def __init__(self, free_kib: int):
        self.free_kib, self.asked = free_kib, []

    def run(self, argv, timeout=300, check=True):
        self.asked.append(tuple(argv))
        out = ("Filesystem 1024-blocks Used Available Capacity Mounted on\n"
               f"tmpfs 4096 {4096 - self.free_kib} {self.free_kib} 100% /w/run1/x y\n")
        return CommandResult(tuple(argv), 0, out, "")


class Hosts(dict):
    silent: set[str] = set()


def failed(kind: str = "exited") -> NodeState:
    st = NodeState(Node())  # type: ignore[arg-type]
    st.status, st.kind, st.reason = "failed", kind, "launcher exited with status 1"
    return st


def test_a_node_that_failed_on_a_full_disk_names_host_path_and_space():
    st, host = failed(), DfHost(free_kib=0)
    _name_full_disk(Hosts({Node.host: host}), st)  # type: ignore[arg-type]
    assert host.asked == [("df", "-Pk", Node.output_dir.rsplit("/", 1)[0])]
    assert st.reason == (f"no space left under {Node.output_dir} on 10.0.0.2 (0 KiB free on "
                         "/w/run1/x y): free space under WORK_ROOT there (launcher exited "
                         "with status 1)")


def test_room_left_or_another_kind_of_failure_leaves_the_reason_alone():
    st = failed()
    _name_full_disk(Hosts({Node.host: DfHost(free_kib=500_000)}), st)  # type: ignore[arg-type]
    assert st.reason == "launcher exited with status 1"
    host = DfHost(free_kib=0)
    _name_full_disk(Hosts({Node.host: host}), failed("unreachable"))  # type: ignore[arg-type]
    assert host.asked == []


def test_a_silent_hosts_node_keeps_its_files_there(tmp_path: Path):
    st = NodeState(Node())  # type: ignore[arg-type]
    st.status = "succeeded"
    _keep_on_silent_host(st, RoundSettings(tmp_path, "img", {}))
    assert st.kept_on == f"10.0.0.2:{Node.output_dir}"
    assert st.status == "failed" and "the host stopped answering" in st.reason


def test_node_times_show_the_node_that_starts_and_ends_last():
    times = node_times(1_000, {
        "a_noderank0": {"started_ms": 2_000, "finished_ms": 31_000},
        "b_noderank1": {"started_ms": 6_500, "finished_ms": 39_250},
        "c_noderank2": {"error": "engine gone"}})
    assert times == {
        "a_noderank0": {"start_s": 1.0, "end_s": 30.0, "end_lag_s": 0.0},
        "b_noderank1": {"start_s": 5.5, "end_s": 38.25, "end_lag_s": 8.25},
        "c_noderank2": {"start_s": None, "end_s": None, "end_lag_s": None}}


class Record:
    def __init__(self):
        self.cases: dict[str, dict] = {}

    def case(self, dir_name, **fields):
        self.cases.setdefault(dir_name, {}).update(fields)


def test_a_later_case_on_a_host_found_silent_is_not_started_and_says_why(tmp_path: Path):
    """A host a round found cut off is asked nothing more in the run: a later case that
    needs it fails naming it, without a round (and without an IndexError on no rounds)."""
    from test_clear_caches import one_node_round  # type: ignore[import-not-found]

    from chipperf.config.model import TestConfig
    from chipperf.plan import CasePlan
    from chipperf.remote.group import HostGroup
    from chipperf.remote.host import LocalHost
    from chipperf.run import controller

    hosts = HostGroup([LocalHost()])
    hosts.silent.add("127.0.0.1")
    case = CasePlan("resnet50:pytorch_2.13:xeon:1:1:2", "resnet50-x", "cpu", "pytorch_2.13",
                    "pytorch", "xeon", 1, 1, "/d", "chipperf/x", tmp_path, (one_node_round(),))
    record, outcome = Record(), controller.RunOutcome(tmp_path)
    controller.run_case(case, RoundSettings(tmp_path, "img", {}), TestConfig("cpu", ()), hosts,
                        record, outcome)  # type: ignore[arg-type]
    assert outcome.cases[case.key] == ("failed", "not started: 127.0.0.1 stopped answering in "
                                                 "an earlier case of this run")
    assert record.cases["resnet50-x"]["skipped_rounds"] == [1]
