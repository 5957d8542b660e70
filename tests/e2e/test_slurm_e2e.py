"""End to end with EXECUTOR = "slurm" on real Slurm daemons: slurmctld on the master
(10.231.0.1), slurmd in the simulated hosts h7 and h8 (`simcluster.py slurm-up`, munge auth).

A training case and a base/ case across the two Slurm nodes; Ctrl-C mid-round; a node lost
mid-round; the job ended under the run; a partition that does not exist; a job that cannot
start (QUEUE_TIMEOUT). After
each: nothing of the run's in squeue, and run.json's job (id, nodes, state) is the one the
scheduler recorded (jobcomp/filetxt: the simulated cluster has no accounting database)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml
from conftest import REPO, WORK_ROOT, chipperf, latest_run_dir, leftovers
from test_fault_injection import SIMCLUSTER
from test_fault_injection_hosts import tiny_digits, tiny_training  # noqa: F401 (fixtures)

# One slurmctld and one pair of Slurm nodes per machine: under pytest-xdist this file's
# tests must run one after another on one worker (.ci/run: `--dist loadfile`; pytest-xdist
# 3.8's xdist_group marks do nothing under pytest 9.2, which keeps a node's id in `_id`).
pytestmark = pytest.mark.e2e

NODES = ("h7", "h8")                      # simcluster.py DEFAULT_SLURM_NODES
JOBCOMP = Path("/var/lib/chipperf-sim/slurm/jobcomp.txt")
TRAIN = "resnet50:pytorch_2.13:xeon:2:1:1"
TRAIN_DIR = "resnet50-pytorch_2.13-xeon-2x1"
LOST_AFTER = 15


def simcluster(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SIMCLUSTER), *args], capture_output=True, text=True,
                          timeout=600, stdin=subprocess.DEVNULL, check=False)


@pytest.fixture
def slurm_cluster():
    """h7, h8 up as Slurm nodes, before every test (idempotent, ~1 s when healthy): a test
    that broke one, or an `up --hosts N` elsewhere with N < 7, may have removed them."""
    up = simcluster("slurm-up", "--nodes", ",".join(NODES))
    if up.returncode != 0:
        pytest.fail(f"`simcluster.py slurm-up` failed:\n{up.stderr[-4000:]}", pytrace=False)
    state = json.loads(Path("/run/chipperf-sim/cluster.json").read_text())
    hosts = [SimpleNamespace(**h) for h in state["hosts"] if h["name"] in NODES]
    return SimpleNamespace(hosts=hosts, ssh_key=state["ssh_key"], known_hosts=state["known_hosts"])


@pytest.fixture
def nothing_queued(slurm_cluster):
    """After the test: no chipperf job of ours in squeue (else it fails, and cancels them)."""
    yield
    left = queued()
    for job in left:
        subprocess.run(["scancel", job], check=False)
    assert left == [], f"jobs left in squeue: {left}"


def queued() -> list[str]:
    out = subprocess.run(["squeue", "--noheader", "--name=chipperf", "--format=%i"],
                         capture_output=True, text=True, check=True).stdout
    return out.split()


def write_cluster_conf(where: Path, slurm_cluster, **settings: object) -> Path:
    values = {"EXECUTOR": "slurm", "SLURM_NODES": 2, "QUEUE_TIMEOUT": 60, "SSH_USER": "root",
              "SSH_KEY": slurm_cluster.ssh_key, "KNOWN_HOSTS": slurm_cluster.known_hosts,
              "MASTER_PORT": 29571, "WORK_ROOT": WORK_ROOT, "CONNECT_TIMEOUT": 5, **settings}
    path = where / "cluster_conf.py"
    path.write_text("".join(f"{k} = {v!r}\n" for k, v in values.items()))
    return path


def write_test_conf(where: Path, cases: dict[str, str], extra: str = "") -> Path:
    path = where / "test_conf.py"
    path.write_text(f"VENDOR = 'cpu'\nCASES = {cases!r}\nSHM_SIZE = '1g'\n"
                    f"RESULT_ROOT = {str(where / 'result')!r}\nROUND_TIMEOUT = 900\n" + extra)
    return path


def jobcomp(job_id: str, timeout: float = 30) -> dict[str, str]:
    """The scheduler's own record of a finished job (its jobcomp/filetxt line)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for line in JOBCOMP.read_text().splitlines() if JOBCOMP.exists() else []:
            if line.startswith(f"JobId={job_id} "):
                return dict(re.findall(r"(\w+)=(\S*)", line))
        time.sleep(0.5)
    raise AssertionError(f"job {job_id} not in {JOBCOMP}")


def settled_leftovers(slurm_cluster, run_id: str, timeout: float = 15) -> list[str]:
    """leftovers() once the hosts' lease holders have gone: the two nodes share one file
    system, and the run's parent work dir can outlive the master by a moment (seen once:
    gone a few seconds later)."""
    deadline = time.monotonic() + timeout
    while (left := leftovers(slurm_cluster, run_id)) and time.monotonic() < deadline:
        time.sleep(1)
    return left


def hostnames(nodelist: str) -> list[str]:
    return subprocess.run(["scontrol", "show", "hostnames", nodelist], capture_output=True,
                          text=True, check=True).stdout.split()


def assert_matches_scheduler(record: dict, state: str) -> dict[str, str]:
    job = record["executor"]
    assert job["kind"] == "slurm" and job["final_state"] == state, job
    theirs = jobcomp(job["job_id"])
    assert theirs["JobState"] == state, theirs
    assert hostnames(theirs["NodeList"]) == job["nodes"] == list(NODES), (theirs, job)
    assert theirs["Name"] == "chipperf" and theirs["NodeCnt"] == "2"
    return theirs


def test_training_case_across_two_slurm_nodes(tmp_path, slurm_cluster, tiny_digits,  # noqa: F811
                                              tiny_training, nothing_queued):  # noqa: F811
    cluster = write_cluster_conf(tmp_path, slurm_cluster)
    test = write_test_conf(tmp_path, {TRAIN: str(tiny_digits)}, f"TRAINING_DIR = {str(tiny_training)!r}\n")
    plan = chipperf("plan", "--cluster", str(cluster), "--test", str(test), cwd=tmp_path)
    assert plan.returncode == 0 and "slurm       sbatch --parsable --job-name=chipperf --nodes=2" \
        in plan.output, plan
    assert queued() == []                                   # plan queues nothing

    run = chipperf("run", "--cluster", str(cluster), "--test", str(test), cwd=tmp_path)
    assert run.returncode == 0, run
    record = json.loads((run.run_dir / "run.json").read_text())
    assert record["status"] == "succeeded"
    addresses = [h.address for h in slurm_cluster.hosts]
    assert record["executor"]["addresses"] == addresses
    assert sorted(p.name for p in (run.run_dir / TRAIN_DIR / "round1").iterdir()) == [
        f"{addresses[0]}_noderank0", f"{addresses[1]}_noderank1"]
    assert_matches_scheduler(record, "CANCELLED")            # released by scancel
    assert settled_leftovers(slurm_cluster, run.run_dir.name) == []


def test_base_case_across_two_slurm_nodes(tmp_path, slurm_cluster, nothing_queued):
    host_yaml = tmp_path / "host.yaml"
    host_yaml.write_text(yaml.safe_dump({
        "EXECUTOR": "slurm", "SLURM_NODES": 2, "SLURM_PARTITION": "debug", "NPROC_PER_NODE": 1,
        "SSH_USER": "root", "SSH_KEY": slurm_cluster.ssh_key, "KNOWN_HOSTS": slurm_cluster.known_hosts,
        "VENDOR": "cpu", "CHIP": "xeon", "SHM_SIZE": "1g", "FLAGPERF_LOG_PATH": str(tmp_path / "result"),
        "MASTER_PORT": 29573, "WORK_ROOT": WORK_ROOT, "ROUND_TIMEOUT": 900,
        "CASES": {"interconnect-P2P_interserver": "pytorch_2.13"}}))
    proc = subprocess.run([sys.executable, str(REPO / "base" / "run.py"), "--host-config", str(host_yaml)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=1800,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    run_dir = latest_run_dir(tmp_path / "result")
    assert proc.returncode == 0 and run_dir is not None, proc.stdout[-3000:] + proc.stderr[-6000:]
    record = json.loads((run_dir / "run.json").read_text())
    assert record["status"] == "succeeded", record["cases"]
    (case,) = record["cases"].values()
    nodes = sorted(p.name for p in (run_dir / next(iter(record["cases"])) / "round1").iterdir())
    assert case["status"] == "succeeded" and len(nodes) == 2, nodes   # across both nodes
    assert_matches_scheduler(record, "CANCELLED")
    assert settled_leftovers(slurm_cluster, run_dir.name) == []


def test_ctrl_c_mid_round_cancels_the_job(tmp_path, slurm_cluster, tiny_digits, tiny_training,  # noqa: F811
                                          background, nothing_queued):
    cluster = write_cluster_conf(tmp_path, slurm_cluster)
    test = write_test_conf(tmp_path, {TRAIN: str(tiny_digits)}, f"TRAINING_DIR = {str(tiny_training)!r}\n")
    run = background(tmp_path, cluster, test)
    run.wait_for(": started chipperf-", 1)
    run.stop()                                              # SIGINT, as Ctrl-C
    assert run.proc.returncode == 130, run.log.read_text()[-4000:]
    assert queued() == []
    run_dir = latest_run_dir(tmp_path / "result")
    record = json.loads((run_dir / "run.json").read_text())
    assert record["status"] == "canceled"
    assert_matches_scheduler(record, "CANCELLED")
    assert settled_leftovers(slurm_cluster, run_dir.name) == []


def test_node_lost_mid_round(tmp_path, slurm_cluster, tiny_digits, tiny_training,  # noqa: F811
                             background, nothing_queued):
    """h8's link goes down in round 1: chipperf loses it after HOST_LOST_AFTER, Slurm after
    SlurmdTimeout (NODE_FAIL); the run fails naming it, and the job is gone from squeue."""
    cluster = write_cluster_conf(tmp_path, slurm_cluster, HOST_LOST_AFTER=LOST_AFTER)
    test = write_test_conf(tmp_path, {TRAIN: str(tiny_digits)}, f"TRAINING_DIR = {str(tiny_training)!r}\n")
    run = background(tmp_path, cluster, test)
    run.wait_for(": started chipperf-", 2)
    veth = f"cpv-{NODES[1]}"
    subprocess.run(["ip", "link", "set", veth, "down"], check=True)
    try:
        code = run.proc.wait(timeout=300)
    finally:
        subprocess.run(["ip", "link", "set", veth, "up"], check=False)
    output = run.log.read_text()
    assert code == 1, output[-4000:]
    run_dir = latest_run_dir(tmp_path / "result")
    record = json.loads((run_dir / "run.json").read_text())
    lost = slurm_cluster.hosts[1].address
    assert record["cases"][TRAIN_DIR]["rounds"][0]["lost_hosts"] == [lost], record["cases"]
    assert queued() == []
    assert record["executor"]["final_state"] in ("CANCELLED", "NODE_FAIL"), record["executor"]
    # Slurm's own record may say NODE_FAIL where chipperf's scancel came first (or the reverse)
    assert jobcomp(record["executor"]["job_id"])["JobState"] in ("CANCELLED", "NODE_FAIL")
    repaired = simcluster("slurm-up", "--nodes", ",".join(NODES))   # node back, resumed
    assert repaired.returncode == 0, repaired.stderr[-3000:]
    simcluster("up", "--only", NODES[1])
    subprocess.run(["rm", "-rf", f"{WORK_ROOT}/{run_dir.name}"], check=False)
    # The lost run's cluster lease on h8 is held by a shell fed by an SSH session whose master
    # end closed while the link was down: it ends when h8's sshd drops that dead session
    # (ClientAliveInterval 30 s x 3 in the simulated hosts); the next test needs h8 free.
    assert lease_freed(slurm_cluster, lost, timeout=150), f"{lost}'s cluster lease still held"


def lease_freed(slurm_cluster, address: str, timeout: float) -> bool:
    """True once the cluster lease lock of the host at ``address`` can be taken (and let go)."""
    probe = ('net=$(readlink /proc/self/ns/net | tr -cd 0-9); '
             'lock="/tmp/chipperf-host-$(uname -n)-${net:-0}.lease"; '
             '[ ! -e "$lock" ] || flock --nonblock "$lock" true')
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        free = subprocess.run(["ssh", "-i", slurm_cluster.ssh_key, "-o", "BatchMode=yes",
                               "-o", f"UserKnownHostsFile={slurm_cluster.known_hosts}",
                               f"root@{address}", probe], capture_output=True, timeout=30)
        if free.returncode == 0:
            return True
        time.sleep(2)
    return False


def test_job_ended_by_slurm_mid_round_stops_the_run_at_once(tmp_path, slurm_cluster, tiny_digits,  # noqa: F811
                                                             tiny_training, background,  # noqa: F811
                                                             nothing_queued):
    """The job is ended under the run mid-round (here `scancel` by someone else; NODE_FAIL,
    TIMEOUT and PREEMPTED are the same to chipperf): the round stops at once and no further
    round or case starts; the time between the round's end and the next job's start on the
    same nodes is printed."""
    two_rounds, one_node = TRAIN[:-1] + "2", "resnet50:pytorch_2.13:xeon:1:1:1"
    cluster = write_cluster_conf(tmp_path, slurm_cluster)
    test = write_test_conf(tmp_path, {two_rounds: str(tiny_digits), one_node: str(tiny_digits)},
                           f"TRAINING_DIR = {str(tiny_training)!r}\n")
    run = background(tmp_path, cluster, test)
    run.wait_for(": started chipperf-", 2)
    job_id = re.search(r"slurm job (\d+) submitted", run.log.read_text()).group(1)
    subprocess.run(["scancel", job_id], check=True)
    cancelled = time.time()
    after = tmp_path / "after_started"
    subprocess.run(["sbatch", "--parsable", "--job-name=after42", "--nodes=2", "--exclusive",
                    "--output=/dev/null", f"--chdir={tmp_path}", f"--wrap=date +%s.%N >> {after}"],
                   check=True, capture_output=True)
    assert run.proc.wait(timeout=120) == 1, run.log.read_text()[-4000:]
    stopped_s = time.time() - cancelled
    record = json.loads((latest_run_dir(tmp_path / "result") / "run.json").read_text())
    cases = {c["key"]: c for c in record["cases"].values()}
    lost = f"slurm job {job_id} is CANCELLED: its nodes (h7, h8) are no longer held for this run"
    (round1,) = cases[two_rounds]["rounds"]                 # round 2 never started
    assert round1["status"] == "canceled", round1
    assert re.search(f"stopped at once: slurm job {job_id} is (COMPLETING \\(Slurm is ending it\\)|"
                     "CANCELLED): its nodes", round1["reason"]), round1
    assert cases[two_rounds]["status"] == cases[one_node]["status"] == "failed"
    assert cases[one_node]["reason"] == f"case {two_rounds} round 1: {lost}"
    assert record["executor"]["final_state"] == "CANCELLED" and record["executor"]["release"] == "confirmed"
    ended_ms = round1["finished_ms"]                       # its containers stopped and removed
    deadline = time.monotonic() + 30
    while not after.exists() and time.monotonic() < deadline:
        time.sleep(0.5)
    starts = [float(t) for t in after.read_text().split()]
    print(f"run stopped {stopped_s:.1f} s after scancel; the next job started "
          f"{min(starts) - ended_ms / 1000:+.1f} s after the round ended (its containers removed)")
    assert stopped_s < 60 and starts
    # The round ended (containers killed, then removed, then files collected) within a poll or
    # two of the cancel. It need not end before the next job starts: Slurm gives the nodes away
    # once the cancelled job's own processes end, and chipperf's containers are not among them
    # (docs/slurm.md: the next job started 1.5 s before and 1.5 s after the round's end here).
    assert ended_ms / 1000 - cancelled < 20, (ended_ms, cancelled)


def test_partition_that_does_not_exist(tmp_path, slurm_cluster, nothing_queued):
    before = JOBCOMP.read_text() if JOBCOMP.exists() else ""
    cluster = write_cluster_conf(tmp_path, slurm_cluster, SLURM_PARTITION="nosuch")
    test = write_test_conf(tmp_path, {TRAIN: "/tmp"})
    for command in ("plan", "run"):
        run = chipperf(command, "--cluster", str(cluster), "--test", str(test), cwd=tmp_path)
        assert run.returncode == 2, run
        assert "SLURM_PARTITION = 'nosuch': Slurm has no such partition" in run.output, run
        assert run.run_dir is None
    assert queued() == [] and (JOBCOMP.read_text() if JOBCOMP.exists() else "") == before


@pytest.mark.parametrize("vendor, case, partition, problem", [
    ("cpu", TRAIN, "short", "the run needs a time limit of 25 min (every round's deadline + 10 min) "
                            "but partition short allows 00:05:00"),
    ("nvidia", "resnet50:pytorch_2.13:A100:2:8:1", "debug",
     "the cases need 8 GPU(s) per node (nproc) but the nodes of partition debug have 0 (sinfo %G)"),
])
def test_plan_finds_what_slurm_cannot_give(tmp_path, slurm_cluster, nothing_queued, vendor, case,
                                           partition, problem):
    cluster = write_cluster_conf(tmp_path, slurm_cluster, SLURM_PARTITION=partition)
    test = write_test_conf(tmp_path, {case: "/tmp"})
    test.write_text(test.read_text().replace("VENDOR = 'cpu'", f"VENDOR = {vendor!r}"))
    for command in ("plan", "run"):
        run = chipperf(command, "--cluster", str(cluster), "--test", str(test), cwd=tmp_path)
        assert run.returncode == 2 and problem in run.output, run
        assert run.run_dir is None and queued() == []


def test_plan_compares_the_run_length_with_slurm_time_limit(tmp_path, slurm_cluster, nothing_queued):
    """ROUND_TIMEOUT 900 s, one round: the run needs 25 min at most, one round 25 min at least."""
    test = write_test_conf(tmp_path, {TRAIN: "/tmp"})
    for limit, code, said in ((12, 2, "SLURM_TIME_LIMIT = 12 min is shorter than 10 min for "
                                      "preflight, images and teardown plus one round's deadline"),
                              ("0:30:00", 0, "--time=30")):
        cluster = write_cluster_conf(tmp_path, slurm_cluster, SLURM_TIME_LIMIT=limit)
        run = chipperf("plan", "--cluster", str(cluster), "--test", str(test), cwd=tmp_path)
        assert run.returncode == code and said in run.output, run
        assert run.run_dir is None and queued() == []


def test_job_that_cannot_start_is_cancelled_at_queue_timeout(tmp_path, slurm_cluster, nothing_queued):
    """Partition `closed` is State=DOWN: the job pends (PartitionDown) until QUEUE_TIMEOUT."""
    cluster = write_cluster_conf(tmp_path, slurm_cluster, SLURM_PARTITION="closed", QUEUE_TIMEOUT=5)
    test = write_test_conf(tmp_path, {TRAIN: "/tmp"})
    started = time.monotonic()
    run = chipperf("run", "--cluster", str(cluster), "--test", str(test), cwd=tmp_path)
    assert run.returncode == 1, run
    assert time.monotonic() - started < 60
    assert "partition closed is DOWN" in run.output
    match = re.search(r"slurm job (\d+) still PENDING after QUEUE_TIMEOUT = 5 s \(reason: "
                      r"PartitionDown\): cancelled", run.output)
    assert match, run
    assert queued() == [] and run.run_dir is None
    assert jobcomp(match.group(1))["JobState"] == "CANCELLED"


@pytest.mark.skipif(not os.environ.get("CHIPPERF_E2E_SLURM_TIME_LIMIT"),
                    reason="Slurm counts time limits in whole minutes, so this run lasts over "
                           "60 s: run by hand with CHIPPERF_E2E_SLURM_TIME_LIMIT=1 "
                           "(docs/validation.md); TIMEOUT takes the path scancel's test drives")
def test_job_ended_by_its_time_limit_mid_round_stops_the_run(tmp_path, slurm_cluster, tiny_digits,  # noqa: F811
                                                              tiny_training, background,  # noqa: F811
                                                              nothing_queued):
    """The holding job's limit is cut to one minute under the run (`scontrol update
    TimeLimit=1`): Slurm ends it mid-round, that round stops at once, the rounds measured
    before it are kept and no further round starts."""
    rounds = TRAIN[:-1] + "40"
    cluster = write_cluster_conf(tmp_path, slurm_cluster)
    test = write_test_conf(tmp_path, {rounds: str(tiny_digits)},
                           f"TRAINING_DIR = {str(tiny_training)!r}\n")
    run = background(tmp_path, cluster, test)
    run.wait_for(": started chipperf-", 2)
    job_id = re.search(r"slurm job (\d+) submitted", run.log.read_text()).group(1)
    subprocess.run(["scontrol", "update", f"JobId={job_id}", "TimeLimit=1"], check=True)
    limited = time.time()
    assert run.proc.wait(timeout=240) == 1, run.log.read_text()[-4000:]
    record = json.loads((latest_run_dir(tmp_path / "result") / "run.json").read_text())
    (case,) = record["cases"].values()
    *before, last = case["rounds"]
    print(f"run ended {time.time() - limited:.1f} s after the limit was cut; "
          f"{len(before)} rounds before it, the last: {last['status']}: {last['reason']}")
    assert 0 < len(before) < 39 and all(r["status"] == "succeeded" for r in before), case["rounds"]
    assert last["status"] == "canceled", last
    assert re.search(f"stopped at once: slurm job {job_id} is (COMPLETING \\(Slurm is ending it\\)|"
                     "TIMEOUT): its nodes", last["reason"]), last
    assert record["executor"]["final_state"] == "TIMEOUT", record["executor"]
    assert record["executor"]["release"] == "confirmed", record["executor"]
