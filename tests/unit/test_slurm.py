"""EXECUTOR = "slurm" without a Slurm: config, sbatch line, Slurm's answers read, and the
allocation's ways out (QUEUE_TIMEOUT, too few nodes, Ctrl-C) with a scripted scheduler."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import pytest

from chipperf.config.load import parse_cluster
from chipperf.config.model import CaseEntry, CaseKey, ClusterConfig, SlurmConfig, TestConfig
from chipperf.remote.host import CommandResult
from chipperf.slurm import checks, commands
from chipperf.slurm.allocation import Allocation, SlurmError, allocate

SLURM = SlurmConfig(nodes=2, partition="debug", queue_timeout_s=5)
CLUSTER = ClusterConfig(hosts=SLURM.placeholders, executor="slurm", slurm=SLURM)
TEST = TestConfig(vendor="cpu", cases=(
    CaseEntry(CaseKey.parse("resnet50:pytorch_2.13:xeon:2:1:2"), "/data"),
    CaseEntry(CaseKey.parse("computation-FP32:pytorch_2.13:xeon:1:4:1"), "/tmp", ("slurm-node2",)),
), round_timeout_s=300)


def cluster_from(tmp_path: Path, text: str) -> tuple[ClusterConfig, list[str]]:
    path = tmp_path / "cluster_conf.py"
    path.write_text(text)
    return parse_cluster(path)


def test_slurm_cluster_config_names_placeholders_for_the_nodes(tmp_path):
    cluster, problems = cluster_from(tmp_path, "EXECUTOR = 'slurm'\nSLURM_NODES = 3\n"
                                     "SLURM_PARTITION = 'gpu'\nQUEUE_TIMEOUT = 30\n"
                                     "SLURM_EXTRA_ARGS = ['--qos=bench']\n")
    assert problems == []
    assert cluster.hosts == ("slurm-node1", "slurm-node2", "slurm-node3")
    assert cluster.slurm == SlurmConfig(3, "gpu", None, 30.0, ("--qos=bench",))


def test_slurm_config_mistakes_are_named(tmp_path):
    _, problems = cluster_from(tmp_path, "EXECUTOR = 'slurm'\nHOSTS = ['10.0.0.1']\n")
    assert any("HOSTS: set together with EXECUTOR = 'slurm'" in p for p in problems), problems
    assert any("SLURM_NODES: not set" in p for p in problems), problems
    _, problems = cluster_from(tmp_path, "EXECUTOR = 'pbs'\nHOSTS = ['10.0.0.1']\n")
    assert any("EXECUTOR: 'pbs' is not an executor: use one of ssh, slurm" in p for p in problems)


def test_sbatch_line_holds_exclusive_nodes_for_every_round_deadline():
    req = commands.request(CLUSTER, TEST, gpus=True)
    # 2 rounds x 300 s + 1 round x 300 s + the 600 s margin = 25 min; GPUs: the largest nproc
    assert commands.sbatch_argv(req) == [
        "sbatch", "--parsable", "--job-name=chipperf", "--nodes=2", "--exclusive", "--time=25",
        "--output=/dev/null", "--chdir=/tmp", "--partition=debug", "--gpus-per-node=4",
        "--wrap=sleep infinity"]
    assert "--gpus-per-node" not in " ".join(commands.sbatch_argv(commands.request(CLUSTER, TEST, False)))


@pytest.mark.parametrize("text, minutes", [
    ("UNLIMITED", None), ("30", 30), ("5:00", 5), ("1:30:00", 90), ("2-00:00:00", 2880),
    ("1-2", 1560), ("0:30", 0.5)])
def test_slurm_time_formats(text, minutes):
    assert commands.minutes(text) == minutes


def test_answers_are_read():
    assert commands.gpus_in_gres("gpu:a100:4(S:0-1),gpu:2") == 6
    assert commands.gpus_in_gres("(null)") == 0
    assert commands.job_id_of("123;cluster\n") == "123"
    assert commands.queue_state("PENDING|Resources|\n") == commands.QueueState("PENDING", "Resources", "")
    assert commands.fields("JobId=7 JobState=RUNNING NodeList=h[7-8]")["NodeList"] == "h[7-8]"


def test_placeholders_become_the_allocated_nodes_in_order():
    cluster, test = commands.on_nodes(CLUSTER, TEST, ("10.0.0.8", "10.0.0.7"))
    assert cluster.hosts == ("10.0.0.8", "10.0.0.7")
    assert test.cases[1].hosts == ("10.0.0.7",) and test.cases[0].hosts == ()


class Scheduler:
    """A scripted Slurm: answers by command name; records every call."""

    def __init__(self, **answers: object):
        self.answers = answers
        self.calls: list[list[str]] = []

    def __call__(self, argv: Sequence[str]) -> CommandResult:
        self.calls.append(list(argv))
        key = argv[0] if argv[0] != "scontrol" else f"scontrol_{argv[list(argv).index('show') + 1]}"
        answer = self.answers.get(key, "")
        if callable(answer):
            answer = answer()
        code, out = answer if isinstance(answer, tuple) else (0, answer)
        return CommandResult(tuple(argv), code, out if code == 0 else "", out if code else "")

    def cancelled(self) -> bool:
        return ["scancel", "41"] in self.calls


def fake_clock():
    now = [0.0]

    def clock() -> float:
        return now[0]

    def sleep(s: float) -> None:
        now[0] += s
    return clock, sleep


def test_pending_past_queue_timeout_is_cancelled_with_the_reason():
    slurm = Scheduler(sbatch="41\n", squeue="PENDING|PartitionDown|\n", scontrol_job="JobState=CANCELLED")
    why = r"still PENDING after QUEUE_TIMEOUT = 5 s \(reason: PartitionDown\)"
    with pytest.raises(SlurmError, match=why):
        allocate(commands.request(CLUSTER, TEST, False), slurm, *fake_clock())
    assert slurm.cancelled()


def test_fewer_nodes_than_asked_is_cancelled():
    states = iter(["JobState=RUNNING NodeList=h7", "JobState=CANCELLED NodeList=h7"])  # scancel'd
    slurm = Scheduler(sbatch="41", squeue="RUNNING||h7", scontrol_job=lambda: next(states),
                      scontrol_hostnames="h7\n", scontrol_node="NodeName=h7 NodeAddr=10.0.0.7")
    with pytest.raises(SlurmError, match="got 1 node"):
        allocate(commands.request(CLUSTER, TEST, False), slurm, *fake_clock())
    assert slurm.cancelled()


def test_interrupt_while_queued_cancels():
    def interrupt() -> str:
        raise KeyboardInterrupt
    slurm = Scheduler(sbatch="41", squeue=interrupt, scontrol_job="JobState=CANCELLED")
    with pytest.raises(KeyboardInterrupt):
        allocate(commands.request(CLUSTER, TEST, False), slurm, *fake_clock())
    assert slurm.cancelled()


def test_allocation_reads_nodes_and_records_its_end():
    ended = iter(["JobState=RUNNING NodeList=h[7-8]", "JobState=CANCELLED NodeList=h[7-8]"])
    slurm = Scheduler(sbatch="41", squeue="RUNNING||h[7-8]", scontrol_job=lambda: next(ended),
                      scontrol_hostnames="h7\nh8\n",
                      scontrol_node="NodeName=h8 NodeAddr=10.0.0.18\nNodeName=h7 NodeAddr=10.0.0.17\n")
    alloc = allocate(commands.request(CLUSTER, TEST, False), slurm, *fake_clock())
    assert (alloc.nodes, alloc.addresses) == (("h7", "h8"), ("10.0.0.17", "10.0.0.18"))
    alloc.release(slurm)
    alloc.release(slurm)
    assert [c for c in slurm.calls if c[0] == "scancel"] == [["scancel", "41"]]
    assert alloc.facts()["final_state"] == "CANCELLED" and alloc.facts()["states"] == ["RUNNING", "CANCELLED"]


PARTITION = "PartitionName=short MaxTime=00:05:00 State=UP TotalNodes=2 Default=NO"


def test_plan_checks_each_say_what_is_wrong():
    req = commands.request(CLUSTER, TEST, gpus=True)
    found = checks.problems(req, Scheduler(scontrol_partition=PARTITION, sinfo="gpu:2\n"))
    assert len(found) == 2, found
    assert "time limit of 25 min" in found[0] and "allows 00:05:00" in found[0]
    assert "4 GPU(s) per node" in found[1] and "have 2" in found[1]
    missing = Scheduler(scontrol_partition=(1, "Partition debug not found"))
    assert checks.problems(req, missing) == [
        "cluster config: EXECUTOR = 'slurm': SLURM_PARTITION = 'debug': Slurm has no such "
        "partition (`sinfo -s` lists them)"]
    away = Scheduler(scontrol_partition=(1, "slurm_load_partitions: Unable to contact slurm controller"))
    (problem,) = checks.problems(req, away)
    assert "Slurm is not reachable" in problem and "Unable to contact" in problem


def test_too_many_nodes_and_down_partition():
    req = commands.request(ClusterConfig(hosts=(), executor="slurm", slurm=SlurmConfig(3)), TEST, False)
    part = "PartitionName=closed MaxTime=UNLIMITED State=DOWN TotalNodes=2 Default=YES"
    (problem,) = checks.problems(req, Scheduler(scontrol_partition=part))
    assert "SLURM_NODES = 3 but partition closed has 2 node(s)" in problem
    assert "closed is DOWN" in checks.warnings(req, Scheduler(scontrol_partition=part))[0]


def test_clean_with_a_slurm_config_says_what_to_do_instead():
    from chipperf.errors import ConfigError
    from chipperf.run.leftovers import clean

    with pytest.raises(ConfigError, match="EXECUTOR = 'slurm' names no hosts to clean"):
        clean(CLUSTER)


def test_a_job_slurm_ended_is_no_longer_held():
    slurm = Scheduler(squeue="", scontrol_job="JobState=NODE_FAIL NodeList=h[7-8]")
    alloc = Allocation(commands.request(CLUSTER, TEST, False), [], "41", nodes=("h7", "h8"))
    assert alloc.lost(slurm) == ("slurm job 41 is NODE_FAIL: its nodes (h7, h8) are no longer "
                                 "held for this run")
    assert alloc.lost(Scheduler(squeue="RUNNING||h[7-8]")) == ""


def test_a_job_still_completing_is_named_by_the_state_it_ends_in():
    """An outside scancel shows COMPLETING in squeue first (for seconds, with no end state
    yet): said at once, and asked again, the state it ends in is named."""
    ending = iter(["JobState=COMPLETING NodeList=h[7-8]", "JobState=CANCELLED NodeList=h[7-8]"])
    slurm = Scheduler(squeue="COMPLETING||h[7-8]", scontrol_job=lambda: next(ending))
    alloc = Allocation(commands.request(CLUSTER, TEST, False), [], "41", nodes=("h7", "h8"))
    assert alloc.lost(slurm) == ("slurm job 41 is COMPLETING (Slurm is ending it): its nodes "
                                 "(h7, h8) are no longer held for this run")
    assert not any(c[0] == "scontrol" for c in slurm.calls)       # said without waiting
    assert alloc.lost(slurm) == ("slurm job 41 is CANCELLED: its nodes (h7, h8) are no longer "
                                 "held for this run")
    assert alloc.states == ["COMPLETING", "CANCELLED"]
