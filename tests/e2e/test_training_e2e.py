"""End to end: `chipperf run` of resnet50 across two simulated hosts, to FINISHED."""

from __future__ import annotations

import json

import pytest
from conftest import chipperf, leftovers, mlperf_compliant, write_configs

from chipperf.results import summarize
from chipperf.results.entry import check_main
from chipperf.results.layout import read_status
from chipperf_runtime.perflog import finished_problems, parse_lines

pytestmark = pytest.mark.e2e

CASE = "resnet50:pytorch_2.13:xeon:2:1:1"
CASE_DIR = "resnet50-pytorch_2.13-xeon-2x1"


def test_resnet50_across_two_hosts(sim_cluster, digits_dir, tmp_path):
    h1, h2 = sim_cluster.hosts[:2]
    cluster, test = write_configs(tmp_path, [h1.address, h2.address], {CASE: str(digits_dir)},
                                  ssh_key=sim_cluster.ssh_key, known_hosts=sim_cluster.known_hosts)
    run = chipperf("run", "--cluster", str(cluster), "--test", str(test), cwd=tmp_path)
    assert run.returncode == 0, run
    assert run.run_dir is not None and "succeeded" in run.output

    record = json.loads((run.run_dir / "run.json").read_text())
    assert record["status"] == "succeeded"
    assert record["cases"][CASE_DIR]["status"] == "succeeded"
    assert set(record["hosts"]) == {h1.address, h2.address}
    assert (run.run_dir / "run.log").stat().st_size > 0

    round_dir = run.run_dir / CASE_DIR / "round1"
    nodes = {p.name: p for p in round_dir.iterdir()}
    assert set(nodes) == {f"{h1.address}_noderank0", f"{h2.address}_noderank1"}
    for rank, name in enumerate(sorted(nodes)):
        node = nodes[name]
        assert read_status(node) == ("succeeded", "")
        assert (node / f"rank{rank}.out.log").is_file(), sorted(p.name for p in node.iterdir())
        launcher_log = (node / "launcher.log").read_text()
        # node 0's torchrun leaves only once node 1 has left the store behind the exit barrier
        assert "exit barrier" not in launcher_log and "Traceback" not in launcher_log, launcher_log

    text = (nodes[f"{h1.address}_noderank0"] / "rank0.out.log").read_text()
    events, problems = parse_lines(text.splitlines())
    assert problems == []
    finished = [e for e in events if e.name == "FINISHED"]
    assert len(finished) == 1
    value = finished[0].value
    assert finished_problems(value) == []
    assert value["world_size"] == 2 and value["dtype"] == "fp32"
    assert value["converged"] is True and value["metric"]["higher_is_better"] is True, value
    mlperf_compliant(nodes[f"{h1.address}_noderank0"] / "rank0.out.log", "resnet")

    # the run wrote its reports, and the directory passes the compliance checker
    for name in ("summary.json", "summary.csv", "report.html", f"{CASE_DIR}/result.json"):
        assert (run.run_dir / name).is_file(), name
    assert check_main(run.run_dir) == 0
    (case,) = summarize(run.run_dir).cases
    assert case.rounds[0].throughput is not None
    # the chip is the hosts' CPU (sys_info.json) beside the config key, and the image is
    # named for the suite (chipperf/training-cpu-...; the other suites' cpu PyTorch image is
    # the same build, tagged with their names)
    assert case.chip_model and case.chip_label == f"{case.chip_model} (xeon)", case.chip_label
    assert (case.image or "").startswith("chipperf/training-cpu-pytorch_2.13:"), case.image
    assert (nodes[f"{h1.address}_noderank0"] / "cpu_monitor.log").stat().st_size > 0

    assert leftovers(sim_cluster, run.run_dir.name) == []


def test_keep_going_runs_the_rest_and_records_what_it_skipped(sim_cluster, digits_dir, tmp_path):
    good, bad = "resnet50:pytorch_2.13:xeon:1:1:1", "resnet50:pytorch_2.13:xeon:1:3:1"
    h1 = sim_cluster.hosts[0]
    cluster, test = write_configs(tmp_path, [h1.address], {good: str(digits_dir), bad: str(digits_dir)},
                                  ssh_key=sim_cluster.ssh_key, known_hosts=sim_cluster.known_hosts,
                                  master_port=29561,   # a few timed steps: what is kept is tested
                                  extra_test="OVERRIDES = {'run_mode': 'performance', "
                                             "'perf_warmup_steps': 1, 'timed_steps': 2}\n")
    strict = chipperf("run", "--cluster", str(cluster), "--test", str(test), cwd=tmp_path)
    assert strict.returncode == 2 and strict.run_dir is None, strict
    run = chipperf("run", "--cluster", str(cluster), "--test", str(test), "--keep-going", cwd=tmp_path)
    assert run.returncode == 0, run
    assert f"skipped (--keep-going): {bad}: " in run.output and "config_xeonx1x3.py" in run.output
    record = json.loads((run.run_dir / "run.json").read_text())
    assert list(record["cases"]) == ["resnet50-pytorch_2.13-xeon-1x1"]
    assert record["cases"]["resnet50-pytorch_2.13-xeon-1x1"]["status"] == "succeeded"
    assert list(record["skipped"]) == [bad] and "missing vendor config" in record["skipped"][bad][0]
    assert check_main(run.run_dir) == 0
    assert leftovers(sim_cluster, run.run_dir.name) == []
