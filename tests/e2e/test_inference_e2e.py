"""End to end: `inference/run.py` on the simulated cluster, through the vendor image.

Two cases on two hosts (one node each), then the same case again with a second engine,
so each case runs with two engines through the Docker path; every engine's outputs are
checked against the fp32 PyTorch reference inside the case (FINISHED reference.within_bound).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import REPO, latest_run_dir, leftovers

from chipperf.results.layout import read_status
from chipperf_runtime.perflog import parse_lines

pytestmark = pytest.mark.e2e

DATA = Path("/var/lib/chipperf-test/data")


@pytest.fixture(scope="module")
def inference_data() -> dict[str, Path]:
    digits, text = DATA / "digits", DATA / "licenses"
    if not (digits / "train").is_dir():
        subprocess.run([sys.executable, str(REPO / "training/benchmarks/resnet50/pytorch/prepare_digits.py"),
                        str(digits)], check=True)
    if not text.is_dir():
        subprocess.run([sys.executable, str(REPO / "inference/benchmarks/bert_large/pytorch/prepare_text.py"),
                        "/usr/share/common-licenses", str(text)], check=True)
    return {"resnet50": digits, "bert_large": text}


# BERT's shape cut to 4 layers x 256 (the case's own shape keys): what this test checks (the
# engine's path through the vendor image, agreement with the fp32 reference, the figures) is
# the same at any depth, and BERT-large's 24 x 1024 spent ~50 s of the test exporting it to
# ONNX and running its fp32 reference on one CPU (rank log of a CI run: engine build 23.0 s,
# reference pass 25.6 s, of a 79.5 s case).
SMALL_BERT = {"hidden_size": 256, "num_layers": 4, "num_heads": 4, "intermediate_size": 1024}


def suite_with_engine(tmp_path: Path, engine: str) -> Path:
    """A copy of inference/ whose cpu vendor configs pick ``engine`` (bert_large's at
    SMALL_BERT's shape)."""
    suite = tmp_path / f"inference-{engine}"
    shutil.copytree(REPO / "inference", suite, ignore=shutil.ignore_patterns("__pycache__", "result"))
    for vendor_file in suite.glob("configs/*/vendor_config/cpu_configuration.yaml"):
        data = yaml.safe_load(vendor_file.read_text()) or {}
        shape = SMALL_BERT if vendor_file.parts[-3] == "bert_large" else {}
        vendor_file.write_text(yaml.safe_dump({**data, "engine": engine, **shape}))
    return suite


def run_inference(tmp_path: Path, sim_cluster, suite: Path, data: dict[str, Path]):
    hosts = [h.address for h in sim_cluster.hosts[:2]]
    host_yaml = tmp_path / "host.yaml"
    host_yaml.write_text(yaml.safe_dump({
        "HOSTS": hosts, "SSH_USER": "root", "SSH_KEY": sim_cluster.ssh_key,
        "KNOWN_HOSTS": sim_cluster.known_hosts, "VENDOR": "cpu", "CHIP": "xeon",
        "SHM_SIZE": "1g", "FLAGPERF_LOG_PATH": str(tmp_path / "result"),
        "WORK_ROOT": "/tmp/chipperf-e2e", "ROUND_TIMEOUT": 1200,
        "CASES": {"resnet50:pytorch_2.13": str(data["resnet50"]),
                  "bert_large:pytorch_2.13": str(data["bert_large"])}}))
    proc = subprocess.run([sys.executable, str(REPO / "inference/run.py"), "--host-config", str(host_yaml),
                           "--training-dir", str(suite)], cwd=tmp_path, capture_output=True, text=True,
                          timeout=3000, env={**os.environ, "PYTHONPATH": str(REPO)})
    return proc, latest_run_dir(tmp_path / "result"), hosts


# onnxruntime: an engine other than the default, picked by the vendor configs (eager, the
# default, runs through the engine in test_inference_models_e2e.py and the LLM tests).
@pytest.mark.parametrize("engine", ["onnxruntime"])
def test_inference_cases_on_two_hosts(tmp_path, sim_cluster, inference_data, engine):
    proc, run_dir, hosts = run_inference(tmp_path, sim_cluster, suite_with_engine(tmp_path, engine),
                                         inference_data)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-8000:]
    record = json.loads((run_dir / "run.json").read_text())
    assert record["suite"] == "inference" and record["status"] == "succeeded"
    placed = {}
    for case_dir in ("resnet50-pytorch_2.13-xeon-1x1", "bert_large-pytorch_2.13-xeon-1x1"):
        (node,) = (run_dir / case_dir / "round1").iterdir()
        placed[case_dir] = node.name.split("_noderank")[0]
        assert read_status(node) == ("succeeded", "")
        events, problems = parse_lines((node / "rank0.out.log").read_text().splitlines())
        assert problems == []
        (finished,) = [e.value for e in events if e.name == "FINISHED"]
        assert finished["engine"] == engine
        assert finished["reference"]["within_bound"] is True, finished["reference"]
        assert finished["converged"] is True
        latency = finished["latency_ms"]
        assert 0 < latency["p50"] <= latency["p90"] <= latency["p99"]
        assert finished["throughput"]["raw"] > 0 and finished["flops_per_unit"] > 0
        assert (node / "cpu_monitor.log").stat().st_size > 0
    assert sorted(placed.values()) == sorted(hosts)  # one case per host
    assert (run_dir / "report.html").is_file()
    assert leftovers(sim_cluster, run_dir.name) == []
