"""End to end: the transformers / diffusers inference cases (vit_l_16, swinTransformer,
rtdetr_r50vd, sam_h, stable_diffusion_v1_4) through `inference/run.py` on the simulated cluster, in the cpu
vendor's image, at CI sizes (the cpu vendor files of a copy of inference/ set the tiny
shapes), one case per host in turn. Each case checks its engine against the fp32 eager
reference inside the container (FINISHED reference.within_bound)."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import DATA_ROOT, REPO, latest_run_dir, leftovers

from chipperf.results.layout import read_status
from chipperf_runtime.perflog import parse_lines

pytestmark = pytest.mark.e2e

# case -> (cpu vendor file at CI size, data set name, the metric it reports)
TINY = {
    "vit_l_16": ({"engine": "onnxruntime", "model_size": "tiny", "image_size": 32, "resize_size": 32,
                  "batch_size": 8, "max_items": 16, "latency_queries": 4}, "digits", "top1_agreement"),
    "swinTransformer": ({"engine": "eager", "model_size": "tiny", "image_size": 32, "resize_size": 32,
                         "batch_size": 8, "max_items": 16, "latency_queries": 4}, "digits",
                        "top1_agreement"),
    "rtdetr_r50vd": ({"engine": "eager", "model_size": "tiny", "image_size": 64, "num_classes": 10,
                      "batch_size": 4, "max_items": 8, "datasize": 8, "latency_queries": 2}, "digits",
                     "query_class_agreement"),
    "sam_h": ({"engine": "eager", "model_size": "tiny", "image_size": 64, "batch_size": 4,
               "max_items": 8, "latency_queries": 2}, "digits", "mask_agreement"),
    "stable_diffusion_v1_4": ({"engine": "eager", "model_size": "tiny", "height": 16, "width": 16,
                               "num_inference_steps": 2, "prompt_max_len": 16, "batch_size": 2,
                               "max_items": 4, "latency_queries": 2}, "prompts", "pixel_agreement"),
}


@pytest.fixture(scope="module")
def data(digits_dir) -> dict[str, Path]:
    prompts = DATA_ROOT / "sd-prompts"
    if not (prompts / "tokenizer" / "vocab.json").is_file():
        subprocess.run([sys.executable, str(REPO / "inference/benchmarks/stable_diffusion_v1_4/pytorch/"
                                            "prepare_prompts.py"), "/usr/share/common-licenses",
                        str(prompts)], check=True, timeout=120)
    return {"digits": digits_dir, "prompts": prompts}


def tiny_suite(tmp_path: Path) -> Path:
    suite = tmp_path / "inference"
    shutil.copytree(REPO / "inference", suite, ignore=shutil.ignore_patterns("__pycache__", "result"))
    for model, (settings, _, _) in TINY.items():
        # over the shipped cpu file (its LoadGen minimum duration of 100 ms, not MLPerf's 600 s)
        vendor_file = suite / "configs" / model / "vendor_config" / "cpu_configuration.yaml"
        shipped = yaml.safe_load(vendor_file.read_text()) or {}
        vendor_file.write_text(yaml.safe_dump({**shipped, **settings, "latency_warmup": 1,
                                               "warmup_batches": 1}))
    return suite


def test_transformers_and_diffusers_cases_through_the_engine(tmp_path, sim_cluster, data):
    hosts = [h.address for h in sim_cluster.hosts[:3]]
    host_yaml = tmp_path / "host.yaml"
    host_yaml.write_text(yaml.safe_dump({           # FlagPerf's form: no CHIP (vendor default)
        "HOSTS": hosts, "SSH_USER": "root", "SSH_KEY": sim_cluster.ssh_key,
        "KNOWN_HOSTS": sim_cluster.known_hosts, "VENDOR": "cpu", "SHM_SIZE": "1g",
        "FLAGPERF_LOG_PATH": str(tmp_path / "result"), "WORK_ROOT": "/tmp/chipperf-e2e",
        "ROUND_TIMEOUT": 900,
        "CASES": {f"{model}:pytorch_2.13": str(data[name]) for model, (_, name, _) in TINY.items()},
        "SWEEPS": {"swinTransformer:pytorch_2.13": SWIN_SWEEP}}))
    proc = subprocess.run([sys.executable, str(REPO / "inference/run.py"), "--host-config", str(host_yaml),
                           "--training-dir", str(tiny_suite(tmp_path))], cwd=tmp_path,
                          capture_output=True, text=True, timeout=3000,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-8000:]
    run_dir = latest_run_dir(tmp_path / "result")
    record = json.loads((run_dir / "run.json").read_text())
    assert record["suite"] == "inference" and record["status"] == "succeeded"
    for model, (settings, _, metric) in TINY.items():
        (node,) = (run_dir / f"{model}-pytorch_2.13-xeon-1x1" / "round1").iterdir()
        assert read_status(node) == ("succeeded", "")
        events, problems = parse_lines((node / "rank0.out.log").read_text().splitlines())
        assert problems == []
        (finished,) = [e.value for e in events if e.name == "FINISHED"]
        assert finished["engine"] == settings["engine"] and finished["metric"]["name"] == metric
        assert finished["reference"]["within_bound"] is True, (model, finished["reference"])
        assert finished["converged"] is True, (model, finished["metric"])
        assert finished["work_done"] == settings["max_items"]
        assert finished["throughput"]["raw"] > 0 and finished["flops_per_unit"] > 0
    swept_through_the_engine(run_dir)
    assert leftovers(sim_cluster, run_dir.name) == []


# an inference sweep through a real run: swinTransformer's 2 x 2 grid (3 rounds more than its
# one, ~7 s each on this machine); its points reach the case as --set, and the report draws them
SWIN_SWEEP = {"batch_size": [4, 8], "precision": ["fp32", "bf16"]}


def swept_through_the_engine(run_dir: Path) -> None:
    case_dir = run_dir / "swinTransformer-pytorch_2.13-xeon-1x1"
    for number, (batch, precision) in enumerate([(4, "fp32"), (4, "bf16"), (8, "fp32"),
                                                 (8, "bf16")], 1):
        (node,) = (case_dir / f"round{number}").iterdir()
        events, _ = parse_lines((node / "rank0.out.log").read_text().splitlines())
        (finished,) = [e.value for e in events if e.name == "FINISHED"]
        (info,) = [e.value for e in events if e.name == "SUBMIT_INFO"]
        assert (info["config"]["batch_size"], finished["precision"]) == (batch, precision)
        assert finished["reference"]["within_bound"] is True, (number, finished["reference"])
    rows = list(csv.DictReader(io.StringIO((run_dir / "sweep.csv").read_text())))
    print(*(f"{r['point']}: {r['status']} {r['throughput']} {r['throughput_unit']} p50 "
            f"{r['latency_p50_ms']} ms peak {r['peak_memory_bytes']} B" for r in rows), sep="\n")
    assert [(r["batch_size"], r["precision"], r["status"]) for r in rows] == [
        ("4", "fp32", "succeeded"), ("4", "bf16", "succeeded"), ("8", "fp32", "succeeded"),
        ("8", "bf16", "succeeded")]
    assert all(float(r["throughput"]) > 0 and float(r["latency_p50_ms"]) > 0
               and int(r["peak_memory_bytes"]) > 0 and r["throughput_unit"] == "items/s"
               for r in rows)
    page = (run_dir / "report.html").read_text()
    assert "Throughput vs batch_size (items/s), a line per precision" in page
    assert "Peak memory vs batch_size, a line per precision" in page
    for precision in SWIN_SWEEP["precision"]:
        assert f"precision={precision}: batch_size 8 fits, none ran out of memory" in page
