"""The FINISHED event's schema: what ``chipperf_runtime.perflog``'s cases print and its parser
holds them to. Standard library only: it runs inside every case container.

FINISHED schema (times in seconds; docs/results.md; the inference form: docs/inference.md)::

    e2e_time_s, train_time_s, train_no_eval_time_s, pure_compute_time_s   float
    work_unit            "samples" | "tokens"
    work_done            int, samples or tokens trained, all ranks together
    throughput           {"raw", "no_eval", "pure_compute": float, "unit": "<work_unit>/s"}
    converged            bool
    metric               {"name", "value", "target", "higher_is_better"}
    flops_per_unit       float, training FLOPs (forward + backward) per sample or token
    dtype                "fp32" | "bf16" | "fp16" | ...
    world_size           int
    peak_memory_bytes    int or null (null when the framework cannot tell)

and, from the training driver, ``run_mode`` (optional; docs/results.md "Run modes")::

    run_mode             {"mode": "convergence" | "performance", "warmup_steps": int,
                          "timed_steps": int}; in performance mode also "timed_window_s",
                          "timed_work", "timed_first_step", "timed_last_step" and "whole_run"
                          (the whole train window's times, work_done and throughput). The
                          top-level times, work_done and throughput are then the timed
                          window's (steady state, after the warm-up), converged is false and
                          metric.value is null unless the case measured one.
    data_mode            "real" | "predecoded" | "synthetic" (optional; vision cases): "predecoded"
                          read images decoded ahead of the run (imagecls.predecoded); "synthetic" trained on
                          device-resident random batches, labelled "synthetic: compute only"
    parameters           {"trainable": int, "total": int} (optional; the LLM cases): the model's
                          parameter counts; a LoRA case trains the adapters only
    execution            {name: value} (optional; PyTorch loops): how the model ran, e.g. "compile"
                          ("eager" or "torch.compile(inductor, mode=default)"), "attention" ("sdpa"),
                          "fused_optimizer" (bool), "channels_last", "autocast"; an inference
                          case says it where its model reports one (intel_gaudi's Stable
                          Diffusion: GaudiStableDiffusionPipeline, HPU graphs, its GaudiConfig)
    peak_rss_bytes       int (optional; the training driver): rank 0's peak resident set, host
                          memory (a sweep's memory figure on a cpu, docs/sweeps.md)
    stages               {stage: that stage's FINISHED value} (optional; a case training stages
                          one after the other, llava1.5_7b's "both"): the top-level figures are
                          then the stages' together (training/driver/stages.py)
    attention_flops_per_unit  float (optional, with causal_attention; the transformer cases):
                          the part of flops_per_unit that is attention's score and value
                          products (forward + backward), counted whole, causal or not
    causal_attention     bool (with attention_flops_per_unit): the model's attention is causal
                          (a decoder-only LM), so its mask leaves about half of that part to
                          do; the results' ``mfu_causal`` halves it (docs/results.md "MFU")

Inference FINISHED (suite ``inference``; docs/inference.md) requires instead::

    e2e_time_s           float
    work_unit, work_done "items", items of the offline scenario
    throughput           {"raw", "pure_compute": float, "unit": "items/s"}
    latency_ms           {"p50", "p90", "p99": float, "count": int} (single-stream)
    engine, precision    str
    dtype                str, the precision of the peak FLOP/s MFU divides by
    metric               {"name", "value", "target", "higher_is_better"}
    reference            {"max_abs_diff", "mean_abs_diff", "bound": float, "within_bound": bool};
                          an engine that exposes no logits (vLLM, a served engine) says so in
                          "compared" ("not measured: why") and leaves the three numbers null
    converged            bool
    flops_per_unit       float, forward FLOPs per item
    world_size           int
    peak_memory_bytes    int or null

and may carry the training times too (``train_time_s`` = the timed window). An LLM serving
case (work_unit "tokens": generated tokens) adds ``window_work`` (tokens generated in the whole
timed window) and ``serving`` (per scenario: TTFT, TPOT, latency percentiles, tokens/s,
requests/s; the server scenario's rates and the highest meeting the bound).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

FINISHED_KEYS: Mapping[str, tuple[type, ...]] = {
    "e2e_time_s": (int, float),
    "train_time_s": (int, float),
    "train_no_eval_time_s": (int, float),
    "pure_compute_time_s": (int, float),
    "work_unit": (str,),
    "work_done": (int,),
    "throughput": (dict,),
    "converged": (bool,),
    "metric": (dict,),
    "flops_per_unit": (int, float),
    "dtype": (str,),
    "world_size": (int,),
    "peak_memory_bytes": (int, type(None)),
}

INFERENCE_FINISHED_KEYS: Mapping[str, tuple[type, ...]] = {
    "e2e_time_s": (int, float),
    "work_unit": (str,),
    "work_done": (int,),
    "throughput": (dict,),
    "latency_ms": (dict,),
    "engine": (str,),
    "precision": (str,),
    "dtype": (str,),
    "metric": (dict,),
    "reference": (dict,),
    "converged": (bool,),
    "flops_per_unit": (int, float),
    "world_size": (int,),
    "peak_memory_bytes": (int, type(None)),
}
# Other FINISHED keys of the inference suite the results code reads when present.
INFERENCE_OPTIONAL_KEYS = ("device", "batch_size", "peak_memory_source", "engine_build_time_s",
                           "offline", "window_work", "serving", "execution")
# Other FINISHED keys of the training suite the results code reads when present.
TRAINING_OPTIONAL_KEYS = ("run_mode", "data_mode", "parameters", "execution", "peak_rss_bytes",
                          "attention_flops_per_unit", "causal_attention")
# The optional pair that says how much of flops_per_unit is attention, and whether causal.
ATTENTION_KEYS = ("attention_flops_per_unit", "causal_attention")
# Required parts of FINISHED's nested objects, per suite: key -> (part, its types).
_NUMBER = (int, float)
_FINISHED_PARTS: Mapping[str, Mapping[str, Mapping[str, tuple[type, ...]]]] = {
    "training": {
        "throughput": {"raw": _NUMBER, "unit": (str,)},
        "metric": {"name": (str,), "value": _NUMBER, "target": _NUMBER + (type(None),)},
    },
    "inference": {
        "throughput": {"raw": _NUMBER, "pure_compute": _NUMBER, "unit": (str,)},
        "metric": {"name": (str,), "value": _NUMBER, "target": _NUMBER + (type(None),)},
        "latency_ms": {"p50": _NUMBER, "p90": _NUMBER, "p99": _NUMBER, "count": (int,)},
        "reference": {"max_abs_diff": _NUMBER, "mean_abs_diff": _NUMBER, "bound": _NUMBER,
                      "within_bound": (bool,)},
    },
}


def finished_problems(value: Mapping[str, Any], suite: str | None = "training") -> list[str]:
    """Every way a (normalized) FINISHED value departs from the schema of ``suite``
    ("training", the default, or "inference"; None means training)."""
    inference = suite == "inference"
    keys = INFERENCE_FINISHED_KEYS if inference else FINISHED_KEYS
    problems = []
    for key, types in keys.items():
        if key not in value:
            problems.append(f"FINISHED lacks {key!r}")
        elif not _typed(value[key], types):
            problems.append(f"FINISHED {key!r} has type {type(value[key]).__name__}")
    for key, parts in _FINISHED_PARTS["inference" if inference else "training"].items():
        item = value.get(key)
        if isinstance(item, dict):
            problems += _part_problems(key, item, _unmeasured(key, item, parts), strict=inference)
    return problems + attention_problems(value)


def attention_problems(value: Mapping[str, Any]) -> list[str]:
    """The optional attention pair: both or neither; a number from 0 to flops_per_unit; a bool."""
    present = [key for key in ATTENTION_KEYS if key in value]
    if not present:
        return []
    if len(present) == 1:
        lacking = next(key for key in ATTENTION_KEYS if key not in value)
        return [f"FINISHED has {present[0]!r} without {lacking!r}: a case that counts its "
                "attention says both"]
    share, causal = value["attention_flops_per_unit"], value["causal_attention"]
    problems = []
    if not _typed(causal, (bool,)):
        problems.append(f"FINISHED 'causal_attention' has type {type(causal).__name__}: "
                        "it must be true or false")
    if not _typed(share, _NUMBER) or share < 0:
        problems.append(f"FINISHED 'attention_flops_per_unit' is {share!r}: it must be a number "
                        ">= 0 (the attention part of flops_per_unit)")
    elif _typed(value.get("flops_per_unit"), _NUMBER) and share > value["flops_per_unit"]:
        problems.append(f"FINISHED 'attention_flops_per_unit' {share:g} is above flops_per_unit "
                        f"{value['flops_per_unit']:g}: the attention part cannot exceed the whole")
    return problems


def _unmeasured(key: str, item: Mapping[str, Any], parts: Mapping[str, tuple[type, ...]]
                ) -> Mapping[str, tuple[type, ...]]:
    """A reference whose ``compared`` says "not measured: why" may leave its numbers null."""
    if key != "reference" or not str(item.get("compared", "")).startswith("not measured"):
        return parts
    return {part: types + (type(None),) if _NUMBER == types else types
            for part, types in parts.items()}


def _typed(item: Any, types: tuple[type, ...]) -> bool:
    return isinstance(item, types) and not (isinstance(item, bool) and bool not in types)


def _part_problems(key: str, item: Mapping[str, Any], parts: Mapping[str, tuple[type, ...]],
                   strict: bool) -> list[str]:
    """Missing parts of a nested FINISHED object; with ``strict`` also mistyped ones."""
    problems = []
    for part, types in parts.items():
        if part not in item:
            problems.append(f"FINISHED {key} lacks {part!r}")
        elif strict and not _typed(item[part], types):
            problems.append(f"FINISHED {key} {part!r} has type {type(item[part]).__name__}")
    return problems
