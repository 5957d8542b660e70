"""End to end: the llama3_8b LLM serving case through `inference/run.py` on one simulated
host, in the cpu vendor's inference image, at the cpu vendor's CI size: offline, single-stream
and server scenarios once each (run by MLPerf LoadGen, its logs in the round's directory), their
figures in FINISHED and in the run's report."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import yaml
from conftest import REPO, latest_run_dir, leftovers

from chipperf.results.layout import read_status
from chipperf_runtime.perflog import finished_problems, parse_lines

pytestmark = pytest.mark.e2e

CASE_DIR = "llama3_8b-pytorch_2.13-xeon-1x1"


def test_llm_serving_case_through_the_engine(tmp_path, sim_cluster, prompts):
    host = sim_cluster.hosts[0].address
    host_yaml = tmp_path / "host.yaml"
    host_yaml.write_text(yaml.safe_dump({
        "HOSTS": [host], "SSH_USER": "root", "SSH_KEY": sim_cluster.ssh_key,
        "KNOWN_HOSTS": sim_cluster.known_hosts, "VENDOR": "cpu", "CHIP": "xeon",
        "SHM_SIZE": "1g", "FLAGPERF_LOG_PATH": str(tmp_path / "result"),
        "WORK_ROOT": "/tmp/chipperf-e2e", "ROUND_TIMEOUT": 1200,
        "CASES": {"llama3_8b:pytorch_2.13": str(prompts)}}))
    proc = subprocess.run([sys.executable, str(REPO / "inference/run.py"), "--host-config",
                           str(host_yaml)], cwd=tmp_path, capture_output=True, text=True,
                          timeout=3000, env={**os.environ, "PYTHONPATH": str(REPO)})
    run_dir = latest_run_dir(tmp_path / "result")
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-8000:]
    assert json.loads((run_dir / "run.json").read_text())["status"] == "succeeded"
    (node,) = (run_dir / CASE_DIR / "round1").iterdir()
    assert read_status(node) == ("succeeded", "")
    events, problems = parse_lines((node / "rank0.out.log").read_text().splitlines())
    assert problems == []
    (f,) = [e.value for e in events if e.name == "FINISHED"]
    assert finished_problems(f, "inference") == [] and f["converged"] is True
    serving = f["serving"]
    for scenario in (serving["offline"], serving["single_stream"], *serving["server"]["rates"]):
        assert scenario["tokens_per_s"] > 0 and scenario["ttft_ms"]["p99"] > 0
    assert serving["server"]["rates"]
    # MLPerf LoadGen ran each scenario; its logs came home with the round's node directory
    for scenario in (serving["offline"], serving["single_stream"], *serving["server"]["rates"]):
        assert (node / scenario["loadgen"]["logs"] / "mlperf_log_summary.txt").is_file()
    summary = (run_dir / "summary.md").read_text()
    assert "### LLM serving (times in ms)" in summary and "| 1 | single stream | 3 |" in summary
    assert leftovers(sim_cluster, run_dir.name) == []
