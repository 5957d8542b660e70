"""`chipperf selftest`: the first command a vendor engineer runs on a new machine.

On this host only, in in-container mode (no SSH, no Docker: the cases run as processes with
this python, as FlagPerf's EXEC_IN_CONTAINER does), within ``--budget`` seconds:

1. device facts (the device layer's description of local rank 0's device);
2. base/: GEMM per dtype the vendor's chip lists, and memory bandwidth, each beside the same
   operation timed in a bare torch loop right after the case's window, in the same process
   (``chipperf_runtime.base.reference.beside``): the ratio says whether the harness or the
   chip sets the figure;
3. one training case (resnet50, the vendor's 1x1 config, in performance mode: a few warm-up
   steps, then timed steps) and one inference case (resnet50, eager: whole and core
   throughput), with MFU where the spec sheet has the peak;
4. one LLM serving point (llama3_8b, eager, two layers of the vendor's shape: TTFT and TPOT).

Nothing is prepared first: the data the steps read is made by the selftest in a folder of its
own (``selftest_data``: the standard library, and ``tokenizers`` from the ``selftest`` extra).
Each step is an ordinary `chipperf run` through the engine, writing an ordinary run dir that
`chipperf check` accepts, under ``<result root>/selftest<timestamp>/<step>/``, of up to
HEADLINE_ROUNDS rounds (fewer when the budget cannot hold them: the table says so); a step the
remaining budget cannot hold is "not run" with that reason. The host's load is recorded before
each step and a busy host warned about. The verdict table (printed, and ``selftest.json`` /
``selftest.md`` beside the steps) gives per figure its value (the median of the counted rounds)
and their spread, its ratio to the reference, its share of the spec sheet and a verdict
(``selftest_verdict``: ok, suspect, low, failed, not run); the exit status follows from them.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict
from datetime import datetime
from pathlib import Path
from typing import Any

from chipperf.commands.selftest_accel import ACCEL_MIN_S, accel_steps
from chipperf.commands.selftest_engine import (
    REPO,
    TRAINING_STEPS,
    WARMUP_STEPS,
    Selftest,
    engine_run,
    prepared,
    runtime_env,
)
from chipperf.commands.selftest_verdict import (
    HEADLINE_ROUNDS,
    LEGEND,
    Row,
    busy_warning,
    exit_status,
    host_load,
    judge,
    table,
)
from chipperf.config.limits import did_you_mean
from chipperf.errors import ConfigError
from chipperf_runtime.inference.config import read_layers
from chipperf_runtime.vendors import get_vendor, vendor_names

FACTS_MIN_S = 20.0            # what the budget keeps for the device facts (an idle host's torch import)
FACTS_TIMEOUT_S = 60.0        # their deadline when the budget leaves it (a busy host's import)
DEFAULT_BUDGET_S = 600.0
# step -> the least budget it needs to start (on the 2-core CI machine each took about half)
STEP_MIN_S = {"base": 40.0, "training": 60.0, "inference": 60.0, "serving": 40.0}
# base/ specs per vendor kind: every GEMM dtype the chip's spec sheet lists, and bandwidth
GEMM_SPECS = {"fp64": "FP64", "fp32": "FP32", "tf32": "TF32", "bf16": "BF16", "fp16": "FP16",
              "fp8": "FP8", "int8": "INT8"}
CPU_GEMMS = ("FP32", "BF16")       # the cpu sheet has no peaks: what its cores run natively
# the serving point's ceilings (a vendor value below one stays): 2 layers of the vendor's width,
# prompts <= 512 and outputs <= 32 tokens, a few requests per scenario, and 1 s of MLPerf
# LoadGen's minimum duration per scenario (MLPerf's is 600 s: LoadGen judges the point INVALID)
SERVING_CAPS = {"num_layers": 2, "prompt_tokens_min": 128, "prompt_tokens_max": 512,
                "output_tokens_min": 16, "output_tokens_max": 32, "offline_requests": 16,
                "single_stream_requests": 4, "server_requests": 8, "accuracy_requests": 2,
                "warmup_requests": 2, "batch_size": 8, "loadgen_min_duration_ms": 1000}

# the inference point's ceiling: 10 s of LoadGen's minimum duration per scenario (MLPerf's is
# 600 s, which two scenarios and a round per budget cannot hold; LoadGen's record says so)
INFERENCE_CAPS = {"loadgen_min_duration_ms": 10_000}


def detect_vendor() -> tuple[str, str]:
    """nvidia where nvidia-smi names a GPU (its chip from the name), else the cpu vendor."""
    if shutil.which("nvidia-smi"):
        done = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                              capture_output=True, text=True, timeout=20)
        name = done.stdout.strip().splitlines()[0] if done.returncode == 0 and done.stdout.strip() else ""
        for chip in ("H200", "H100", "A100"):
            if chip in name:
                return "nvidia", chip
    return "cpu", "xeon"


def check_args(vendor: str, chip: str, budget_s: float) -> None:
    problems = []
    if vendor not in vendor_names():
        problems.append(f"--vendor {vendor}: no such vendor"
                        f"{did_you_mean(vendor, vendor_names())}; one of {', '.join(vendor_names())}")
    elif get_vendor(vendor).chip(chip) is None:
        problems.append(f"--chip {chip}: not on the {vendor} spec sheet; one of "
                        f"{', '.join(get_vendor(vendor).chips)}")
    problems += missing_modules(vendor)
    least = FACTS_MIN_S + min(STEP_MIN_S.values())
    if budget_s < least:
        problems.append(f"--budget {budget_s:g}: too small for one step (the device facts take "
                        f"up to {FACTS_MIN_S:g} s, the shortest step about "
                        f"{min(STEP_MIN_S.values()):g} s): give at least {least:g}, or "
                        f"{sum(STEP_MIN_S.values()) + FACTS_MIN_S:g} for every step")
    if problems:
        raise ConfigError(problems)


def _first_chip(vendor: str) -> str:
    """The first chip of ``vendor``'s spec sheet ('' for a vendor that does not exist:
    check_args says so)."""
    return next(iter(get_vendor(vendor).chips), "") if vendor in vendor_names() else ""


# pyproject's selftest extra: module -> package
EXTRA = {"numpy": "numpy", "PIL": "Pillow", "tokenizers": "tokenizers",
         "mlperf_loadgen": "mlcommons-loadgen", "transformers": "transformers"}


def selftest_extra_command() -> str:
    """How to add the selftest extra to this chipperf: from its checkout, or, for a plain
    install, from the clone it was installed from."""
    from chipperf.suites.suite import CHECKOUT

    if REPO == CHECKOUT:
        return f"pip install -e '{REPO}[selftest]'"
    return "pip install 'CLONE[selftest]' (CLONE: the chipperf clone this one was installed from)"


# the cpu vendor's torch: the CPU build of the pair the cpu image pins
# (training/cpu/docker_image/pytorch_2.13/requirements.txt)
CPU_TORCH = ("pip install torch==2.13.0 torchvision==0.28.0 (where pip finds no CPU build of "
             "them, add --index-url https://download.pytorch.org/whl/cpu)")


def missing_modules(vendor: str = "") -> list[str]:
    """What this python lacks of the selftest's needs, each with its fix."""
    import importlib.util

    if importlib.util.find_spec("torch") is None:
        how = f": {CPU_TORCH}" if vendor == "cpu" else ""
        return [f"{sys.executable}: no torch: install the vendor's torch (and its torchvision) "
                f"into this python first{how}"]
    problems = []
    lacking = [pkg for module, pkg in EXTRA.items() if importlib.util.find_spec(module) is None]
    if lacking:
        problems.append(f"{sys.executable}: no {', '.join(lacking)}: install the selftest extra: "
                        f"{selftest_extra_command()}")
    if importlib.util.find_spec("torchvision") is None:
        from importlib.metadata import version

        major, minor = version("torch").split("+")[0].split(".")[:2]
        pair = f"0.{int(minor) + 15}" if major == "2" else "the one its release notes pair"
        problems.append(f"{sys.executable}: no torchvision beside torch {version('torch')}: "
                        f"install its pair without replacing torch: pip install "
                        f"'torchvision=={pair}.*' (where the vendor's image ships one, that one)")
    return problems


def run_selftest(vendor: str | None, chip: str | None, budget_s: float, result_root: Path,
                 data_root: Path | None, command: Callable[[Sequence[str]], int],
                 out: Callable[[str], None] = print) -> int:
    """selftest_verdict's exit status (EXIT_OK, EXIT_FAILED, EXIT_INCOMPLETE). ``data_root``
    None: a new temporary folder for the data. Raises ConfigError on bad arguments, before
    anything runs."""
    found = detect_vendor()
    vendor = vendor or found[0]
    chip = chip or (found[1] if vendor == found[0] else _first_chip(vendor))
    check_args(vendor, chip, budget_s)
    # absolute: each step's WORK_ROOT lies under it, and a config's WORK_ROOT must be absolute
    root = Path(result_root).resolve() / f"selftest{datetime.now():%Y%m%d%H%M%S}"
    root.mkdir(parents=True, exist_ok=False)
    data = Path(data_root) if data_root else Path(tempfile.mkdtemp(prefix="chipperf-selftest-data-"))
    test = Selftest(vendor, chip, budget_s, root, data, command=command)
    out(f"chipperf selftest: vendor {vendor}, chip {chip}, budget {budget_s:g} s, results in {root}, "
        f"data in {data}")
    test.facts = device_facts(test)
    out(f"device: {json.dumps(test.facts)}")
    run = {**STEPS, **accel_steps(vendor)}
    steps = list(run)
    if vendor == "cpu":
        out(f"the accelerator steps ({', '.join(ACCEL_MIN_S)}) are for vendors with an "
            f"accelerator: not for the cpu vendor")
    for n, step in enumerate(steps):
        if test.left() < LEAST_S[step]:
            test.rows.append(Row(step, step, verdict=f"not run: {max(0.0, test.left()):.0f} s of the "
                                 f"budget left, the step needs about {LEAST_S[step]:g} s"))
            continue
        load = test.loads[step] = host_load()
        if load["busy"]:
            test.warnings.append(busy_warning(step, load))
            out(test.warnings[-1])
        out(f"--- {step} ({test.left():.0f} s of the budget left)")
        run[step](test, rounds_for(test, step, steps[n + 1:]))
    test.rows = [judge(vendor, r) for r in test.rows]
    write_outputs(test)
    for line in table(test.rows):
        out(line)
    status = exit_status(test.rows)
    out(f"selftest: {root}: exit {status} ({LEGEND})")
    return status


def rounds_for(test: Selftest, step: str, later: Sequence[str]) -> int:
    """The step's rounds: its fair share of what the budget leaves (in proportion to its least
    time among the steps still to run) holds that many of its least time each, at most
    HEADLINE_ROUNDS, at least one. Its rounds' deadlines share what the later steps' least
    leaves (``Selftest.share_s``), so a slow host's round can take more than its fair share
    and the budget still holds the later steps' least."""
    reserved = sum(LEAST_S[s] for s in later)
    fair = test.left() * LEAST_S[step] / (LEAST_S[step] + reserved)
    test.share_s = max(LEAST_S[step], test.left() - reserved)
    return max(1, min(HEADLINE_ROUNDS, int(fair // LEAST_S[step])))


# ------------------------------------------------------------------ steps


def device_facts(test: Selftest) -> dict[str, Any]:
    code = ("import json; from chipperf_runtime.device.torch import open_torch_device as o; "
            "import torch; d = o(0); print(json.dumps({**d.describe(), "
            "'torch': torch.__version__, 'threads': torch.get_num_threads()}))")
    limit = facts_timeout(test)
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              env=runtime_env(test.vendor), timeout=limit)
    except subprocess.TimeoutExpired:
        said = f"no answer within {limit:.0f} s (torch's import on a busy host?)"
        test.rows.append(Row("device", "device facts", verdict=f"failed: {said}"))
        return {"error": said}
    if done.returncode != 0:
        said = (done.stderr.strip().splitlines() or ["no output"])[-1]
        test.rows.append(Row("device", "device facts", verdict=f"failed: {said}"))
        return {"error": said}
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def facts_timeout(test: Selftest) -> float:
    """FACTS_TIMEOUT_S, or less where the budget would then hold no step."""
    return max(FACTS_MIN_S, min(FACTS_TIMEOUT_S, test.left() - min(STEP_MIN_S.values())))


def base_step(test: Selftest, rounds: int) -> None:
    """Every GEMM dtype the chip lists and memory bandwidth; each case times the same operation
    in a bare torch loop right after its window (FINISHED's reference): the ratio's source."""
    specs = [f"computation-{d}" for d in gemm_dtypes(test.vendor, test.chip)]
    engine_run(test, "base", {s: "pytorch_2.13" for s in [*specs, "main_memory-bandwidth"]},
               rounds=rounds)


def training_step(test: Selftest, rounds: int) -> None:
    """resnet50 on the vendor's 1x1 config in performance mode (OVERRIDES): WARMUP_STEPS, then
    TRAINING_STEPS timed optimizer steps; throughput and MFU from the timed steps."""
    data = prepared(test, "training")
    engine_run(test, "training", {f"resnet50:pytorch_2.13:{test.chip}:1:1:{rounds}": str(data)},
               overrides={"run_mode": "performance", "perf_warmup_steps": WARMUP_STEPS,
                          "timed_steps": TRAINING_STEPS}, rounds=rounds)


def inference_step(test: Selftest, rounds: int) -> None:
    """resnet50 in eager mode (the framework's own path every vendor has; a vendor file may
    name an engine this host lacks, TensorRT say): whole and core throughput, its MLPerf
    LoadGen minimum duration capped by INFERENCE_CAPS."""
    merged, _, _ = read_layers(REPO / "inference" / "configs" / "resnet50",
                               f"{test.vendor}_configuration.yaml")
    caps = {k: cap for k, cap in INFERENCE_CAPS.items()
            if isinstance(merged.get(k), int) and merged[k] > cap}
    engine_run(test, "inference",
               {f"resnet50:pytorch_2.13:{test.chip}:1:1:{rounds}": str(prepared(test, "inference"))},
               overrides={"engine": "eager", **caps}, rounds=rounds)


def serving_step(test: Selftest, rounds: int) -> None:
    """One llama3_8b serving point, eager: the vendor's shape and lengths, each capped by
    SERVING_CAPS (an 8B model's weights alone take minutes to make; the table's preset label
    says what ran)."""
    data = prepared(test, "serving")
    config_dir = REPO / "inference" / "configs" / "llama3_8b"
    merged, _, _ = read_layers(config_dir, f"{test.vendor}_configuration.yaml")
    caps = {k: cap for k, cap in SERVING_CAPS.items()
            if isinstance(merged.get(k), int) and merged[k] > cap}
    engine_run(test, "serving", {f"llama3_8b:pytorch_2.13:{test.chip}:1:1:{rounds}": str(data)},
               suite="inference", overrides={"engine": "eager", **caps}, rounds=rounds)


STEPS: dict[str, Callable[[Selftest, int], None]] = {
    "base": base_step, "training": training_step, "inference": inference_step,
    "serving": serving_step}
LEAST_S = {**STEP_MIN_S, **ACCEL_MIN_S}


def gemm_dtypes(vendor: str, chip: str) -> list[str]:
    spec = get_vendor(vendor).chip(chip)
    listed = [GEMM_SPECS[d] for d in GEMM_SPECS if spec is not None and d in spec.peak_flops]
    return listed or list(CPU_GEMMS)


# ------------------------------------------------------------------ the engine


# ------------------------------------------------------------------ outputs


def write_outputs(test: Selftest) -> None:
    record = {"vendor": test.vendor, "chip": test.chip, "budget_s": test.budget_s,
              "took_s": round(time.monotonic() - test.started, 1), "device": test.facts,
              "data_root": str(test.data_root), "host_load": test.loads, "warnings": test.warnings,
              "exit_status": exit_status(test.rows), "runs": test.runs,
              "rows": [asdict(r) for r in test.rows]}
    (test.root / "selftest.json").write_text(json.dumps(record, indent=2) + "\n")
    lines = ["# chipperf selftest", "", f"vendor {test.vendor}, chip {test.chip}, took "
             f"{record['took_s']} s of a {test.budget_s:g} s budget, exit status "
             f"{record['exit_status']}", "", *test.warnings, "", "```", *table(test.rows),
             "```", "", LEGEND, "", "Run dirs (each one `chipperf check` accepts):", "",
             *[f"- {step}: `{path}`" for step, path in test.runs.items()]]
    (test.root / "selftest.md").write_text("\n".join(lines) + "\n")
