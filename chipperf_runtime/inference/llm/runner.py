"""The LLM serving case flow (llama3_8b's ``run_inference.py`` hands itself to ``main``).

    INIT_START, SUBMIT_INFO     configuration read (base, vendor, --set)
    ...                         tokenizer, requests, model (random, seeded), engine build,
                                warm-up of batch sizes 1, 2, 4, ... batch_size
    INIT_END
    TRAIN_START                 the timed window: MLPerf LoadGen runs offline, single stream,
                                server (rate search); its logs go to <output_dir>/loadgen/
    TRAIN_END
    EVALUATE                    greedy token agreement and logit deviation vs fp32 eager
    FINISHED                    the inference FINISHED record + ``serving`` (docs/inference.md)

Errors the evaluator can fix print one line naming the case and the fix, exit status 2.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Mapping, Sequence

import torch

from chipperf_runtime.inference import config as configuration
from chipperf_runtime.inference import loadgen as harness
from chipperf_runtime.inference import measure
from chipperf_runtime.inference.errors import CaseError
from chipperf_runtime.inference.llm import accuracy, loadgen_sut, model, preset, prompts, scenarios
from chipperf_runtime.inference.llm.engines import Generator, TransformersGenerator, get_engine, warm_up
from chipperf_runtime.inference.llm.served import case as served
from chipperf_runtime.inference.llm.settings import LLMSettings
from chipperf_runtime.inference.runner import (
    exit_status,
    logs_dir,
    open_device,
    parse_args,
    vendor_name,
)
from chipperf_runtime.perflog import PerfLogger
from chipperf_runtime.workload import from_config as workload_from_config

# Each scenario draws its own requests (stream numbers of the workload's generator).
STREAMS = {"warmup": 0, "offline": 1, "single_stream": 2, "server": 3, "accuracy": 4}


def main(name: str, argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    log = PerfLogger()
    return exit_status(name, lambda: run(name, args, log))


def run(name: str, args: argparse.Namespace, log: PerfLogger) -> dict:
    start = time.perf_counter()
    log.event("INIT_START", {"model": name})
    config = configuration.load(args.extern_config_dir, args.extern_config_file, args.set)
    s = LLMSettings.from_config(config)
    device = open_device(s)  # type: ignore[arg-type]  # reads only .device
    log.event("SUBMIT_INFO", {"vendor": vendor_name(args.extern_config_file), "model": name,
                              "engine": s.engine, "precision": s.precision, "device": device.type,
                              "config": configuration.thaw(config),
                              "workload": workload_from_config(configuration.thaw(config),
                                                               precision=s.precision).as_dict()})
    if s.engine in served.SERVED_ENGINES:   # a real engine behind its server: served/case.py
        return served.run(name, args, config, s.engine, log, start)
    torch.manual_seed(s.seed)
    if s.num_threads:
        torch.set_num_threads(s.num_threads)
    device.full_precision_fp32()
    engine = get_engine(s.engine, device, s)
    engine.check(s.precision)
    check_targets(s)
    loadgen_sut.loadgen()   # not installed: said now, before the model is built
    llama = model.llama_config(config)
    workload = prompts.load(args.data_dir, s.tokenizer_file, s.prompt, s.output, s.seed)
    model.check_fits(llama, s.prompt_tokens_max, s.output_tokens_max, workload.vocab_size)
    reference = model.build(llama, device.device, s.seed)
    built = time.perf_counter()
    gen = engine.prepare(reference, s.precision, s.prompt_tokens_max + s.output_tokens_max)
    build_s = time.perf_counter() - built
    warm = time.perf_counter()
    warm_up(gen, workload.requests(max(s.warmup_requests, 1), STREAMS["warmup"]),
            s.batch_size, s.engine)
    warm_s = time.perf_counter() - warm
    log.event("INIT_END", {"engine_build_time_s": build_s, "warmup_time_s": warm_s,
                           "data": workload.describe(), "model": describe(reference),
                           **device.describe()})
    reduced = preset.preset_record(config, preset.base_config(args.extern_config_dir),
                                   model.parameter_count(reference)[0])
    return measure_case(s, workload, gen, reference, device, log, (build_s, warm_s), start,
                        reduced, logs_dir(args.output_dir))


def measure_case(s: LLMSettings, workload: prompts.Workload, gen: Generator,
                 reference: torch.nn.Module, device: Any, log: PerfLogger,
                 build_s: tuple[float, float], start: float,
                 reduced: dict | None = None, logs: Path | None = None) -> dict:
    logs = logs or logs_dir(None)
    log.event("TRAIN_START", {"scenarios": list(s.scenarios), "loadgen_logs": str(logs)})
    window = time.perf_counter()
    serving = run_scenarios(s, workload, gen, logs)
    window_s = time.perf_counter() - window
    log.event("TRAIN_END", {"time_s": window_s, "output_tokens": generated(serving)})
    acc = accuracy.compare(gen, TransformersGenerator(reference, device),
                           workload.requests(s.accuracy_requests, STREAMS["accuracy"]),
                           device.device)
    evaluation = evaluate(acc, s)
    log.event("EVALUATE", evaluation)
    finished = finished_record(s, serving, evaluation, reference, device, build_s, window_s,
                               start)
    if reduced is not None:
        finished["preset"] = reduced
    log.event("FINISHED", finished)
    return finished


def run_scenarios(s: LLMSettings, workload: prompts.Workload, gen: Generator,
                  logs: Path) -> dict:
    limits = loadgen_limits(s)
    out: dict[str, Any] = {"workload": workload.describe(), "loadgen": loadgen_record(limits)}
    if "offline" in s.scenarios:
        out["offline"] = scenarios.offline(
            gen, workload.requests(s.offline_requests, STREAMS["offline"]), s.batch_size,
            replace(limits, min_query_count=s.offline_requests), logs)
    if "single_stream" in s.scenarios:
        out["single_stream"] = scenarios.single_stream(
            gen, workload.requests(s.single_stream_requests, STREAMS["single_stream"]),
            replace(limits, min_query_count=s.single_stream_requests), logs)
    if "server" in s.scenarios:
        out["server"] = server_search(s, workload, gen, limits, logs,
                                      (out.get("offline") or {}).get("requests_per_s") or 0.0)
    out["loadgen"]["results"] = verdicts(out)
    return out


def server_search(s: LLMSettings, workload: prompts.Workload, gen: Generator,
                  limits: loadgen_sut.Limits, logs: Path, capacity: float) -> dict:
    rates = list(s.server_rates) or [round(f * capacity, 6) for f in s.server_load_fractions]
    bound = scenarios.Bound(s.ttft_bound_ms, s.tpot_bound_ms, s.bound_percentile)
    server = scenarios.search(gen, workload.requests(s.server_requests, STREAMS["server"]),
                              s.batch_size, [r for r in rates if r > 0],
                              replace(limits, min_query_count=s.server_requests), bound, logs)
    server["rates_from"] = ("server_rates" if s.server_rates else
                            f"server_load_fractions x offline samples/s ({capacity:.4g})")
    return server


def loadgen_limits(s: LLMSettings) -> loadgen_sut.Limits:
    return loadgen_sut.Limits(s.loadgen_min_duration_ms, s.loadgen_max_duration_ms, 1,
                              s.offline_expected_qps, s.single_stream_expected_latency_ms,
                              s.bound_percentile, ttft_ms=s.ttft_bound_ms,
                              tpot_ms=s.tpot_bound_ms)


def loadgen_record(limits: loadgen_sut.Limits) -> dict:
    return harness.record(limits, "per scenario: offline_requests, single_stream_requests, "
                                  "server_requests")


def headline(serving: Mapping[str, Any]) -> tuple[str, dict]:
    """The scenario whose tokens/s is the case's throughput: offline, else the highest server
    rate that met the bound (else the first tried), else single stream."""
    if "offline" in serving:
        return "offline", serving["offline"]
    rates = (serving.get("server") or {}).get("rates") or []
    met = [r for r in rates if r["meets_bound"]]
    if rates:
        return "server", (met or rates)[-1]
    return "single_stream", serving["single_stream"]


def verdicts(serving: Mapping[str, Any]) -> dict:
    """Each LoadGen run's result: VALID, or INVALID with the checks that failed."""
    out = {}
    for name in ("offline", "single_stream"):
        if name in serving:
            out[name] = harness.verdict_text(serving[name]["loadgen"])
    for rate in (serving.get("server") or {}).get("rates", []):
        out[f"server@{rate['target_rate']:g}"] = harness.verdict_text(rate["loadgen"])
    return out


def scenario_runs(serving: Mapping[str, Any]) -> list[dict]:
    server = serving.get("server") or {}
    return [serving[n] for n in ("offline", "single_stream") if n in serving] + \
        list(server.get("rates", []))


def generated(serving: Mapping[str, Any], key: str = "output_tokens") -> int:
    return sum(r[key] for r in scenario_runs(serving))


def check_targets(s: LLMSettings) -> None:
    if s.tolerance_for(s.engine, s.precision) is None:
        raise CaseError(f"no tolerance for engine {s.engine!r} at {s.precision}: add "
                        f"tolerance.default.{s.precision} to configuration.yaml")
    if s.agreement_for(s.precision) is None:
        raise CaseError(f"no agreement_target for precision {s.precision}: add "
                        f"agreement_target.{s.precision} to configuration.yaml")


def evaluate(acc: dict, s: LLMSettings) -> dict:
    tolerance = s.tolerance_for(s.engine, s.precision) or 0.0
    metric = {"name": "greedy_token_agreement", "value": acc["token_agreement"],
              "target": s.agreement_for(s.precision), "higher_is_better": True,
              "note": "random weights (no checkpoint): greedy tokens vs fp32 eager's"}
    return {"metric": metric,
            "reference": accuracy.reference_report(acc["deviation"], tolerance, s.engine),
            "requests": acc["requests"], "scored": acc["tokens"],
            "token_agreement": acc["token_agreement"],
            "prefix_agreement": acc["prefix_agreement"]}


def describe(module: torch.nn.Module) -> dict:
    total, embedding = model.parameter_count(module)
    return {"class": type(module).__name__, "parameters": total,
            "embedding_parameters": embedding, "weights": "random (seeded), no checkpoint"}


def finished_record(s: LLMSettings, serving: dict, evaluation: dict, reference: torch.nn.Module,
                    device: Any, build_s: tuple[float, float], window_s: float,
                    start: float) -> dict:
    name, head = headline(serving)
    latency = (serving.get("single_stream") or head)["latency_ms"]
    metric, ref = evaluation["metric"], evaluation["reference"]
    out_tokens, all_tokens = generated(serving), generated(serving, "prompt_tokens")
    all_tokens += out_tokens
    mean_context = (s.prompt_tokens_min + s.prompt_tokens_max
                    + s.output_tokens_min + s.output_tokens_max) / 4.0
    per_token = model.flops_per_token(reference, mean_context)
    peak, peak_source = measure.peak_memory(device, s.engine)
    return {
        "e2e_time_s": time.perf_counter() - start,
        "train_time_s": window_s, "train_no_eval_time_s": window_s,
        "pure_compute_time_s": head["engine_s"],
        "work_unit": "tokens", "work_done": head["output_tokens"],
        "window_work": out_tokens,
        "throughput": {"raw": head["tokens_per_s"],
                       "pure_compute": head["output_tokens"] / head["engine_s"],
                       "unit": "tokens/s", "scenario": name,
                       "source": f"MLPerf LoadGen's {name} summary ({head['loadgen']['result']})"},
        "latency_ms": latency,
        "engine": s.engine, "precision": s.precision, "dtype": s.precision, "device": device.type,
        "batch_size": s.batch_size,
        "metric": metric, "reference": ref,
        "converged": bool(ref["within_bound"] and metric["value"] >= metric["target"]),
        "flops_per_unit": per_token * all_tokens / out_tokens, "world_size": 1,
        "peak_memory_bytes": peak, "peak_memory_source": peak_source,
        "engine_build_time_s": build_s[0],
        "warmup_time_s": build_s[1],   # compile: the graphs are built here, per batch size
        "serving": serving,
    }
