"""The served mode of an LLM case (engine ``vllm_server`` or ``transformers_server``): a real
engine behind its OpenAI-compatible server, driven by vLLM's ``bench serve`` over a concurrency
sweep. Which engine served, and why, is ``served_by`` (``choice.py``: the transformers engine
where vLLM cannot run and ``serve_fallback`` allows it).

    INIT_START, SUBMIT_INFO     (the LLM runner, before it hands over here)
    ...                         model dir (the seeded random model + tokenizer, or model_dir),
                                server started, GET /health polled until healthy
    INIT_END                    server_ready_s (launch -> healthy: load and warm-up)
    ...                         serve_accuracy_when: before_sweep: the accuracy questions here
    TRAIN_START .. TRAIN_END    the sweep: shape x concurrency points, each checked against
                                the server's /metrics token counters
    ...                         after_sweep (the default): the accuracy guard's greedy tokens,
                                lm-eval's tasks (serve_lmeval_tasks: ``accuracy_tasks``);
                                the server stopped
    FINISHED                    ``serving.sweep`` (points, server timings, shapes); a point
                                whose server died is failed with its log, the sweep ends there

The curve (output tokens/s per chip against tokens/s per user) is also written as
``serving_curve.csv`` in the output dir.
"""

from __future__ import annotations

import csv
import os
import sys
import time
from pathlib import Path
from typing import Any, Mapping, Optional

from chipperf_runtime.device import ENV_DEVICE, ENV_VENDOR
from chipperf_runtime.inference.errors import CaseError
from chipperf_runtime.inference.llm import model, preset
from chipperf_runtime.inference.llm.prompts import TOKENIZER_FILE
from chipperf_runtime.inference.llm.served import choice, energy, guard, harness, lmtasks, sweep
from chipperf_runtime.inference.llm.served.generator import LoadGenerator, generator_argv
from chipperf_runtime.inference.llm.served.record import add_cost, finished_record, slo_record
from chipperf_runtime.inference.llm.served.server import ServerSpec, ServingProcess
from chipperf_runtime.inference.llm.served.settings import ServedSettings
from chipperf_runtime.inference.llm.served.weights import check_model_dir, write_model_dir
from chipperf_runtime.perflog import PerfLogger

SERVED_ENGINES = choice.SERVED_ENGINES
CURVE_FILE = "serving_curve.csv"
CURVE_COLUMNS = ("point", "shape", "concurrency", "request_rate", "status",
                 "output_tokens_per_s_per_chip", "tokens_per_s_per_user", "ttft_p50_ms",
                 "tpot_p50_ms", "e2el_p99_ms", "goodput_requests_per_s",
                 "cost_per_million_output_tokens", "cost_currency", "energy_j",
                 "output_tokens_per_joule", "energy_source")


def run(name: str, args: Any, config: Mapping[str, Any], engine: str, log: PerfLogger,
        start: float) -> dict:
    served = ServedSettings.from_config(config)
    seed, precision = int(config["seed"]), str(config["precision"])
    points = sweep.plan_points(served.shapes(), served.serve_concurrency,
                               served.serve_prompts_per_user, seed,
                               sweep.Rates(served.serve_request_rates, served.serve_rate_prompts),
                               served.goodput())
    llama = model.llama_config(config)
    check_context(served, llama.max_position_embeddings)
    out = Path(args.output_dir)
    served_by = choice.choose(engine, served.serve_fallback, sys.executable,
                              os.environ.get(ENV_DEVICE, "cpu"))
    model_dir = prepare_model_dir(served, config, llama, args.data_dir, out)
    spec = ServerSpec(served_by.engine, model_dir, served.serve_port, precision,
                      llama.max_position_embeddings, max(served.serve_concurrency), seed,
                      served.serve_memory_utilization,
                      extra_args=tuple(served.serve_engine_args),
                      extra_env=served.engine_env(),
                      tp_size=served.serve_chips,
                      options_file=out / f"{served_by.engine}-options.yaml")
    check = guard_spec(served, config, llama.max_position_embeddings)
    tasks = prepare_harness(served, spec, seed, Path(args.data_dir), out)
    result, window_s, answers = serve(spec, sweep.SweepSpec(points, served.serve_chips,
                                                            served.serve_point_timeout_s),
                                      served, (check, tasks), served_by, log, out)
    result.update(engine=engine, shapes=served.shape_record(), chips=served.serve_chips,
                  served_by=served_by.record(), slo=slo_record(result["points"], served.goodput()),
                  accuracy_guard=judge_guard(answers, check, spec.model_dir, config))
    add_cost(result["points"], served.serve_chip_hour_price, served.serve_currency)
    energy.add_point_energy(result["points"], out, os.environ.get(ENV_VENDOR, "cpu"))
    write_curve(result["points"], out / CURVE_FILE)
    return finish(result, args, config, window_s, start, log)


def serve(spec: ServerSpec, plan: sweep.SweepSpec, served: ServedSettings,
          checks: tuple[guard.GuardSpec, Optional[harness.HarnessRun]],
          served_by: choice.ServedBy, log: PerfLogger,
          out: Path) -> tuple[dict, float, list[list[int]] | str]:
    """The server's life: started beside the sweep's load generator (their imports overlap),
    healthy, the sweep (the timed window) and the accuracy questions (the guard's and
    lm-eval's: never inside the window; after it by default, so a harness failure costs no
    point; before it with serve_accuracy_when: before_sweep, so a server that dies in the
    sweep keeps its accuracy), both stopped; (the sweep with the server's and the
    generator's timings and the tasks' scores, its seconds, the guard's answers)."""
    generator = LoadGenerator(generator_argv(), out / "sweep" / "loadgen.log",
                              served.serve_ready_timeout_s)
    with ServingProcess(spec, out / "server.log") as server, generator:
        ready_s = server.wait_ready(served.serve_ready_timeout_s)
        log.event("INIT_END", {"server_ready_s": ready_s, "server_argv": spec.argv(),
                               "model_dir": str(spec.model_dir), "served_by": served_by.record()})
        first = served.serve_accuracy_when == "before_sweep"
        asked = ask_accuracy(server, checks, served, out) if first else None
        log.event("TRAIN_START", {"scenarios": ["sweep"], "points": len(plan.points)})
        window = time.perf_counter()
        result = sweep.run_sweep(server, generator, plan, spec.model_dir, out / "sweep")
        window_s = time.perf_counter() - window
        log.event("TRAIN_END", {"time_s": window_s})
        answers, scores = asked or ask_accuracy(server, checks, served, out)
    if scores is not None:
        result["accuracy_tasks"] = scores
    result["accuracy_when"] = served.serve_accuracy_when
    result["server"] = dict(server.timings)
    result["load_generator"] = dict(generator.timings)
    return result, window_s, answers


def finish(result: dict, args: Any, config: Mapping[str, Any], window_s: float, start: float,
           log: PerfLogger) -> dict:
    params = preset.llama_parameters(config)
    finished = finished_record(result, config, params, str(config["precision"]), window_s, start)
    reduced = preset.preset_record(config, preset.base_config(args.extern_config_dir), params)
    if reduced is not None:
        finished["preset"] = reduced
    log.event("FINISHED", finished)
    return finished


def ask_accuracy(server: ServingProcess,
                 checks: tuple[guard.GuardSpec, Optional[harness.HarnessRun]],
                 served: ServedSettings, out: Path) -> tuple[list[list[int]] | str,
                                                             Optional[dict[str, Any]]]:
    """The guard's answers and lm-eval's record (None when no task is asked)."""
    check, tasks = checks
    answers = ask_guard(server, server.spec.model_dir, check, dead_note(served))
    return answers, None if tasks is None else ask_harness(server, tasks, served,
                                                            out / "lmeval")


def guard_spec(served: ServedSettings, config: Mapping[str, Any],
               context: int) -> guard.GuardSpec:
    first = served.shapes()[0].input_tokens if served.serve_shapes else 16
    length = max(1, min(first, context - served.serve_check_tokens))
    return guard.GuardSpec(served.serve_check_prompts, length, served.serve_check_tokens,
                           int(config["vocab_size"]), int(config["seed"]))


def dead_note(served: ServedSettings) -> str:
    """Why the guard and lm-eval were not asked when the server is no longer running."""
    if served.serve_accuracy_when == "before_sweep":
        return "not run: the server died before the sweep (serve_accuracy_when: before_sweep)"
    return "not run: the server died during the sweep"


def ask_guard(server: ServingProcess, model_dir: Path, check: guard.GuardSpec,
              dead: str) -> list[list[int]] | str:
    """The served tokens of the guard's prompts, or why they could not be asked (``dead``:
    the server is no longer running)."""
    if not check.prompts:
        return "not run: serve_check_prompts is 0"
    if not server.alive():
        return dead
    try:
        return guard.served_tokens(server.spec.base_url, str(model_dir), check.prompt_ids(),
                                   check.output_tokens)
    except CaseError as exc:
        return f"not run: {exc}"


def prepare_harness(served: ServedSettings, spec: ServerSpec, seed: int, data_dir: Path,
                    out: Path) -> Optional[harness.HarnessRun]:
    """The lm-eval run the sweep is followed by (None when serve_lmeval_tasks is empty): local
    tasks written, every task checked by lm-eval itself, offline, before the server starts."""
    if not served.serve_lmeval_tasks:
        return None
    names = tuple(served.serve_lmeval_tasks)
    found = lmtasks.local_tasks(names, served.serve_lmeval_local_tasks, data_dir, out / "lmeval")
    missing = lmtasks.missing_files(found)
    if not (spec.model_dir / "tokenizer.json").is_file() \
            and not (spec.model_dir / "tokenizer_config.json").is_file():
        missing.append(f"serve_lmeval_tasks: the model folder {spec.model_dir} has no tokenizer "
                       "(tokenizer.json or tokenizer_config.json): lm-eval tokenises with the "
                       "folder's own; save the checkpoint's tokenizer there")
    if missing:
        raise CaseError("configuration problems:\n  " + "\n  ".join(missing))
    include = lmtasks.write_tasks(found, seed, out / "lmeval")
    run = harness.HarnessRun(names, include, served.serve_lmeval_limit, spec.base_url,
                             str(spec.model_dir), spec.model_dir, spec.max_model_len, seed)
    harness.preflight(run, out / "lmeval" / "harness.log")
    return run


def ask_harness(server: ServingProcess, run: harness.HarnessRun, served: ServedSettings,
                folder: Path) -> dict[str, Any]:
    """lm-eval's scores of the running server, or why there are none (the sweep is kept)."""
    result, why = None, None
    if not server.alive():
        why = dead_note(served)
    else:
        try:
            result = harness.evaluate(run, folder / "results.json", folder / "harness.log",
                                      served.serve_lmeval_timeout_s)
        except CaseError as exc:
            why = f"failed: {exc}"
    return lmtasks.record(result, why, served.model_dir, run.tasks, run.limit)


def judge_guard(answers: list[list[int]] | str, check: guard.GuardSpec, model_dir: Path,
                config: Mapping[str, Any]) -> dict[str, Any]:
    if isinstance(answers, str):
        return {"agree": None, "note": answers}
    from chipperf_runtime.device.torch import open_torch_device

    reference = guard.reference_tokens(model_dir, check.prompt_ids(), check.output_tokens,
                                       open_torch_device(0).device)
    target = (config.get("agreement_target") or {}).get(str(config["precision"]))
    return guard.agreement(answers, reference, target)


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
        check_model_dir(folder, Path(data_dir))
        return folder
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
                             p.get("request_rate"), p.get("status"),
                             p.get("output_tokens_per_s_per_chip"),
                             p.get("tokens_per_s_per_user"),
                             (p.get("ttft_ms") or {}).get("p50"),
                             (p.get("tpot_ms") or {}).get("p50"),
                             (p.get("e2el_ms") or {}).get("p99"),
                             p.get("goodput_requests_per_s"),
                             p.get("cost_per_million_output_tokens"), p.get("cost_currency"),
                             p.get("energy_j"), p.get("output_tokens_per_joule"),
                             p.get("energy_source") or p.get("energy_absent")])
