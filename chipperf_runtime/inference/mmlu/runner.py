"""The MMLU case flow (each ``*_mmlu`` case's ``run_inference.py`` hands its name to ``main``).

    INIT_START, SUBMIT_INFO     configuration read (base, FlagPerf's files, vendor, --set)
    ...                         tokenizer and model from <data_dir>/<weight_dir> (local files),
                                the questions with their few-shot prompts, engine build, warm-up
    INIT_END
    TRAIN_START                 the timed pass: every question, one forward pass each
    TRAIN_END
    EVALUATE                    MMLU accuracy (overall and per subject), deviation from fp32 eager
    FINISHED                    the inference FINISHED record; throughput in prompt tokens/s

Errors the evaluator can fix print one line naming the case and the fix, exit status 2.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any, Sequence

import torch

from chipperf_runtime.codeversion import script_digest
from chipperf_runtime.device.torch import TorchDevice
from chipperf_runtime.inference import config as configuration
from chipperf_runtime.inference import measure
from chipperf_runtime.inference.errors import CaseError
from chipperf_runtime.inference.mmlu import model as models
from chipperf_runtime.inference.mmlu import questions as mmlu
from chipperf_runtime.inference.mmlu.engines import LastLogits, MMLUEngine
from chipperf_runtime.inference.mmlu.scoring import Pass, against_reference, scores, timed_pass
from chipperf_runtime.inference.mmlu.settings import MMLUSettings
from chipperf_runtime.inference.runner import exit_status, open_device, parse_args, vendor_name
from chipperf_runtime.inference.stats import latency_summary
from chipperf_runtime.perflog import PerfLogger
from chipperf_runtime.workload import from_config as workload_from_config


def main(name: str, argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    log = PerfLogger()
    return exit_status(name, lambda: run(name, args, log))


def run(name: str, args: argparse.Namespace, log: PerfLogger) -> dict:
    start = time.perf_counter()
    log.event("INIT_START", {"model": name})
    config, notes = configuration.load_with_notes(args.extern_config_dir,
                                                  args.extern_config_file, args.set)
    for note in notes:
        print(f"chipperf inference case {name}: note: {note}", file=sys.stderr, flush=True)
    s = MMLUSettings.from_config(config)
    device = open_device(s)  # type: ignore[arg-type]  # reads only .device
    thawed = configuration.thaw(config)
    log.event("SUBMIT_INFO", {"vendor": vendor_name(args.extern_config_file), "model": name,
                              "engine": s.engine, "precision": s.precision, "device": device.type,
                              "case_version": script_digest(), "config": thawed,
                              "workload": workload_from_config(thawed, precision=s.precision)
                              .as_dict(), "config_notes": notes})
    torch.manual_seed(s.seed)
    if s.num_threads:
        torch.set_num_threads(s.num_threads)
    device.full_precision_fp32()
    engine = MMLUEngine(s.engine, device, s.compile_mode)
    engine.check(s.precision)
    tolerance = s.tolerance_for(s.engine, s.precision)
    if tolerance is None:
        raise CaseError(f"no tolerance for engine {s.engine!r} at {s.precision}: add "
                        f"tolerance.default.{s.precision} to configuration.yaml")
    return measure_case(name, s, args, device, engine, tolerance, log, start)


def measure_case(name: str, s: MMLUSettings, args: argparse.Namespace, device: TorchDevice,
                 engine: MMLUEngine, tolerance: float, log: PerfLogger, start: float) -> dict:
    folder = models.folder(args.data_dir, s.weight_dir)
    tokenizer = models.load_tokenizer(folder, s.trust_remote_code)
    questions = load_questions(s, args.data_dir, tokenizer)
    encoded = [tokenizer(q.prompt, return_tensors="pt").input_ids for q in questions]
    reference = LastLogits(models.load_model(folder, s.trust_remote_code)).to(device.device)
    built = time.perf_counter()
    engine_run = engine.prepare(reference, s.precision)
    warm = time.perf_counter()
    timed_pass(engine_run, encoded[:s.warmup_questions], 1, tokenizer, device)
    log.event("INIT_END", {"engine_build_time_s": warm - built,
                           "warmup_time_s": time.perf_counter() - warm,
                           "data": describe(questions, encoded, s), **device.describe()})
    log.event("TRAIN_START", {"scenarios": ["mmlu"]})
    done = timed_pass(engine_run, encoded, s.offline_passes, tokenizer, device)
    log.event("TRAIN_END", {"time_s": done.wall_s, "items": done.questions})
    deviation, same = against_reference(engine_run, reference_run(reference),
                                        encoded[:s.reference_items], tokenizer, device)
    score = scores(questions, done.letters)
    evaluation = {"metric": metric(score, s), "reference": deviation.report(tolerance),
                  "answer_agreement": same, "scores": score}
    log.event("EVALUATE", evaluation)
    flops = s.flops_per_item or measure.forward_flops(reference, [encoded[0].to(device.device)]) \
        / encoded[0].shape[-1]
    finished = finished_record(s, done, evaluation, flops, warm - built, start, device)
    reduced = preset(name, reference)
    if reduced:
        finished["preset"] = reduced
    log.event("FINISHED", finished)
    return finished


def load_questions(s: MMLUSettings, data_dir: str, tokenizer: Any) -> list[mmlu.Question]:
    def count(text: str) -> int:
        return len(tokenizer.tokenize(text))

    found = mmlu.load(Path(data_dir) / s.mmlu_dir, s.subject_list, s.few_shots, count,
                      s.max_prompt_tokens)
    found = found[:s.max_items] if s.max_items else found
    if not found:
        raise CaseError(f"no MMLU test questions under {Path(data_dir) / s.mmlu_dir}/test: "
                        "give MMLU's CSV files")
    return found


def reference_run(reference: LastLogits):  # type: ignore[no-untyped-def]
    def run(input_ids: torch.Tensor) -> torch.Tensor:
        with torch.inference_mode():
            return reference(input_ids)

    return run


def describe(questions: Sequence[mmlu.Question], encoded: Sequence[torch.Tensor],
             s: MMLUSettings) -> dict:
    lengths = [int(ids.shape[-1]) for ids in encoded]
    return {"questions": len(questions), "subjects": len({q.subject for q in questions}),
            "few_shots": s.few_shots, "prompt_tokens": sum(lengths),
            "prompt_tokens_max": max(lengths), "prompt_tokens_min": min(lengths)}


def metric(score: dict, s: MMLUSettings) -> dict:
    return {"name": "mmlu_accuracy", "value": score["accuracy"], "target": s.accuracy_target,
            "higher_is_better": True, "note": f"{s.few_shots}-shot, correct answers over all "
            f"{score['questions']} questions of {len(score['subjects'])} subjects"}


def finished_record(s: MMLUSettings, done: Pass, evaluation: dict, flops: float,
                    build_s: float, start: float, device: TorchDevice) -> dict:
    metric_, reference = evaluation["metric"], evaluation["reference"]
    target = metric_["target"]
    peak, peak_source = measure.peak_memory(device, s.engine)
    return {
        "e2e_time_s": time.perf_counter() - start,
        "train_time_s": done.wall_s, "train_no_eval_time_s": done.wall_s,
        "pure_compute_time_s": done.compute_s,
        # the latency of each question is measured inside the same pass: no extra work
        "work_unit": "tokens", "work_done": done.tokens, "window_work": done.tokens,
        "throughput": {"raw": done.tokens / done.wall_s,
                       "pure_compute": done.tokens / done.compute_s, "unit": "tokens/s"},
        "questions_per_s": done.questions / done.wall_s,
        "latency_ms": latency_summary(done.latencies_ms),
        "engine": s.engine, "precision": s.precision, "dtype": s.precision,
        "device": device.type, "batch_size": s.batch_size,
        "metric": metric_, "reference": reference,
        "converged": bool(reference["within_bound"]
                          and (target is None or metric_["value"] >= target)),
        "flops_per_unit": flops, "world_size": 1,
        "peak_memory_bytes": peak, "peak_memory_source": peak_source,
        "engine_build_time_s": build_s,
        "offline": {"items": done.questions, "batches": done.questions,
                    "passes": s.offline_passes, "wall_s": done.wall_s,
                    "compute_s": done.compute_s},
    }


def preset(name: str, reference: LastLogits) -> dict | None:
    """A model smaller than the case's named one (the CI's tiny model) says so."""
    params = sum(p.numel() for p in reference.parameters())
    with torch.device("meta"):
        from transformers import LlamaForCausalLM

        full = sum(p.numel() for p in LlamaForCausalLM(models.full_size_config(name)).parameters())
    if params == full:
        return None
    return {"name": "reduced" if params < full else "changed", "params": params,
            "full_params": full, "changes": {"parameters": [params, full]},
            "set_by": "the model folder (weight_dir)"}
