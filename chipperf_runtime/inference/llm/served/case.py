"""The served mode of an LLM case (engine ``vllm_server``): a real engine behind its
OpenAI-compatible server, driven by vLLM's ``bench serve`` over a concurrency sweep.

    INIT_START, SUBMIT_INFO     (the LLM runner, before it hands over here)
    ...                         model dir (the seeded random model + tokenizer, or model_dir),
                                server started, GET /health polled until healthy
    INIT_END                    server_ready_s (launch -> healthy: load and warm-up)
    TRAIN_START .. TRAIN_END    the sweep: shape x concurrency points, each checked against
                                the server's /metrics token counters
    FINISHED                    ``serving.sweep`` (points, server timings, shapes); a point
                                whose server died is failed with its log, the sweep ends there

The curve (output tokens/s per chip against tokens/s per user) is also written as
``serving_curve.csv`` in the output dir.
"""

from __future__ import annotations

import csv
import sys
import time
from pathlib import Path
from typing import Any, Mapping

from chipperf_runtime.inference.errors import CaseError
from chipperf_runtime.inference.llm import model, preset
from chipperf_runtime.inference.llm.prompts import TOKENIZER_FILE
from chipperf_runtime.inference.llm.served import sweep
from chipperf_runtime.inference.llm.served.server import ServerSpec, ServingProcess
from chipperf_runtime.inference.llm.served.settings import ServedSettings
from chipperf_runtime.inference.llm.served.weights import check_model_dir, write_model_dir
from chipperf_runtime.perflog import PerfLogger

SERVED_ENGINES = {"vllm_server": "vllm"}
CURVE_FILE = "serving_curve.csv"
CURVE_COLUMNS = ("point", "shape", "concurrency", "status", "output_tokens_per_s_per_chip",
                 "tokens_per_s_per_user", "ttft_p50_ms", "tpot_p50_ms", "e2el_p99_ms")


def run(name: str, args: Any, config: Mapping[str, Any], engine: str, log: PerfLogger,
        start: float) -> dict:
    served = ServedSettings.from_config(config)
    seed, precision = int(config["seed"]), str(config["precision"])
    points = sweep.plan_points(served.shapes(), served.serve_concurrency,
                               served.serve_prompts_per_user, seed)
    llama = model.llama_config(config)
    check_context(served, llama.max_position_embeddings)
    out = Path(args.output_dir)
    model_dir = prepare_model_dir(served, config, llama, args.data_dir, out)
    spec = ServerSpec(SERVED_ENGINES[engine], model_dir, served.serve_port, precision,
                      llama.max_position_embeddings, max(served.serve_concurrency), seed,
                      served.serve_memory_utilization)
    with ServingProcess(spec, out / "server.log") as server:
        ready_s = server.wait_ready(served.serve_ready_timeout_s)
        log.event("INIT_END", {"server_ready_s": ready_s, "server_argv": spec.argv(),
                               "model_dir": str(model_dir)})
        log.event("TRAIN_START", {"scenarios": ["sweep"], "points": len(points)})
        window = time.perf_counter()
        result = sweep.run_sweep(server, sweep.SweepSpec(points, served.serve_chips,
                                                         served.serve_point_timeout_s,
                                                         sys.executable), model_dir, out / "sweep")
        window_s = time.perf_counter() - window
        log.event("TRAIN_END", {"time_s": window_s})
    result.update(server=dict(server.timings), shapes=served.shape_record(),
                  engine=engine, chips=served.serve_chips)
    write_curve(result["points"], out / CURVE_FILE)
    finished = finished_record(result, config, precision, window_s, start)
    reduced = preset.preset_record(config, preset.base_config(args.extern_config_dir),
                                   preset.llama_parameters(config))
    if reduced is not None:
        finished["preset"] = reduced
    log.event("FINISHED", finished)
    return finished


def check_context(served: ServedSettings, context: int) -> None:
    for shape in served.shapes():
        if shape.input_tokens + shape.output_tokens > context:
            raise CaseError(f"serve shape {shape.name} ({shape.input_tokens} in + "
                            f"{shape.output_tokens} out) is longer than the model's context "
                            f"of {context} tokens (max_position): shorten it in "
                            "serve_shape_tokens or raise max_position")


def prepare_model_dir(served: ServedSettings, config: Mapping[str, Any], llama: Any,
                      data_dir: str, out: Path) -> Path:
    if served.model_dir:
        folder = Path(served.model_dir)
    else:
        tokenizer = Path(config["tokenizer_file"] or Path(data_dir) / TOKENIZER_FILE)
        if not tokenizer.is_file():
            raise CaseError(f"tokenizer file {tokenizer} not found: the served model needs "
                            "one (vLLM's load generator tokenises its prompts); prepare CI data "
                            "with inference/benchmarks/llama3_8b/pytorch/prepare_prompts.py")
        folder = write_model_dir(llama, int(config["seed"]), tokenizer, out / "served-model")
    check_model_dir(folder)
    return folder


def write_curve(points: list[dict], path: Path) -> None:
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(CURVE_COLUMNS)
        for p in points:
            writer.writerow([p.get("point"), p.get("shape"), p.get("concurrency"),
                             p.get("status"), p.get("output_tokens_per_s_per_chip"),
                             p.get("tokens_per_s_per_user"),
                             (p.get("ttft_ms") or {}).get("p50"),
                             (p.get("tpot_ms") or {}).get("p50"),
                             (p.get("e2el_ms") or {}).get("p99")])


def finished_record(result: dict, config: Mapping[str, Any], precision: str,
                    window_s: float, start: float) -> dict:
    points = result["points"]
    good = [p for p in points if p["status"] == "succeeded"]
    best = max(good, key=lambda p: p["output_tokens_per_s"] or 0.0, default=None)
    rate = best["output_tokens_per_s"] if best else None
    return {
        "e2e_time_s": time.perf_counter() - start, "train_time_s": window_s,
        "train_no_eval_time_s": window_s, "work_unit": "tokens",
        "work_done": sum(p["total_output_tokens"] for p in good),
        "window_work": sum(p.get("total_output_tokens", 0) for p in points),
        "throughput": {"raw": rate, "pure_compute": rate, "unit": "tokens/s",
                       "note": "the sweep's highest output tokens/s (all chips); the server "
                               "exposes no engine-only time, so pure_compute repeats it"},
        "latency_ms": single_user_latency(good),
        "engine": result["engine"], "precision": precision, "dtype": precision,
        "device": "served", "world_size": int(result["chips"]),
        "metric": counter_metric(points, result["planned"]),
        "reference": {"max_abs_diff": None, "mean_abs_diff": None, "bound": None,
                      "within_bound": True, "compared": "not measured: the served engine "
                      "exposes no logits"},
        "converged": len(good) == result["planned"],
        "flops_per_unit": flops_per_output_token(config, good),
        "peak_memory_bytes": None,
        "peak_memory_source": "not measured: the engine runs in its own server process",
        "serving": {"sweep": result},
    }


def single_user_latency(good: list[dict]) -> dict:
    """E2E latency of the lowest-concurrency point (one user, when 1 is swept)."""
    if not good:
        return {"p50": None, "p90": None, "p99": None, "count": 0}
    first = min(good, key=lambda p: p["concurrency"])
    return {**first["e2el_ms"], "count": first["completed"], "concurrency": first["concurrency"]}


def counter_metric(points: list[dict], planned: int) -> dict:
    agreed = sum(all(c["agree"] for c in p.get("server_counters", {"x": {"agree": False}}).values())
                 for p in points)
    return {"name": "server_counter_agreement", "value": agreed / planned if planned else 0.0,
            "target": 1.0, "higher_is_better": True,
            "note": "share of planned points whose prompt and output tokens equal the server's "
                    "own /metrics counts"}


def flops_per_output_token(config: Mapping[str, Any], good: list[dict]) -> float:
    """2 x (parameters - embedding) + 4 x layers x hidden x mean context per processed token,
    times processed / output tokens over the measured points."""
    params = preset.llama_parameters(config)
    embedding = int(config["vocab_size"]) * int(config["hidden_size"])
    inputs = sum(p["total_input_tokens"] for p in good)
    outputs = sum(p["total_output_tokens"] for p in good)
    if not outputs:
        return 0.0
    mean_context = (inputs + outputs / 2.0) / max(sum(p["completed"] for p in good), 1)
    per_token = 2.0 * (params - embedding) + 4.0 * int(config["num_layers"]) * int(
        config["hidden_size"]) * mean_context
    return per_token * (inputs + outputs) / outputs
