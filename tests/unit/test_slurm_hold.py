"""The run's hold on its Slurm nodes (issue 42): SLURM_TIME_LIMIT checked against the run's
length at plan time; a job Slurm ended is seen during a round (the round stops at once) and
before each round; a Slurm that does not answer neither ends the run nor confirms a release."""

from __future__ import annotations

import threading
import time
from types import SimpleNamespace

import pytest
from test_slurm import CLUSTER, TEST, Scheduler, cluster_from

from chipperf.config.model import ClusterConfig, SlurmConfig
from chipperf.remote.host import CommandResult
from chipperf.run.holdwatch import HoldLost, HoldWatch
from chipperf.run.node import NodeState
from chipperf.run.roundwait import wait_round
from chipperf.slurm import checks, commands
from chipperf.slurm.allocation import Allocation

PARTITION = "PartitionName=debug MaxTime=UNLIMITED State=UP TotalNodes=2 Default=YES"
UNREACHABLE = (1, "slurm_load_jobs error: Unable to contact slurm controller (connect failure)")


def limited(minutes: int) -> ClusterConfig:
    slurm = SlurmConfig(nodes=2, partition="debug", time_limit_min=minutes)
    return ClusterConfig(hosts=slurm.placeholders, executor="slurm", slurm=slurm)


def test_slurm_time_limit_is_read_and_asked_for(tmp_path):
    cluster, problems = cluster_from(tmp_path, "EXECUTOR = 'slurm'\nSLURM_NODES = 2\n"
                                     "SLURM_TIME_LIMIT = '1:30:00'\n")
    assert problems == [] and cluster.slurm is not None and cluster.slurm.time_limit_min == 90
    assert "--time=90" in commands.sbatch_argv(commands.request(cluster, TEST, False))


@pytest.mark.parametrize("text, problem", [
    ("SLURM_TIME_LIMIT = 'soon'\n", "SLURM_TIME_LIMIT: 'soon' is not valid"),
    ("SLURM_TIME_LIMIT = 0\n", "must be between 1 minute and 366 days"),
    ("SLURM_EXTRA_ARGS = ['--time=30']\n", "SLURM_EXTRA_ARGS: sets the job's time limit"),
    ("SLURM_EXTRA_ARGS = ['-t', '30']\n", "give it as SLURM_TIME_LIMIT instead"),
])
def test_a_time_limit_given_elsewhere_or_unreadable_is_named(tmp_path, text, problem):
    _, problems = cluster_from(tmp_path, "EXECUTOR = 'slurm'\nSLURM_NODES = 2\n" + text)
    assert any(problem in p for p in problems), problems


def test_plan_refuses_a_limit_that_holds_no_round_and_warns_below_the_run_length():
    # TEST: 3 rounds x 300 s + the 600 s margin = 25 min; one round + margin = 15 min
    short = commands.request(limited(14), TEST, False)
    (problem,) = checks.problems(short, Scheduler(scontrol_partition=PARTITION))
    assert "SLURM_TIME_LIMIT = 14 min is shorter than 10 min for preflight" in problem
    assert "15 min at least; the run would need 25 min" in problem
    cut = commands.request(limited(20), TEST, False)
    assert checks.problems(cut, Scheduler(scontrol_partition=PARTITION)) == []
    (warning,) = checks.warnings(cut, Scheduler(scontrol_partition=PARTITION))
    assert "SLURM_TIME_LIMIT = 20 min is under the run's longest length, 25 min" in warning
    assert "stops the run at once, keeping the rounds measured before" in warning
    whole = commands.request(limited(25), TEST, False)
    assert checks.warnings(whole, Scheduler(scontrol_partition=PARTITION)) == []


def allocation() -> Allocation:
    return Allocation(commands.request(CLUSTER, TEST, False), [], "41", nodes=("h7", "h8"))


def test_a_slurm_that_does_not_answer_does_not_end_the_run(caplog):
    alloc = allocation()
    assert alloc.lost(Scheduler(squeue=UNREACHABLE)) == alloc.lost(Scheduler(squeue=UNREACHABLE)) == ""
    assert sum("Slurm did not answer" in r.getMessage() for r in caplog.records) == 1   # said once


def test_a_job_slurm_no_longer_knows_is_gone():
    slurm = Scheduler(squeue=(1, "slurm_load_jobs error: Invalid job id specified"))
    assert allocation().lost(slurm).startswith("slurm job 41 is GONE: its nodes (h7, h8)")


def test_a_release_slurm_did_not_confirm_is_recorded_unconfirmed(monkeypatch):
    monkeypatch.setattr("chipperf.slurm.allocation.RELEASE_WAIT_S", 0.3)
    alloc = allocation()
    alloc.release(Scheduler(scancel=UNREACHABLE, scontrol_job=UNREACHABLE))
    facts = alloc.facts()
    assert facts["release"] == "unconfirmed" and facts["final_state"] is None, facts
    assert "GONE" not in facts["states"]


def test_a_job_slurm_is_still_completing_is_waited_for_past_the_release_wait(monkeypatch):
    """A node that stopped answering keeps the cancelled job COMPLETING until slurmctld marks
    it down (SlurmdTimeout): CI's loaded controller took longer than RELEASE_WAIT_S, and the
    release was recorded unconfirmed though Slurm was ending the job."""
    monkeypatch.setattr("chipperf.slurm.allocation.RELEASE_WAIT_S", 0.1)
    answers = iter(["JobState=COMPLETING"] * 4 + ["JobState=NODE_FAIL"])
    alloc = allocation()
    alloc.release(Scheduler(scontrol_job=lambda: next(answers)))
    assert alloc.facts()["release"] == "confirmed" and alloc.facts()["final_state"] == "NODE_FAIL"
    monkeypatch.setattr("chipperf.slurm.allocation.COMPLETING_WAIT_S", 0.3)
    stuck = allocation()
    stuck.release(Scheduler(scontrol_job="JobState=COMPLETING"))
    assert stuck.facts()["release"] == "unconfirmed"


def test_a_release_of_a_job_slurm_ended_first_names_its_end():
    alloc = allocation()
    alloc.release(Scheduler(scancel=(1, "scancel: error: Kill job error on job id 41: Job/step "
                                        "already completing or completed"),
                            scontrol_job="JobState=TIMEOUT NodeList=h[7-8]"))
    assert alloc.facts()["release"] == "confirmed" and alloc.facts()["final_state"] == "TIMEOUT"


def test_the_hold_is_asked_when_due_and_its_end_is_kept():
    now = [0.0]
    answers = iter(["", "slurm job 41 is COMPLETING", "slurm job 41 is TIMEOUT"])
    watch = HoldWatch(lambda: next(answers), every_s=5, clock=lambda: now[0])
    assert watch.check() == "" and watch.due_in() == 5
    now[0] = 3
    assert watch.check() == ""                     # not due: not asked
    now[0] = 5
    assert watch.check() == "slurm job 41 is COMPLETING"
    assert watch.check(now=True) == "slurm job 41 is COMPLETING"   # kept once said
    # asked again after the round: the state the job ended in
    with pytest.raises(HoldLost, match="case x round 2 not started: slurm job 41 is TIMEOUT"):
        watch.stop_if_lost("case x round 2 not started")
    assert not HoldWatch().active and HoldWatch().check(now=True) == ""


class Running:
    """A case container that runs until the test ends it (or its wait times out)."""

    def __init__(self) -> None:
        self.ended = threading.Event()

    def wait(self, timeout: float | None = None) -> dict:
        self.ended.wait(timeout)
        return {"StatusCode": 0}


class Answering:
    name = "10.0.0.7"

    def run(self, argv, timeout=None, check=True):
        return CommandResult(tuple(argv), 0, "", "")


def test_a_round_stops_at_once_when_the_hold_ends():
    node = SimpleNamespace(host="10.0.0.7", node_rank=0, output_dir="/w/x", result_rel="c/round1/n")
    state = NodeState(node)  # type: ignore[arg-type]
    state.status, state.container = "running", Running()
    hosts = {"10.0.0.7": Answering()}
    group = type("Group", (dict,), {"silent": set()})(hosts)
    case, rnd = SimpleNamespace(key="c"), SimpleNamespace(number=1, timeout_s=600, nodes=[node])
    answers = iter(["", "slurm job 41 is TIMEOUT: its nodes (h7) are no longer held"])
    started = time.monotonic()
    try:
        wait_round(group, case, rnd, [state], 60, hold=HoldWatch(lambda: next(answers), 0.2))
    finally:
        state.container.ended.set()
    assert time.monotonic() - started < 5
    assert state.status == "canceled" and state.stop_grace_s == 1   # killed, not waited for
    assert state.reason == "stopped at once: slurm job 41 is TIMEOUT: its nodes (h7) are no longer held"
