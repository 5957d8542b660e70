"""FlagPerf's aquila2 in-container launch on the cpu vendor, end to end: the key
``aquila2_34B_container:in_container:xeon:1:1:1`` (FlagPerf's case and framework names) run by
``training/run_benchmarks/run.py`` with ``IN_CONTAINER_LAUNCH = True``. The "existing
container" is this machine, reached as chipperf's local host (127.0.0.1): chipperf builds no
image and starts no container; the case's rank runs as a process here, its tiny preset for a
few performance-mode steps, and the result tree is the one a Docker run writes (checked by
``chipperf check``). Convergence of the tiny preset is in the case README (a longer run).
Needs torch and transformers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from chipperf.results.layout import read_status
from chipperf.results.read.check import check

REPO = Path(__file__).resolve().parents[2]
KEY = "aquila2_34B_container:in_container:xeon:1:1:1"
OVERRIDES = {"run_mode": "performance", "perf_warmup_steps": 1, "timed_steps": 3,
             "eval_samples": 8}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("aquila2_ci")
    subprocess.run([sys.executable, str(REPO / "training/benchmarks/aquila2_34B/pytorch/prepare_data.py"),
                    "--output", str(out)], check=True, timeout=300, capture_output=True)
    return out


def run_in_container(tmp_path: Path, corpus: Path) -> subprocess.CompletedProcess:
    state = tmp_path / "state"
    (tmp_path / "cluster_conf.py").write_text(
        f'HOSTS = ["127.0.0.1"]\nMASTER_PORT = 29547\nWORK_ROOT = "{tmp_path / "work"}"\n')
    (tmp_path / "test_conf.py").write_text(
        f'VENDOR = "cpu"\nIN_CONTAINER_LAUNCH = True\nROUND_TIMEOUT_S = 600\n'
        f'RESULT_ROOT = "{tmp_path / "result"}"\nOVERRIDES = {OVERRIDES!r}\n'
        f'CASES = {{"{KEY}": "{corpus}"}}\n')
    env = {**os.environ, "PYTHONPATH": str(REPO), "OMP_NUM_THREADS": "1",
           "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    code = ("import sys, runpy; import chipperf.containers.incontainer as c; "
            f"c.STATE_ROOT = {str(state)!r}; sys.argv = sys.argv[1:]; "
            "runpy.run_path(sys.argv[0], run_name='__main__')")
    return subprocess.run([sys.executable, "-c", code,
                           str(REPO / "training" / "run_benchmarks" / "run.py"),
                           "--cluster", str(tmp_path / "cluster_conf.py"),
                           "--test", str(tmp_path / "test_conf.py")],
                          cwd=tmp_path, capture_output=True, text=True, timeout=900, env=env)


def test_flagperf_s_aquila2_key_runs_in_the_existing_container(tmp_path: Path,
                                                               corpus: Path) -> None:
    proc = run_in_container(tmp_path, corpus)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    (run_dir,) = (tmp_path / "result").glob("run*")
    record = json.loads((run_dir / "run.json").read_text())
    assert record["test"]["in_container_launch"] is True and record["status"] == "succeeded"
    (name, case), = record["cases"].items()
    assert name == "aquila2_34B-pytorch_2.13-xeon-1x1"
    assert case["image"] is None and case["in_container_launch"] is True
    assert "FlagPerf's framework 'in_container' runs FlagScale" in case["implementation"]
    assert record["hosts"]["127.0.0.1"]["docker_version"].startswith("none: IN_CONTAINER_LAUNCH")
    assert "IN_CONTAINER_LAUNCH: no image build" in (run_dir / "run.log").read_text()
    node = run_dir / name / "round1" / "127.0.0.1_noderank0"
    assert read_status(node) == ("succeeded", "")
    finished = _finished(node / "rank0.out.log")
    assert finished["work_done"] == 3 * 32 * 128            # 3 timed steps x batch 32 x seq 128
    assert finished["throughput"]["unit"] == "tokens/s" and finished["throughput"]["raw"] > 0
    assert check(run_dir).problems == []
    assert not any((tmp_path / "state").glob("*/*"))          # no process state left
    assert not any((tmp_path / "work").iterdir())               # the work dir went too


def _finished(log: Path) -> dict:
    lines = [line for line in log.read_text().splitlines() if '"event": "FINISHED"' in line]
    return json.loads(lines[-1].split("[PerfLog] ", 1)[1])["value"]
