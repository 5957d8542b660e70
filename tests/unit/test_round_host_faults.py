"""A node that failed on a full disk says so, naming host, path and free space; a host cut
off keeps its node's files there without being asked anything; per-node round times show a
straggler (issue 17)."""

from __future__ import annotations

from pathlib import Path

from chipperf.remote.host import CommandResult
from chipperf.rounds import NodeState, RoundSettings, _keep_on_silent_host, _name_full_disk, node_times


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
