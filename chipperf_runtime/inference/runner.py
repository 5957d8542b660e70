"""The inference case flow, shared by every case entry (``run_inference.py``).

    INIT_START, SUBMIT_INFO     configuration read (base, vendor, --set)
    ...                         data, model (+checkpoint), fp32 eager reference, engine build,
                                warm-up of both query shapes
    INIT_END
    TRAIN_START                 the timed window: offline scenario, then single-stream
    TRAIN_END
    EVALUATE                    accuracy and deviation from the fp32 eager reference
    FINISHED                    the inference FINISHED record (docs/inference.md)

A ``CaseError`` (bad config, data, engine) prints one message naming the case and the fix and
exits 2; not converging is a result (exit 0, ``converged: false``).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import torch

from chipperf_runtime.codeversion import script_digest
from chipperf_runtime.device import ENV_DEVICE, ENV_PLUGIN, DeviceError
from chipperf_runtime.device.torch import TorchDevice, open_torch_device
from chipperf_runtime.inference import config as configuration
from chipperf_runtime.inference import loadgen, measure, scenarios, sizes
from chipperf_runtime.inference.case import Case
from chipperf_runtime.inference.checkpoint import load_into
from chipperf_runtime.inference.engines import get_engine
from chipperf_runtime.inference.engines.base import EngineOptions, Runner
from chipperf_runtime.inference.errors import CaseError, EngineBuildError
from chipperf_runtime.inference.settings import Settings
from chipperf_runtime.inference.vendor_engines import VENDOR_ENGINES, only_engine, only_engine_problem
from chipperf_runtime.perflog import PerfLogger
from chipperf_runtime.workload import from_config as workload_from_config

EXIT_CASE_ERROR = 2
SCENARIO_ORDER = ("offline", "single_stream", "server")
SINGLE_STREAM_PERCENTILE = 90   # MLPerf judges SingleStream by its 90th percentile latency
SERVER_PERCENTILE = 99          # and Server (resnet50, bert) by its 99th


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="chipperf inference case")
    p.add_argument("--data_dir", required=True)
    p.add_argument("--extern_config_dir", required=True, help="holds configuration.yaml")
    p.add_argument("--extern_config_file", default=None,
                   help="<vendor>_configuration.yaml in <extern_config_dir>/vendor_config/")
    p.add_argument("--output_dir", default=None)
    p.add_argument("--set", action="extend", nargs="+", default=[], metavar="KEY=VALUE",
                   help="override a configuration key (repeatable)")
    return p.parse_args(argv)


def main(case: Case, argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    log = PerfLogger()
    return exit_status(case.model, lambda: run(case, args, log))


def exit_status(model: str, work: Callable[[], object]) -> int:
    """0 once ``work`` has run; a CaseError is one line on stderr, named by CHIPPERF_CASE
    (else ``model``), and EXIT_CASE_ERROR."""
    label = os.environ.get("CHIPPERF_CASE") or model
    try:
        work()
    except CaseError as exc:
        print(f"chipperf inference case {label}: error: {exc}", file=sys.stderr, flush=True)
        return EXIT_CASE_ERROR
    return 0


def run(case: Case, args: argparse.Namespace, log: PerfLogger) -> dict:
    start = time.perf_counter()
    log.event("INIT_START", {"model": case.model})
    config, notes = configuration.load_with_notes(args.extern_config_dir,
                                                  args.extern_config_file, args.set)
    for note in notes:
        print(f"chipperf inference case {case.model}: note: {note}", file=sys.stderr, flush=True)
    s = Settings.from_config(config)
    refuse_off_chip_engine(vendor_name(args.extern_config_file) or "", s.engine)
    device = open_device(s, host_fed(s.engine))
    log.event("SUBMIT_INFO", {"vendor": vendor_name(args.extern_config_file), "model": case.model,
                              "engine": s.engine, "precision": s.precision, "device": device.type,
                              "case_version": script_digest(),
                              "config": configuration.thaw(config),
                              "workload": workload_from_config(configuration.thaw(config),
                                                               precision=s.precision).as_dict(),
                              "config_notes": notes, **host_fed_note(s.engine, device)})
    setup_torch(s, device)
    with tempfile.TemporaryDirectory(prefix="chipperf-infer-") as scratch:
        options = engine_options(s, case, Path(scratch), device, config)
        engine = get_engine(s.engine, options)
        engine.check(s.precision)
        check_targets(s, case)
        return measure_case(case, config, s, engine, options, args, log, start)


def refuse_off_chip_engine(vendor: str, engine: str) -> None:
    """A vendor reached only through its SDK's engine (zixiao, hexaflake) runs no other."""
    problem = only_engine_problem(vendor, engine)
    if problem:
        raise CaseError(f"{problem}: set engine to {only_engine(vendor)}")


def host_fed(engine: str) -> bool:
    spec = VENDOR_ENGINES.get(engine)
    return spec is not None and spec.host_fed


def host_fed_note(engine: str, device: TorchDevice) -> dict:
    """SUBMIT_INFO's word on where a host-fed vendor engine (vendor_engines.py) computes."""
    if not host_fed(engine):
        return {}
    return {"engine_device": f"vendor {device.vendor}'s accelerator through "
                             f"{VENDOR_ENGINES[engine].sdk}; PyTorch (pre-processing, the fp32 "
                             "reference) on the host CPU"}


def open_device(s: Settings, on_host: bool = False) -> TorchDevice:
    """The vendor's device (launch environment), checked against a ``device`` key if given;
    the host CPU under the vendor's name when the engine is host-fed (its SDK owns the chip)."""
    environ = {**os.environ, ENV_DEVICE: "cpu", ENV_PLUGIN: ""} if on_host else None
    try:
        device = open_torch_device(0, environ)
    except DeviceError as exc:
        raise CaseError(str(exc)) from exc
    if s.device is not None and s.device != device.type:
        raise CaseError(f"the configuration says device: {s.device}, but vendor {device.vendor} "
                        f"names device {device.type}: remove the device key (the vendor names "
                        "the device) or run with the vendor whose device it is")
    return device


def measure_case(case: Case, config: Mapping[str, Any], s: Settings, engine: Any,
                 options: EngineOptions, args: argparse.Namespace, log: PerfLogger,
                 start: float) -> dict:
    device = options.device
    data = case.load_data(config, args.data_dir, s.max_items)
    if len(data) < s.batch_size:
        raise CaseError(f"the data set has {len(data)} items, fewer than batch_size "
                        f"{s.batch_size}: lower batch_size or give more data")
    model = build_model(case, config, data, s, device)
    example = measure.to_device(measure.first_batch(data, s.batch_size).inputs, device)
    flops = s.flops_per_item or measure.forward_flops(model, [t[:1] for t in example])
    timed = case.postprocess(config) if case.postprocess else case.decide
    engine_run, build_s = build_engine(engine, model, example, data, s, log, device, timed)

    logs = logs_dir(args.output_dir)
    log.event("TRAIN_START", {"scenarios": list(s.scenarios), "loadgen_logs": str(logs)})
    window = time.perf_counter()
    measured = run_scenarios(engine_run, data, s, device, timed, logs)
    window_s = time.perf_counter() - window
    log.event("TRAIN_END", {"time_s": window_s, "items": window_items(measured)})

    items = min(s.accuracy_items or len(data), len(data))
    acc = measure.accuracy(engine_run, reference_runner(model), data, items, s.batch_size,
                           case.scored, device, case.decide, case.agree)
    evaluation = evaluate(acc, s, case)
    if case.evaluation is not None:
        evaluation = case.evaluation(evaluation, engine_run, reference_runner(model), data, items,
                                     config, device.device)
    log.event("EVALUATE", evaluation)
    finished = finished_record(s, measured, evaluation, flops, build_s, window_s, start, device)
    reduced = sizes.preset_record(config, configuration.load(args.extern_config_dir, None),
                                  sum(p.numel() for p in model.parameters()))
    if reduced is not None:
        finished["preset"] = reduced
    execution = getattr(model, "execution", None)   # how the model ran, where it says (intel_gaudi's SD)
    if isinstance(execution, dict) and execution:
        finished["execution"] = dict(execution)
    log.event("FINISHED", finished)
    return finished


def build_engine(engine: Any, model: torch.nn.Module, example: Sequence[torch.Tensor],
                 data: Any, s: Settings, log: PerfLogger, device: TorchDevice,
                 timed: measure.Decide) -> tuple[Runner, float]:
    """Build and warm up the engine; INIT_END. Returns (runner, build s)."""
    built = time.perf_counter()
    engine_run = engine.prepare(model, example, s.precision)
    build_s = time.perf_counter() - built
    samples = measure.latency_samples(data, min(max(1, s.latency_warmup), len(data)), device)
    warm = time.perf_counter()
    try:
        warm_up(engine_run, example, samples, s, timed)
    except CaseError:
        raise
    except Exception as exc:  # noqa: BLE001 - the engine built but cannot run these inputs
        raise EngineBuildError(f"engine {s.engine!r} ({s.precision}) built but failed on its "
                               f"first queries: {exc}: try another precision or engine") from exc
    log.event("INIT_END", {"engine_build_time_s": build_s,
                           "warmup_time_s": time.perf_counter() - warm, "data": data.describe(),
                           **device.describe()})
    return engine_run, build_s


def logs_dir(output_dir: str | None) -> Path:
    """Where LoadGen writes: the round's output directory, or (none given) a fresh temp one."""
    root = Path(output_dir) if output_dir else Path(tempfile.mkdtemp(prefix="chipperf-loadgen-"))
    return root / "loadgen"


def loadgen_limits(s: Settings) -> loadgen.Limits:
    """What LoadGen is told; single stream is judged at its 90th percentile latency (MLPerf's)
    and the server at SERVER_PERCENTILE."""
    return loadgen.Limits(s.loadgen_min_duration_ms, s.loadgen_max_duration_ms, 1,
                          s.offline_expected_qps, s.single_stream_expected_latency_ms,
                          SINGLE_STREAM_PERCENTILE)


def run_scenarios(run: Runner, data: Any, s: Settings, device: TorchDevice,
                  timed: measure.Decide, logs: Path) -> dict:
    """Each configured scenario through MLPerf LoadGen (``scenarios.py``), and LoadGen's word."""
    limits = loadgen_limits(s)
    out: dict[str, Any] = {}
    if "offline" in s.scenarios:
        out["offline"] = scenarios.offline(run, data, s.batch_size, s.offline_passes, device,
                                           limits, logs, timed)
    if "single_stream" in s.scenarios:
        out["single_stream"] = scenarios.single_stream(run, data, s.latency_queries, device,
                                                       limits, logs, timed)
    if "server" in s.scenarios:
        server = replace(limits, percentile=SERVER_PERCENTILE, latency_ms=s.server_latency_ms)
        out["server"] = scenarios.server(run, data, s.batch_size, s.server_queries,
                                         s.server_target_qps, device, server, logs, timed)
    record = loadgen.record(limits, "offline: offline_passes x the full batches of the data "
                                    "set; single stream: latency_queries; server: "
                                    "server_queries")
    out["loadgen"] = {**record, "results": {name: loadgen.verdict_text(out[name]["loadgen"])
                                            for name in SCENARIO_ORDER if name in out}}
    return out


def window_items(measured: Mapping[str, Any]) -> int:
    return sum(measured[name]["items"] for name in SCENARIO_ORDER if name in measured)


def check_targets(s: Settings, case: Case) -> None:
    if s.tolerance_for(s.engine, s.precision) is None:
        raise CaseError(f"no tolerance for engine {s.engine!r} at {s.precision}: add "
                        f"tolerance.{s.engine}.{s.precision} (or tolerance.default."
                        f"{s.precision}) to configuration.yaml")
    if not (s.checkpoint and case.labelled) and s.agreement_for(s.precision) is None:
        raise CaseError(f"no agreement_target for precision {s.precision}: add "
                        f"agreement_target.{s.precision} to configuration.yaml")


def vendor_name(vendor_file: str | None) -> str | None:
    return configuration.vendor_of(vendor_file) if vendor_file else None


def setup_torch(s: Settings, device: TorchDevice) -> None:
    torch.manual_seed(s.seed)
    if s.num_threads:
        torch.set_num_threads(s.num_threads)
    device.full_precision_fp32()  # fp32 means fp32: no TF32 in the reference or the engines


def engine_options(s: Settings, case: Case, scratch: Path, device: TorchDevice,
                   config: Mapping[str, Any] | None = None) -> EngineOptions:
    return EngineOptions(device=device, work_dir=scratch, input_names=case.input_names,
                         onnx_file=s.onnx_file, onnx_opset=s.onnx_opset,
                         num_threads=s.num_threads, compile_mode=s.compile_mode,
                         trt_workspace_gb=s.trt_workspace_gb, batch_size=s.batch_size,
                         engine_options=dict((config or {}).get("engine_options") or {}))


def build_model(case: Case, config: Mapping[str, Any], data: Any, s: Settings,
                device: TorchDevice) -> torch.nn.Module:
    torch.manual_seed(s.seed)
    model = case.build_model(config, data)
    if s.checkpoint:
        load_into(model, s.checkpoint, case.ignorable_keys)
    return model.to(device.device).eval().requires_grad_(False)


def reference_runner(model: torch.nn.Module) -> Runner:
    """fp32 PyTorch eager on the model itself (already fp32, on the device, in eval mode)."""

    def run(*inputs: torch.Tensor) -> torch.Tensor:
        with torch.inference_mode():
            return model(*inputs)

    return run


def warm_up(run: Runner, example: Sequence[torch.Tensor], samples: Sequence[Sequence],
            s: Settings, timed: measure.Decide) -> None:
    """Both query shapes (batch_size and 1), so lazy builds happen before the timed window."""
    for _ in range(s.warmup_batches):
        measure.postprocess(run(*example), timed)
    for q in range(max(1, s.latency_warmup)):
        measure.postprocess(run(*samples[q % len(samples)]), timed)


def evaluate(acc: measure.Accuracy, s: Settings, case: Case) -> dict:
    """The metric: top-1 vs labels with real weights, else top-1 agreement with fp32 eager."""
    scored = max(acc.scored, 1)
    tolerance = s.tolerance_for(s.engine, s.precision)
    if s.checkpoint and case.labelled:
        metric = {"name": "top1_accuracy", "value": acc.correct / scored,
                  "target": s.accuracy_target, "higher_is_better": True}
    else:
        why = "random weights (no checkpoint)" if not s.checkpoint else "the data has no labels"
        metric = {"name": case.agreement_metric, "value": acc.agree / scored,
                  "target": s.agreement_for(s.precision), "higher_is_better": True,
                  "note": f"{why}: agreement with fp32 eager"}
    return {"metric": metric, "reference": acc.deviation.report(tolerance or 0.0),
            "items": acc.items, "scored": acc.scored,
            "top1_vs_labels": acc.correct / scored, "top1_agreement": acc.agree / scored,
            "reference_top1_vs_labels": acc.reference_correct / scored,
            "reference_distinct_top1": acc.distinct_reference}


def finished_record(s: Settings, measured: dict, evaluation: dict, flops: float,
                    build_s: float, window_s: float, start: float, device: TorchDevice) -> dict:
    """The FINISHED record: throughput "whole" (``raw``: LoadGen's offline samples/s, host
    pre-processing, transfer, engine and post-processing) and "core" (``pure_compute``: items
    over the engine calls' seconds) of the headline scenario (offline, else server, else single
    stream), single-stream latency percentiles (LoadGen's), accuracy, peak memory."""
    metric, reference = evaluation["metric"], evaluation["reference"]
    peak, peak_source = measure.peak_memory(device, s.engine)
    name = next(n for n in ("offline", "server", "single_stream") if n in measured)
    head = measured[name]
    latency = (measured.get("single_stream") or head).get("latency_ms")
    out = {
        "e2e_time_s": time.perf_counter() - start,
        "train_time_s": window_s, "train_no_eval_time_s": window_s,
        "pure_compute_time_s": head["compute_s"],
        "work_unit": "items", "work_done": head["items"], "window_work": window_items(measured),
        "throughput": {"raw": head["samples_per_s"], "pure_compute": head["core_samples_per_s"],
                       "unit": "items/s", "scenario": name,
                       "source": f"MLPerf LoadGen's {name} summary ({head['loadgen']['result']})"},
        "latency_ms": latency,
        "engine": s.engine, "precision": s.precision, "dtype": s.precision, "device": device.type,
        "batch_size": s.batch_size,
        "metric": metric, "reference": reference,
        "converged": bool(reference["within_bound"] and metric["value"] >= metric["target"]),
        "flops_per_unit": flops, "world_size": 1,
        "peak_memory_bytes": peak, "peak_memory_source": peak_source,
        "engine_build_time_s": build_s,
        "loadgen": measured["loadgen"],
        **{n: measured[n] for n in SCENARIO_ORDER if n in measured},
    }
    if "latency_ms" not in (measured.get("single_stream") or {}):
        out["latency_ms_from"] = f"the {name} scenario (no single-stream run)"
    return out
