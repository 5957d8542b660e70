"""A master killed outright (SIGKILL) leaves its run.json "running": the next sweep that finds
the run on its hosts, `chipperf clean` or a later `chipperf run`, closes it as canceled,
naming why and who swept (issue 27, item 3; `chipperf collect`: test_fault_injection.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import test_fault_injection_hosts as hosts_tests
from conftest import chipperf, latest_run_dir, leftovers, write_configs

pytestmark = pytest.mark.e2e
tiny_digits, tiny_training = hosts_tests.tiny_digits, hosts_tests.tiny_training   # fixtures

TWO_ROUNDS = "resnet50:pytorch_2.13:xeon:2:1:2"
ONE_ROUND = "resnet50:pytorch_2.13:xeon:2:1:1"


def tiny_configs(where: Path, sim_cluster, case: str, tiny_digits: Path, tiny_training: Path):
    where.mkdir(exist_ok=True)
    return write_configs(where, [h.address for h in sim_cluster.hosts[:2]],
                         {case: str(tiny_digits)}, ssh_key=sim_cluster.ssh_key,
                         known_hosts=sim_cluster.known_hosts,
                         extra_test=f"TRAINING_DIR = {str(tiny_training)!r}\n")


def record_of(run_dir: Path) -> dict:
    return json.loads((run_dir / "run.json").read_text())


@pytest.mark.parametrize("sweeper", ["clean", "run"])
def test_the_next_sweep_closes_a_killed_masters_record(tmp_path, sim_cluster, tiny_digits,
                                                        tiny_training, background, sweeper):
    cluster, test = tiny_configs(tmp_path, sim_cluster, TWO_ROUNDS, tiny_digits, tiny_training)
    killed = background(tmp_path, cluster, test)
    killed.wait_for(": started chipperf-", 2)
    run_dir = latest_run_dir(tmp_path / "result")
    killed.proc.kill()
    killed.proc.wait(timeout=30)
    assert record_of(run_dir)["status"] == "running"
    if sweeper == "clean":
        swept, by = chipperf("clean", "--cluster", str(cluster), cwd=tmp_path), "chipperf clean"
    else:
        later = tmp_path / "later"
        cluster2, test2 = tiny_configs(later, sim_cluster, ONE_ROUND, tiny_digits, tiny_training)
        swept = chipperf("run", "--cluster", str(cluster2), "--test", str(test2), cwd=later)
        assert swept.returncode == 0, swept
        by = latest_run_dir(later / "result").name
    print(swept.output[-3000:])
    record = record_of(run_dir)
    assert record["status"] == "canceled" and record["finished_at"], record.get("error")
    assert record["swept"]["by"] == by and record["error"]["type"] == "MasterGone"
    assert record["error"]["message"].endswith(f"closed by {by}")
    assert f"closed {run_dir}/run.json as canceled" in swept.output
    if leftovers(sim_cluster, run_dir.name):   # a host still held the dead master's lease
        assert chipperf("collect", str(run_dir), cwd=tmp_path).returncode == 0
    assert leftovers(sim_cluster, run_dir.name) == []
