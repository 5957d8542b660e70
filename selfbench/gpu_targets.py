"""Issue 25's single-GPU targets, measured in one prepared run (<= 8 minutes on one H100).

    python3 selfbench/gpu_targets.py --out DIR                       # vendor nvidia, chip from nvidia-smi
    python3 selfbench/gpu_targets.py --vendor cpu --out DIR          # the same steps, tiny sizes (rehearsal)

Everything runs through chipperf's own engine in in-container mode (IN_CONTAINER_LAUNCH, FlagPerf's
EXEC_IN_CONTAINER) on HOSTS = ["127.0.0.1"]: no SSH, no Docker. Steps, each under its own deadline
inside ``--budget`` (seconds):

    data             the offline CI data: digits (ImageNet layout; pre-decoded at the case's size),
                     gpt2 token shards, llama3_8B byte-level shards (the prepare scripts)
    resnet50_synth   training, data_mode synthetic (compute only)        target >= 2,500 img/s
    resnet50_predec  training, data_mode predecoded (real images)        target >= 2,000 img/s
    gpt2             training, GPT-2 Medium                              target MFU >= 35 %
    llama1b          training, llama3_8B's "1b" size (Llama-3.2-1B)      target MFU >= 40 %
    infer_resnet50   inference core throughput, eager bf16               target >= 8,000 items/s

The nvidia vendor runs the shipped H100x1x1 configs (bf16, compile, batch sizes there), only
shortened by OVERRIDES (fewer timed steps). The cpu rehearsal runs the xeon x1x1 configs with
compile (backend aot_eager) and tiny sizes: it proves the steps, not the figures. The table at
the end puts each figure beside its target; ``DIR/summary.txt`` holds it, ``DIR/<step>.log``
each step's output, ``DIR/results/`` the engine's result directories.

The machine's python must import chipperf's engine: where paramiko or docker are missing, give
``--wheels DIR`` (default ``.whl/gpu-check``, git-ignored: ``pip download paramiko docker -d
.whl/gpu-check --only-binary=:all: --python-version 3.12 --platform manylinux2014_x86_64``);
those whose module the python lacks are unpacked into a private folder on PYTHONPATH, nothing
is installed into the python.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
FRAMEWORK = "pytorch_2.13"


@dataclass(frozen=True)
class Target:
    step: str
    what: str
    figure: str                  # "throughput" (work per second) or "mfu"
    least: float                 # issue 25's target on one H100
    unit: str


TARGETS = [
    Target("resnet50_synth", "resnet50 training, synthetic (compute only)", "throughput", 2500, "img/s"),
    Target("resnet50_predec", "resnet50 training, pre-decoded real images", "throughput", 2000, "img/s"),
    Target("gpt2", "gpt2-medium training", "mfu", 0.35, "MFU"),
    Target("llama1b", "llama3_8B 1b (Llama-3.2-1B shape) training", "mfu", 0.40, "MFU"),
    Target("infer_resnet50", "resnet50 inference core, eager bf16", "core", 8000, "items/s"),
]


@dataclass
class Run:
    """One invocation's settings and where it writes; ``proj``: this check's copy of the
    project (the engine runs from there; the inference step writes its vendor config there)."""

    vendor: str
    chip: str
    out: Path
    work: Path
    proj: Path
    budget_s: float
    env: dict[str, str]
    sets: dict[str, Any] = field(default_factory=dict)   # --set: every training step's OVERRIDES
    started: float = field(default_factory=time.monotonic)
    lines: list[str] = field(default_factory=list)

    def left(self) -> float:
        return self.budget_s - (time.monotonic() - self.started)

    def say(self, line: str) -> None:
        print(line, flush=True)
        self.lines.append(line)
        (self.out / "summary.txt").write_text("\n".join(self.lines) + "\n")

    @property
    def cpu(self) -> bool:
        return self.vendor == "cpu"


def run_command(run: Run, name: str, argv: list[str], want_s: float) -> int:
    """``argv`` under min(want_s, what the budget leaves), its output appended to DIR/<name>.log;
    124 when it ran out of time."""
    limit = min(want_s, run.left() - 5)
    if limit < 10:
        return 124
    with open(run.out / f"{name}.log", "a") as log:
        log.write(f"$ {' '.join(argv)}\n")
        log.flush()
        proc = subprocess.Popen(argv, cwd=run.proj, env=run.env, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
        try:
            return proc.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 15)   # the engine stops what it started on SIGTERM
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, 9)
            return 124


# ---------------------------------------------------------------- data


def make_data(run: Run) -> dict[str, Path]:
    data = run.work / "data"
    py = sys.executable
    image_size = 32 if run.cpu else 224
    paths = {"digits": data / "digits", "gpt2": data / "gpt2", "llama": data / "llama"}
    # the store is made for the case config's crop settings (the xeon configs' differ)
    crops = ["--train-augment", "resize", "--val-crop-ratio", "1.0"] if run.cpu else []
    steps = [
        ["training/benchmarks/resnet50/pytorch/prepare_digits.py", str(paths["digits"])],
        ["-m", "chipperf_runtime.training.imagecls.predecoded", str(paths["digits"]),
         "--image-size", str(image_size), *crops],
        ["training/benchmarks/gpt2/pytorch/prepare_data.py", "--output", str(paths["gpt2"])],
        ["training/benchmarks/llama3_8B/pytorch/prepare_data.py", "--output", str(paths["llama"])],
    ]
    for argv in steps:
        rc = run_command(run, "data", [py, *argv], 240)
        if rc:
            run.say(f"   data: {' '.join(argv[:2])} failed (rc {rc}): see data.log")
    return paths


# ---------------------------------------------------------------- training


def training_overrides(run: Run, step: str) -> dict[str, Any]:
    """What each training step changes of the shipped configs: fewer timed steps on the GPU;
    tiny sizes, few steps and a cheap compile on the CPU."""
    steps: dict[str, dict[str, Any]]
    if run.cpu:
        common: dict[str, Any] = {"run_mode": "performance", "perf_warmup_steps": 1,
                                  "timed_steps": 3, "compile": True, "compile_backend": "aot_eager"}
        steps = {
            "resnet50_synth": {"data_mode": "synthetic", "image_size": 32, "global_batch_size": 8},
            "resnet50_predec": {"data_mode": "predecoded", "image_size": 32,
                                "global_batch_size": 8, "num_workers": 0},
            "gpt2": {"model_size": "tiny", "global_batch_size": 4},
            "llama1b": {"model_size": "tiny", "global_batch_size": 8, "micro_batch_size": 8},
        }
        return {**common, **steps[step]}
    steps = {
        "resnet50_synth": {"data_mode": "synthetic", "perf_warmup_steps": 30, "timed_steps": 150},
        "resnet50_predec": {"data_mode": "predecoded", "num_workers": 0, "perf_warmup_steps": 30,
                            "timed_steps": 150},
        "gpt2": {"perf_warmup_steps": 10, "timed_steps": 50},
        "llama1b": {"perf_warmup_steps": 5, "timed_steps": 15},
    }
    return steps[step]


TRAIN_CASES = {"resnet50_synth": ("resnet50", "digits"), "resnet50_predec": ("resnet50", "digits"),
               "gpt2": ("gpt2", "gpt2"), "llama1b": ("llama3_8B", "llama")}
TRAIN_SECONDS = {"resnet50_synth": 100, "resnet50_predec": 100, "gpt2": 110, "llama1b": 150}


def train_step(run: Run, step: str, data: dict[str, Path]) -> Path | None:
    model, data_key = TRAIN_CASES[step]
    conf = run.work / "conf"
    conf.mkdir(parents=True, exist_ok=True)
    results = run.out / "results" / step
    (conf / f"cluster_{step}.yaml").write_text(
        f'HOSTS: ["127.0.0.1"]\nMASTER_PORT: "29562"\nWORK_ROOT: "{run.work / "work"}"\n')
    overrides = json.dumps({**training_overrides(run, step), **run.sets})
    (conf / f"test_{step}.yaml").write_text(
        f'VENDOR: "{run.vendor}"\nIN_CONTAINER_LAUNCH: true\nRESULT_ROOT: "{results}"\n'
        f"ROUND_TIMEOUT: {TRAIN_SECONDS[step]}\nMONITOR_INTERVAL: 1\nCLEAR_CACHES: false\n"
        f"OVERRIDES: {overrides}\nCASES:\n"
        f'  "{model}:{FRAMEWORK}:{run.chip}:1:1:1": "{data[data_key]}"\n')
    args = ["--cluster", str(conf / f"cluster_{step}.yaml"), "--test", str(conf / f"test_{step}.yaml")]
    py = [sys.executable, "-m", "chipperf.cli"]
    if run_command(run, step, [*py, "plan", *args], 60):
        run.say(f"   {step}: chipperf plan refused it: see {step}.log")
        return None
    run_command(run, step, [*py, "run", "--wait", "--no-ingest", *args], TRAIN_SECONDS[step] + 30)
    return newest_run(results)


# ---------------------------------------------------------------- inference


def infer_step(run: Run, data: dict[str, Path]) -> Path | None:
    """resnet50 inference through inference/run.py with a vendor config of this check (eager,
    bf16 on the GPU: no TensorRT is assumed; the shipped nvidia config asks for TensorRT),
    written into the project copy."""
    vendor_config = run.proj / "inference" / "configs" / "resnet50" / "vendor_config"
    vendor_file = vendor_config / f"{run.vendor}_configuration.yaml"
    vendor_file.write_text(
        "engine: eager\nprecision: fp32\nimage_size: 64\nresize_size: 73\nnum_classes: 10\n"
        "batch_size: 8\nwarmup_batches: 1\nmax_items: 16\nlatency_queries: 5\nlatency_warmup: 1\n"
        if run.cpu else
        "engine: eager\nprecision: bf16\nbatch_size: 256\noffline_passes: 3\nlatency_queries: 200\n"
        "latency_warmup: 20\n")
    results = run.out / "results" / "infer_resnet50"
    host = run.work / "conf" / "infer_resnet50.yaml"
    host.parent.mkdir(parents=True, exist_ok=True)
    host.write_text(
        f'HOSTS: ["127.0.0.1"]\nMASTER_PORT: "29561"\nVENDOR: "{run.vendor}"\n'
        f'CHIP: "{run.chip}"\nSHM_SIZE: "16g"\nCLEAR_CACHES: false\nIN_CONTAINER_LAUNCH: true\n'
        f'WORK_ROOT: "{run.work / "work"}"\nFLAGPERF_LOG_PATH: "{results}"\nROUND_TIMEOUT: 300\n'
        f'MONITOR_INTERVAL: 1\nCASES:\n'
        f'  "resnet50:{FRAMEWORK}": "{data["digits"]}"\n')
    # resnet50 inference reads ImageNet-layout val/ folders: the digits' (10 classes)
    run_command(run, "infer_resnet50", [sys.executable, "-m", "chipperf.cli", "run", "--suite",
                                        "inference", "--host-config", str(host), "--wait",
                                        "--no-ingest"], 120)
    return newest_run(results)


# ---------------------------------------------------------------- figures


def newest_run(results: Path) -> Path | None:
    runs = sorted(results.glob("run*"), key=lambda p: p.stat().st_mtime)
    return runs[-1] if runs else None


def round_of(run_dir: Path | None) -> tuple[dict[str, Any] | None, str]:
    """The first round of the run's one case, or None and why."""
    if run_dir is None:
        return None, "no result directory (see the step's log)"
    for result in sorted(run_dir.glob("*/result.json")):
        case = json.loads(result.read_text())
        rounds = case.get("rounds") or []
        if not rounds:
            return None, f"no round: {case.get('status')} {case.get('reason') or ''}".strip()
        return rounds[0], ""
    return None, f"no case result.json in {run_dir}"


def figure_of(target: Target, record: dict[str, Any]) -> float | None:
    throughput = record.get("throughput") or {}
    if target.figure == "mfu":
        return record.get("mfu")
    if target.figure == "core":
        return throughput.get("pure_compute")
    return throughput.get("raw")


def verdict(target: Target, run_dir: Path | None, cpu: bool) -> str:
    record, why = round_of(run_dir)
    if record is None:
        return f"{target.what}: not measured: {why}"
    value = figure_of(target, record)
    if value is None and cpu and target.figure == "mfu":   # no cpu peak on the spec sheet
        target = Target(target.step, target.what, "throughput", target.least, "")
        value = figure_of(target, record)
        unit = (record.get("throughput") or {}).get("unit", "")
        return f"{target.what}: {value:,.1f} {unit} (cpu rehearsal: no MFU without a cpu peak)" \
            + (f"; execution {record.get('execution')}" if record.get("execution") else "")
    if value is None:
        return f"{target.what}: not measured: the round has no {target.figure} ({record.get('status')})"
    shown = f"{value * 100:.1f} %" if target.unit == "MFU" else f"{value:,.1f} {target.unit}"
    goal = f"{target.least * 100:.0f} %" if target.unit == "MFU" else f"{target.least:,.0f} {target.unit}"
    extra = f"; execution {record.get('execution')}" if record.get("execution") else ""
    if cpu:
        return f"{target.what}: {shown} (cpu rehearsal; the target {goal} is for one H100){extra}"
    met = "MEETS" if value >= target.least else "BELOW"
    return f"{target.what}: {shown} vs target >= {goal}: {met}{extra}"


# ---------------------------------------------------------------- main


def engine_imports(run: Run) -> bool:
    return subprocess.run([sys.executable, "-c", "import chipperf.cli, chipperf.remote.host"],
                          cwd=run.proj, env=run.env, capture_output=True).returncode == 0


def copy_project(work: Path) -> Path:
    proj = work / "proj"
    shutil.copytree(REPO, proj, ignore=shutil.ignore_patterns(
        ".git", ".venv", "result", "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache"))
    return proj


MODULES = {"pynacl": "nacl", "cffi": "_cffi_backend"}   # wheel name -> what it imports as


def unpack_wheels(run: Run, wheels: Path) -> None:
    """Unpack each wheel whose module this python lacks into a private folder, first on
    PYTHONPATH (a wheel is a zip of its site-packages files)."""
    site = run.work / "site"
    site.mkdir(parents=True, exist_ok=True)
    for wheel in sorted(wheels.glob("*.whl")):
        name = wheel.name.split("-")[0].lower()
        module = MODULES.get(name, name)
        if subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True).returncode:
            zipfile.ZipFile(wheel).extractall(site)
    run.env["PYTHONPATH"] = f"{site}{os.pathsep}{run.env['PYTHONPATH']}"


def parse_sets(parser: argparse.ArgumentParser, items: list[str]) -> dict[str, Any]:
    sets: dict[str, Any] = {}
    for item in items:
        name, equals, text = item.partition("=")
        if not name.strip() or not equals:
            parser.error(f"--set {item!r}: expected NAME=VALUE")
        try:
            sets[name.strip()] = json.loads(text)
        except ValueError:
            parser.error(f"--set {item!r}: the value must be a JSON literal (strings in double quotes)")
    return sets


def detect_chip(vendor: str) -> str:
    if vendor == "cpu":
        return "xeon"
    try:
        name = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                              capture_output=True, text=True, timeout=15).stdout
    except (OSError, subprocess.TimeoutExpired):
        name = ""
    return "H200" if "H200" in name else "A100" if "A100" in name else "H100"


def run_step(step: str, run: Run, data: dict[str, Path]) -> Path | None:
    """The step's result directory (None when it made none)."""
    return infer_step(run, data) if step == "infer_resnet50" else train_step(run, step, data)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--vendor", choices=("nvidia", "cpu"), default="nvidia")
    p.add_argument("--out", type=Path, required=True, help="an empty folder for the logs and results")
    p.add_argument("--budget", type=float, default=470.0, help="seconds for everything (default 470)")
    p.add_argument("--work", type=Path, default=Path("/tmp/chipperf-gpu-targets"))
    p.add_argument("--wheels", type=Path, default=REPO / ".whl" / "gpu-check",
                   help="wheels of what the engine imports and the python lacks (default .whl/gpu-check)")
    p.add_argument("--steps", nargs="*", default=[t.step for t in TARGETS],
                   choices=[t.step for t in TARGETS], help="the steps to run, in this order")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", dest="sets",
                   help="a training parameter for every training step, on top of its own "
                        "(VALUE a JSON literal: 32, \"max-autotune\"; repeatable)")
    args = p.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(args.work, ignore_errors=True)
    args.work.mkdir(parents=True)
    proj = copy_project(args.work)
    # the project copy first, then whatever the caller put there (unpacked wheels, say)
    pythonpath = os.pathsep.join(filter(None, [str(proj), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "PYTHONPATH": pythonpath, "PYTHONUNBUFFERED": "1", "HF_HUB_OFFLINE": "1",
           "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false",
           "TORCHINDUCTOR_CACHE_DIR": str(args.work / "inductor-cache"),
           "TRITON_CACHE_DIR": str(args.work / "triton-cache"),
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    run = Run(args.vendor, detect_chip(args.vendor), args.out.resolve(), args.work, proj,
              args.budget, env, parse_sets(p, args.sets))
    run.say(f"chipperf GPU targets: vendor {run.vendor}, chip {run.chip}, python {sys.executable}, "
            f"budget {args.budget:.0f} s, started {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}"
            + (f", every training step with {json.dumps(run.sets)}" if run.sets else ""))
    if not engine_imports(run) and args.wheels.is_dir():
        unpack_wheels(run, args.wheels)
    if not engine_imports(run):
        run.say("chipperf's engine does not import with this python (paramiko, docker?): give --wheels DIR")
        return 2
    t0 = time.monotonic()
    data = make_data(run)
    run.say(f"== data: {time.monotonic() - t0:.0f} s")
    rows = []
    by_step = {t.step: t for t in TARGETS}
    for target in (by_step[step] for step in dict.fromkeys(args.steps)):   # in the order given
        t0 = time.monotonic()
        run_dir = run_step(target.step, run, data) if run.left() > 40 else None
        row = verdict(target, run_dir, run.cpu)
        run.say(f"== {target.step}: {time.monotonic() - t0:.0f} s, "
                f"{int(run.left())} s of the budget left\n   {row}")
        rows.append(row)
    run.say("\n" + "\n".join(["issue 25 targets, one chip:"] + [f"  {r}" for r in rows]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
