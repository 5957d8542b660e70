"""The selftest's steps for a vendor with an accelerator (every vendor but cpu), after the
four every vendor runs: what selfbench/gpu_targets.py measured beside the engine, now through it
on the shipped configs.

- ``gpt2``: gpt2-medium training on the vendor's ``<chip>x1x1`` config in performance mode
  (GPT2_STEPS warm-up and timed steps): throughput and MFU;
- ``llama1b``: llama3_8B training on its ``<chip>x1x1`` config (the nvidia ones pick the "1b"
  preset, Llama-3.2-1B's shape): throughput and MFU;
- ``serving32``: the llama3_8b serving point on the vendor's own inference config, nothing
  capped (all 32 layers, its engine and batch): TTFT and TPOT, and beside the single-stream
  (batch 1) TPOT its HBM floor: the weights' bytes read once per token over the memory
  bandwidth base/ measured in this selftest.

A vendor without a config for the case and chip gets an "unsupported" row naming the file.
Their data is made by the cases' own preparers (numpy and ``tokenizers``: the selftest extra)
from text on the machine (Python's own docs and docstrings).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from chipperf.commands.selftest_engine import (
    GPT2_STEPS,
    LLAMA_STEPS,
    REPO,
    Selftest,
    engine_run,
    prepared,
)
from chipperf.commands.selftest_verdict import EXPECTED_SHARE, Row
from chipperf_runtime.inference.config import read_layers
from chipperf_runtime.inference.llm.preset import llama_parameters

# step -> the least budget it needs to start: gpu_targets.py's round deadlines on one H100
# (gpt2 110 s, llama1b 150 s, docs/gpu-runs/h100-20261127-second/); serving32 never ran on a
# GPU: the 2-layer point's 40 s plus the 32-layer model's making and compile, not measured
ACCEL_MIN_S = {"gpt2": 120.0, "llama1b": 160.0, "serving32": 150.0}
TRAIN_CASES = {"gpt2": ("gpt2", "gpt2-pytorch", GPT2_STEPS),
               "llama1b": ("llama3_8B", "llama3_8B-pytorch", LLAMA_STEPS)}
PREPARERS = {"gpt2": "training/benchmarks/gpt2/pytorch/prepare_data.py",
             "llama1b": "training/benchmarks/llama3_8B/pytorch/prepare_data.py"}
BYTES_PER_WEIGHT = {"fp32": 4, "bf16": 2, "fp16": 2, "fp8": 1, "int8": 1}


def accel_steps(vendor: str) -> dict[str, Callable[[Selftest, int], None]]:
    """The accelerator steps in their order; none for the cpu vendor."""
    if vendor == "cpu":
        return {}
    return {"gpt2": lambda t, n: train_step(t, "gpt2", n),
            "llama1b": lambda t, n: train_step(t, "llama1b", n), "serving32": serving32_step}


def train_step(test: Selftest, step: str, rounds: int) -> None:

    model, folder, overrides = TRAIN_CASES[step]
    config = REPO / "training" / test.vendor / folder / "config" / f"config_{test.chip}x1x1.py"
    if not config.is_file():
        test.rows.append(Row(step, model, verdict=f"unsupported: no {config.relative_to(REPO)}"))
        return
    data = token_data(test, step)
    engine_run(test, step, {f"{model}:pytorch_2.13:{test.chip}:1:1:{rounds}": str(data)},
               suite="training", overrides=overrides, rounds=rounds)


def token_data(test: Selftest, step: str) -> Path:
    """The case's token shards under the data root, made by its preparer when missing."""

    out = test.data_root / step
    if not (out / "meta.json").is_file():
        done = subprocess.run([sys.executable, str(REPO / PREPARERS[step]), "--output", str(out)],
                              capture_output=True, text=True)
        if done.returncode != 0:
            test.data_problem = (done.stderr.strip().splitlines() or ["no output"])[-1]
    return out


def serving32_step(test: Selftest, rounds: int) -> None:
    """The vendor's llama3_8b serving config as shipped, then the HBM floor row."""

    merged, _, _ = read_layers(REPO / "inference" / "configs" / "llama3_8b",
                               f"{test.vendor}_configuration.yaml")
    engine_run(test, "serving32", {f"llama3_8b:pytorch_2.13:{test.chip}:1:1:{rounds}":
                                   str(prepared(test, "serving"))}, suite="inference", rounds=rounds)
    test.rows.append(floor_row(test.vendor, merged, test.rows))


def floor_row(vendor: str, merged: Mapping[str, Any], rows: list[Row]) -> Row:
    """TPOT at batch 1 over its HBM floor (weight bytes / base/'s measured bandwidth): a
    decoding step reads every weight once; "low" above the vendor's band."""
    name = "serving32 single-stream TPOT / HBM floor"
    bandwidth = next((r.value for r in rows if r.step == "base" and "bandwidth" in r.figure
                      and r.value), None)
    tpot = next((r.value for r in rows if r.step == "serving32"
                 and r.figure.endswith("single_stream TPOT p50") and r.value), None)
    weight_bytes = llama_parameters(merged) * BYTES_PER_WEIGHT.get(str(merged.get("precision")), 4)
    if bandwidth is None or tpot is None:
        missing = "base/'s bandwidth" if bandwidth is None else "the single-stream TPOT"
        return Row("serving32", name, verdict=f"failed: not measured: no {missing} in this selftest")
    floor_ms = weight_bytes / (bandwidth * 1e9) * 1e3        # the row's bandwidth is in GB/s
    ratio = tpot / floor_ms
    most = EXPECTED_SHARE.get(vendor, {}).get("tpot_over_floor")
    verdict = (f"low: TPOT {ratio:.2f} x its floor of {floor_ms:.3g} ms ({weight_bytes / 1e9:.3g} GB "
               f"of weights), above the {vendor} band (<= {most:g} x)"
               if most is not None and ratio > most else
               f"ok (floor {floor_ms:.3g} ms: {weight_bytes / 1e9:.3g} GB of weights / "
               f"{bandwidth:,.4g} GB/s)")
    return Row("serving32", name, ratio, "x floor", verdict=verdict)
