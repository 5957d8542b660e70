"""Synthetic run directories in the documented layout, for tests, benchmarks and docs.

Never used by a run: ``write_run`` writes what a controller, a case and the monitor
sidecars would have written (``run.json``, status files, PerfLog lines, JSONL
samples) from a small description, so the results code can be exercised, timed and
broken on purpose (tests truncate, corrupt or delete files after writing).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from chipperf_runtime.perflog import MARKER
from chipperf_runtime.vendors import get_vendor

T0_MS = 1_700_000_000_000
INIT_S = 5          # INIT_START .. TRAIN_START
TAIL_S = 3          # TRAIN_END .. end of the round


@dataclass(frozen=True)
class SynthRound:
    throughput: float = 1000.0            # samples/s over the train window (inference: items/s
    converged: bool = True                # of the offline scenario)
    status: str = "succeeded"
    finished: bool = True                 # rank 0 logs FINISHED
    latency_ms: float = 10.0              # inference: single-stream p50 (p90 1.25x, p99 2x)
    queries: int = 100                    # inference: single-stream queries in the window
    max_abs_diff: float = 1e-5            # inference: deviation from the reference


@dataclass(frozen=True)
class SynthCase:
    model: str = "resnet50"
    framework: str = "pytorch_2.13"
    chip: str = "A100"
    vendor: str = "nvidia"
    nnodes: int = 2
    nproc: int = 2
    seconds: int = 60                     # length of the train window
    rounds: tuple[SynthRound, ...] = (SynthRound(), SynthRound(1010.0), SynthRound(990.0))
    dtype: str = "bf16"
    flops_per_unit: float = 12.3e9
    chip_power_w: float = 300.0
    node_power_w: float = 2500.0
    energy_counter: bool = False          # accelerator lines carry a running energy_mj
    step_every_s: int = 1                 # one STEP_END per this many seconds
    engine: str = "onnxruntime"           # inference only
    evaluations: int = 0                  # EVALUATE events spread over the window (training)
    smoke_test: str = ""                  # the dataset card's smoke_test (SUBMIT_INFO)
    config: tuple[tuple[str, object], ...] = ()   # SUBMIT_INFO's config (the workload)
    bench: bool = False                   # base/ or operation/: a bench FINISHED (value, method)
    # training FINISHED's attention pair (attention_flops_per_unit, causal_attention); None: absent
    attention: tuple[float, bool] | None = None

    @property
    def key(self) -> str:
        repeat = len(self.rounds)
        return f"{self.model}:{self.framework}:{self.chip}:{self.nnodes}:{self.nproc}:{repeat}"

    @property
    def dir_name(self) -> str:
        return f"{self.model}-{self.framework}-{self.chip}-{self.nnodes}x{self.nproc}"


@dataclass
class _Clock:
    now_ms: int = T0_MS
    rounds: list[dict[str, Any]] = field(default_factory=list)


def write_run(root: Path, cases: Sequence[SynthCase] = (SynthCase(),), *,
              run_id: str = "run20231114221320", interval_s: float = 1.0,
              suite: str = "training") -> Path:
    """Write a finished run under ``root`` and return its directory."""
    run_dir = Path(root) / run_id
    run_dir.mkdir(parents=True)
    clock = _Clock()
    entries = {case.dir_name: _write_case(run_dir, case, clock, interval_s, suite)
               for case in cases}
    hosts = [f"10.0.0.{i + 1}" for i in range(max(c.nnodes for c in cases))]
    run = {
        "run_id": run_id, "chipperf_version": "0.1.0", "suite": suite,
        "started_at": "2023-11-14T22:13:20Z", "finished_at": "2023-11-14T23:13:20Z",
        "status": "succeeded" if all(e["status"] == "succeeded" for e in entries.values())
        else "failed",
        "cluster": {"hosts": hosts},
        "test": {"vendor": cases[0].vendor, "monitor_interval_s": interval_s},
        "hosts": {h: {"node_rank_max": 0, "docker_version": "24.0"} for h in hosts},
        "cases": entries,
    }
    (run_dir / "run.json").write_text(json.dumps(run, indent=2))
    return run_dir


def _write_case(run_dir: Path, case: SynthCase, clock: _Clock, interval_s: float,
                suite: str) -> dict:
    rounds = []
    for number, spec in enumerate(case.rounds, start=1):
        rounds.append(_write_round(run_dir, case, number, spec, clock, (interval_s, suite)))
    failed = [r for r in rounds if r["status"] != "succeeded"]
    return {"key": case.key, "vendor": case.vendor, "chip": case.chip,
            "data_dir": f"/data/{case.model}",
            "image": f"chipperf/{case.vendor}-{case.framework}:abc123",
            "status": failed[0]["status"] if failed else "succeeded",
            "reason": failed[0]["reason"] if failed else "", "rounds": rounds}


def _write_round(run_dir: Path, case: SynthCase, number: int, spec: SynthRound, clock: _Clock,
                 how: tuple[float, str]) -> dict:
    start = clock.now_ms
    train_start = start + INIT_S * 1000
    train_end = train_start + case.seconds * 1000
    end = train_end + TAIL_S * 1000
    clock.now_ms = end + 2000
    hosts = [f"10.0.0.{i + 1}" for i in range(case.nnodes)]
    nodes = {}
    for rank, host in enumerate(hosts):
        name = f"{host}_noderank{rank}"
        node_dir = run_dir / case.dir_name / f"round{number}" / name
        node_dir.mkdir(parents=True)
        _write_node(node_dir, case, rank, spec, (start, train_start, train_end, end), how)
        nodes[name] = spec.status
    reason = "" if spec.status == "succeeded" else "rank 0 exited with 1"
    return {"number": number, "status": spec.status, "reason": reason, "started_ms": start,
            "finished_ms": end, "nodes": nodes}


def _write_node(node_dir: Path, case: SynthCase, node_rank: int, spec: SynthRound,
                times: tuple[int, int, int, int], how: tuple[float, str]) -> None:
    interval_s, suite = how
    reason = "" if spec.status == "succeeded" else "rank 0 exited with 1"
    (node_dir / "status").write_text(spec.status + (f"\n{reason}\n" if reason else "\n"))
    (node_dir / "launcher.log").write_text("launching torchrun\n")
    (node_dir / "sys_info.json").write_text(json.dumps(_sys_info(node_dir.name, case)))
    for local in range(case.nproc):
        rank = node_rank * case.nproc + local
        with open(node_dir / f"rank{rank}.out.log", "w") as out:
            if rank == 0 and suite == "inference":
                _write_inference_rank0(out, case, spec, times)
            elif rank == 0 and case.bench:
                _write_spec_rank0(out, case, spec, times, suite)
            elif rank == 0:
                _write_rank0(out, case, spec, times)
            else:
                out.write(f"rank {rank} ready\ntraining...\ndone\n")
    _write_monitors(node_dir, case, node_rank, times, interval_s)


def _sys_info(name: str, case: SynthCase) -> dict[str, Any]:
    """A node's sys_info.json as chipperf_runtime.monitors.sysinfo writes it (the parts reports read)."""
    accel = {"vendor": case.vendor, "count": 0, "note": "no accelerator telemetry"} \
        if case.vendor == "cpu" else \
        {"vendor": case.vendor, "model": case.chip, "count": case.nproc,
         "driver_version": "535.104.05", "runtime_version": "CUDA 12.2 (driver API)"}
    return {"hostname": name, "os": {"name": "Debian GNU/Linux 12 (bookworm)"},
            "kernel": {"release": "6.1.0-13-amd64"},
            "cpu": {"model": "Intel(R) Xeon(R) Platinum 8358 CPU @ 2.60GHz", "logical_cpus": 128},
            "memory": {"total_bytes": 1024 * 2**30}, "accelerators": accel,
            "docker": {"server_version": "24.0.7"},
            "frameworks": {"torch": {"distribution": "torch", "version": "2.13.0"},
                           "paddle": {"unavailable": "none of paddlepaddle is installed"}}}


def _event(out: TextIO, name: str, value: dict, time_ms: int) -> None:
    record = {"event": name, "value": value,
              "metadata": {"file": "run_pretraining.py", "lineno": 1, "time_ms": time_ms,
                           "rank": 0}}
    out.write(MARKER + json.dumps(record) + "\n")


def _write_rank0(out: TextIO, case: SynthCase, spec: SynthRound,
                 times: tuple[int, int, int, int]) -> None:
    start, train_start, train_end, end = times
    card = {"name": f"{case.model} data", "smoke_test": case.smoke_test} if case.smoke_test \
        else None
    _event(out, "SUBMIT_INFO", {"vendor": case.vendor, "model": case.model, "dataset": card,
                                "config": dict(case.config)}, start)
    _event(out, "INIT_START", {}, start)
    out.write("loading data...\n")
    _event(out, "INIT_END", {}, train_start - 100)
    _event(out, "TRAIN_START", {}, train_start)
    for second in range(case.step_every_s, case.seconds + 1, case.step_every_s):
        _event(out, "STEP_END", {"step": second, "loss": 1.0 / second},
               train_start + second * 1000 - 1)
        out.write(f"step {second} loss {1.0 / second:.4f}\n")
    for k in range(1, case.evaluations + 1):
        value = (0.76 if spec.converged else 0.5) * k / case.evaluations
        _event(out, "EVALUATE", {"epoch": k, "name": "top1", "value": value, "target": 0.75,
                                 "higher_is_better": True, "reached": value >= 0.75},
               train_start + case.seconds * 1000 * k // case.evaluations - 2)
    _event(out, "TRAIN_END", {}, train_end)
    if not spec.finished:
        return
    work = int(spec.throughput * case.seconds)
    seconds = float(case.seconds)
    _event(out, "FINISHED", {
        "e2e_time_s": (end - start) / 1000, "train_time_s": seconds,
        "train_no_eval_time_s": seconds * 0.95, "pure_compute_time_s": seconds * 0.8,
        "work_unit": "samples", "work_done": work,
        "throughput": {"raw": work / seconds, "no_eval": work / (seconds * 0.95),
                       "pure_compute": work / (seconds * 0.8), "unit": "samples/s"},
        "converged": spec.converged,
        "metric": {"name": "top1", "value": 0.76 if spec.converged else 0.5, "target": 0.75,
                   "higher_is_better": True},
        "flops_per_unit": case.flops_per_unit, "dtype": case.dtype,
        "world_size": case.nnodes * case.nproc, "peak_memory_bytes": 40 * 2**30,
        **({} if case.attention is None else {"attention_flops_per_unit": case.attention[0],
                                              "causal_attention": case.attention[1]}),
    }, end)


def _write_inference_rank0(out: TextIO, case: SynthCase, spec: SynthRound,
                           times: tuple[int, int, int, int]) -> None:
    """An inference case's events (docs/inference.md): the window holds the offline
    scenario (80 % of it) and then ``spec.queries`` single-stream queries."""
    start, train_start, train_end, end = times
    _event(out, "SUBMIT_INFO", {"vendor": case.vendor, "model": case.model,
                                "engine": case.engine, "precision": case.dtype,
                                "config": dict(case.config)},
           start)
    _event(out, "INIT_START", {}, start)
    _event(out, "INIT_END", {"engine_build_time_s": 1.0}, train_start - 100)
    _event(out, "TRAIN_START", {"scenarios": ["offline", "single_stream"]}, train_start)
    offline_s = case.seconds * 0.8
    work = int(spec.throughput * offline_s)
    _event(out, "TRAIN_END", {"time_s": float(case.seconds), "items": work}, train_end)
    metric = {"name": "top1_agreement", "value": 1.0 if spec.converged else 0.9,
              "target": 0.99, "higher_is_better": True}
    bound = 1e-3 * 50.0
    reference = {"max_abs_diff": spec.max_abs_diff, "mean_abs_diff": spec.max_abs_diff / 5,
                 "bound": bound, "tolerance": 1e-3, "max_abs_reference": 50.0,
                 "nonfinite_outputs": 0, "within_bound": spec.max_abs_diff <= bound}
    _event(out, "EVALUATE", {"metric": metric, "reference": reference}, end - 10)
    if not spec.finished:
        return
    p50 = spec.latency_ms
    _event(out, "FINISHED", {
        "e2e_time_s": (end - start) / 1000, "train_time_s": float(case.seconds),
        "train_no_eval_time_s": float(case.seconds), "pure_compute_time_s": offline_s * 0.9,
        "work_unit": "items", "work_done": work,
        "throughput": {"raw": work / offline_s, "pure_compute": work / (offline_s * 0.9),
                       "unit": "items/s"},
        "latency_ms": {"p50": p50, "p90": p50 * 1.25, "p99": p50 * 2, "mean": p50 * 1.1,
                       "min": p50 * 0.8, "max": p50 * 2, "count": spec.queries},
        "engine": case.engine, "precision": case.dtype, "dtype": case.dtype,
        "device": get_vendor(case.vendor).device, "batch_size": 8,
        "metric": metric, "reference": reference,
        "converged": spec.converged and reference["within_bound"],
        "flops_per_unit": case.flops_per_unit, "world_size": case.nnodes * case.nproc,
        "peak_memory_bytes": 2**30, "peak_memory_source": "synthetic",
        "offline": {"items": work, "batches": work // 8, "passes": 1, "wall_s": offline_s,
                    "compute_s": offline_s * 0.9},
    }, end)


def _write_spec_rank0(out: TextIO, case: SynthCase, spec: SynthRound,
                      times: tuple[int, int, int, int], suite: str) -> None:
    """A base/ GEMM or an operation/ mm (docs/base-and-operation.md): ``spec.throughput`` is
    the value in TFLOP/s; base/ times the bare torch loop beside it at 0.98 of that (and on
    the cpu vendor numpy's GEMM at 1/1.1 of it)."""
    start, train_start, train_end, end = times
    _event(out, "SUBMIT_INFO", {"vendor": case.vendor, "model": case.model, "suite": suite,
                                "config": {"M": 4096, "N": 4096, "K": 4096}}, start)
    _event(out, "INIT_START", {}, start)
    _event(out, "TRAIN_START", {}, train_start)
    _event(out, "TRAIN_END", {"window_s": float(case.seconds)}, train_end)
    flops = spec.throughput * 1e12 * case.seconds
    value: dict[str, Any] = {
        "e2e_time_s": (end - start) / 1000, "suite": suite, "world_size": 1,
        "value": spec.throughput, "unit": "TFLOP/s", "train_time_s": float(case.seconds),
        "train_no_eval_time_s": float(case.seconds), "pure_compute_time_s": float(case.seconds),
        "work_unit": "FLOP", "work_done": int(flops),
        "throughput": {"raw": flops / case.seconds, "no_eval": flops / case.seconds,
                       "pure_compute": flops / case.seconds, "unit": "FLOP/s"},
        "metric": {"name": "TFLOP/s", "value": spec.throughput, "target": None,
                   "higher_is_better": True},
        "flops_per_unit": 1.0, "dtype": case.dtype, "peak_memory_bytes": None,
        "converged": True, "spec_peak": 989.0, "share_of_peak": spec.throughput / 989.0}
    if suite == "base":
        value.update(spec=case.model, method={
            "what": "C = A @ B, 2*M*N*K FLOPs per GEMM", "M": 4096, "N": 4096, "K": 4096,
            "dtype": case.dtype.upper(), "warmup": 3, "min_iters": 10, "min_time_s": 1.0,
            "iterations": 500, "timing": "wall clock over the whole loop"},
            reference={"value": spec.throughput / 0.98, "unit": "TFLOP/s",
                       "method": "torch matmul 4096^3, bare loop"})
        if case.vendor == "cpu":      # numpy's GEMM beside it, at 1/1.1 of the value
            value["numpy_reference"] = {"value": spec.throughput / 1.1, "unit": "TFLOP/s",
                                        "method": "numpy matmul 4096^3, 2 threads"}
        else:
            value["numpy_reference_reason"] = "numpy runs on the host CPU, not on this device"
    else:
        shapes = [[1024, 1024, 1024], [4096, 4096, 4096]]
        lat = {"p50": spec.latency_ms, "p90": spec.latency_ms * 1.25,
               "p99": spec.latency_ms * 2, "count": spec.queries}
        value.update(operator=case.model.split("-")[0], method={
            "what": "mm via nativetorch", "shape_form": "M,K,N", "warmup": 2, "min_iters": 10,
            "timing": "each call timed alone"}, latency_ms=lat,
            correctness={"passed": spec.converged, "shapes": [
                {"shape": s, "passed": spec.converged, "max_abs_err": spec.max_abs_diff}
                for s in shapes]},
            shapes=[{"shape": s, "latency_ms": lat, "calls": spec.queries,
                     "tflops": spec.throughput / (4 - 3 * i)} for i, s in enumerate(shapes)])
    _event(out, "FINISHED", value, end)


def _write_monitors(node_dir: Path, case: SynthCase, node_rank: int,
                    times: tuple[int, int, int, int], interval_s: float) -> None:
    start, train_start, train_end, end = times
    step = int(interval_s * 1000)
    stamps = range(start - step, end + 2 * step, step)
    names = ("cpu", "mem", "pwr") + ((case.vendor,) if case.vendor != "cpu" else ())
    files: dict[str, TextIO] = {name: open(node_dir / f"{name}_monitor.log", "w")
                                for name in names}
    try:
        for name, out in files.items():
            out.write(json.dumps({"ts_ms": start - step, "source": name, "info": {},
                                  "interval_s": interval_s}) + "\n")
        energy = [0.0] * case.nproc
        for ts in stamps:
            busy = train_start <= ts <= train_end
            _sample_line(files, case, node_rank, ts, busy, energy, step)
    finally:
        for out in files.values():
            out.close()


def _sample_line(files: dict[str, TextIO], case: SynthCase, node_rank: int, ts: int, busy: bool,
                 energy: list[float], step_ms: int) -> None:
    wave = math.sin(ts / 7000.0 + node_rank)
    files["cpu"].write(f'{{"ts_ms":{ts},"source":"cpu","util_pct":{30 + 5 * wave:.2f}}}\n')
    files["mem"].write(f'{{"ts_ms":{ts},"source":"mem","used_bytes":{200 * 2**30 + node_rank},'
                       f'"total_bytes":{512 * 2**30},"used_pct":{39.06:.2f}}}\n')
    node_w = case.node_power_w * (1.0 if busy else 0.6) + 20 * wave
    files["pwr"].write(f'{{"ts_ms":{ts},"source":"ipmi","power_w":{node_w:.1f}}}\n')
    if case.vendor not in files or case.vendor == "cpu":
        return
    devices = []
    for index in range(case.nproc):
        watts = case.chip_power_w * (1.0 if busy else 0.3) + 10 * wave
        energy[index] += watts * step_ms
        item = {"index": index, "util_pct": 97.0 if busy else 0.0, "power_w": round(watts, 2),
                "mem_used_bytes": (60 if busy else 2) * 2**30 + index,
                "mem_total_bytes": 80 * 2**30}
        if case.energy_counter:
            item["energy_mj"] = round(energy[index], 1)
        devices.append(item)
    files[case.vendor].write(json.dumps({"ts_ms": ts, "source": case.vendor,
                                         "devices": devices}) + "\n")
