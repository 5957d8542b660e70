"""IN_CONTAINER_LAUNCH end to end: a base/ case run in a container that already exists.

The "container" is this machine, reached as chipperf's local host (127.0.0.1): chipperf
builds no image and starts no container; the case and its monitor run as processes there, and
the result tree is the one a Docker run writes (checked by ``chipperf check``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import yaml

from chipperf.results.layout import read_status
from chipperf.results.read.check import check

REPO = Path(__file__).resolve().parents[2]


def test_a_case_runs_in_the_existing_container(tmp_path):
    state = tmp_path / "state"
    host_yaml = tmp_path / "host.yaml"
    host_yaml.write_text(yaml.safe_dump({
        "HOSTS": ["127.0.0.1"], "NPROC_PER_NODE": 1, "VENDOR": "cpu", "CHIP": "xeon",
        "SHM_SIZE": "1g", "FLAGPERF_LOG_PATH": str(tmp_path / "result"), "MASTER_PORT": 29543,
        "WORK_ROOT": str(tmp_path / "work"), "ROUND_TIMEOUT": 300,
        "CASES": {"computation-FP32": "pytorch_2.13"}}))
    env = {**os.environ, "PYTHONPATH": str(REPO), "EXEC_IN_CONTAINER": "True",   # FlagPerf's switch
           "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    code = ("import sys, runpy; import chipperf.containers.incontainer as c; "
            f"c.STATE_ROOT = {str(state)!r}; sys.argv = sys.argv[1:]; "
            "runpy.run_path(sys.argv[0], run_name='__main__')")
    proc = subprocess.run([sys.executable, "-c", code, str(REPO / "base" / "run.py"),
                           "--host-config", str(host_yaml)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600, env=env)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    (run_dir,) = (tmp_path / "result").glob("run*")   # beside it: the results store's file
    record = json.loads((run_dir / "run.json").read_text())
    assert record["test"]["in_container_launch"] is True and record["status"] == "succeeded"
    (case,) = record["cases"].values()
    assert case["image"] is None and case["in_container_launch"] is True
    assert record["hosts"]["127.0.0.1"]["docker_version"].startswith("none: IN_CONTAINER_LAUNCH")
    assert "IN_CONTAINER_LAUNCH: no image build" in (run_dir / "run.log").read_text()
    node = run_dir / "computation-FP32-pytorch_2.13-xeon-1x1" / "round1" / "127.0.0.1_noderank0"
    assert read_status(node) == ("succeeded", "")
    assert {p.name for p in node.iterdir()} >= {
        "rank0.out.log", "launcher.log", "status", "sys_info.json", "cpu_monitor.log",
        "mem_monitor.log", "pwr_monitor.log"}
    assert check(run_dir).problems == []
    assert not state.exists() or not any(state.iterdir())      # no process state left
    assert not any((tmp_path / "work").iterdir())               # the work dir went too
