"""FINISHED of a case that trains several stages one after the other in one process
(llava1.5_7b's stage "both": FlagPerf's pretrain, then its finetune).

Each stage is measured as a run of its own (``Driver.next_stage``, ``Driver.finished_value``);
``combine_stages`` makes the run's FINISHED from them, pure:

    work_done, train / no-eval / pure-compute times   summed over the stages (each stage's own
                                                      windows; in performance mode its timed
                                                      window), so throughput is the work of
                                                      every stage over their time together
    flops_per_unit        the stages' FLOPs together over their work together (MFU is then
                          every stage's FLOPs over the summed time: FlagPerf's "two-stage
                          average"); attention_flops_per_unit the same way, when every stage
                          counted it and all agree on causal_attention
    metric                the last stage's; converged: every stage reached its target
    peak_memory_bytes     the largest; parameters: the largest trainable and total counts
    stages                {stage: that stage's own FINISHED value}, in the order they ran
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from chipperf_runtime.perflog_schema import ATTENTION_KEYS, finished_problems
from chipperf_runtime.training.driver.errors import CaseError

TIMES = ("train_time_s", "train_no_eval_time_s", "pure_compute_time_s")
# a performance-mode stage's own timed window: no single window of the combined run
PER_STAGE_WINDOW = ("timed_window_s", "timed_first_step", "timed_last_step")


def summed(values: list[Mapping[str, Any]]) -> dict[str, Any]:
    """The times and work of ``values`` added up, and the throughput they give."""
    out: dict[str, Any] = {k: float(sum(v[k] for v in values)) for k in TIMES}
    work = int(sum(v["work_done"] for v in values))
    unit = values[0]["throughput"]["unit"]
    out["work_done"] = work
    out["throughput"] = {"raw": work / out["train_time_s"],
                         "no_eval": work / out["train_no_eval_time_s"],
                         "pure_compute": work / out["pure_compute_time_s"], "unit": unit}
    return out


def combine_stages(stages: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The run's FINISHED from its stages' (module doc); ``CaseError`` when they differ in
    work unit or dtype, or the result would not match the schema."""
    values = list(stages.values())
    if not values:
        raise CaseError("combine_stages: no stage was trained")
    for key in ("work_unit", "dtype"):
        if len({v[key] for v in values}) > 1:
            raise CaseError(f"the stages differ in {key} ({', '.join(str(v[key]) for v in values)}): "
                            "their work cannot be added up")
    last = values[-1]
    out = {k: v for k, v in last.items() if k not in ATTENTION_KEYS}
    out.update(summed(values), converged=all(v["converged"] for v in values))
    out["flops_per_unit"] = sum(v["flops_per_unit"] * v["work_done"] for v in values) / \
        max(1, out["work_done"])
    out.update(combined_attention(values, out["work_done"]))
    memory = [v["peak_memory_bytes"] for v in values if v["peak_memory_bytes"] is not None]
    out["peak_memory_bytes"] = max(memory) if memory else None
    counts = [v["parameters"] for v in values if "parameters" in v]
    if counts:
        out["parameters"] = {k: max(c[k] for c in counts) for k in ("trainable", "total")}
    if "whole_run" in last.get("run_mode", {}):
        out["run_mode"] = combined_run_mode(values)
    out["stages"] = {name: dict(value) for name, value in stages.items()}
    problems = finished_problems(out)
    if problems:
        raise CaseError("FINISHED would not match the schema: " + "; ".join(problems))
    return out


def combined_attention(values: list[Mapping[str, Any]], work: int) -> dict[str, Any]:
    """The attention part of the combined flops_per_unit (weighted like it), when every stage
    counted it and all agree on causal; else nothing (the run's MFU has no causal figure)."""
    if not all(k in v for v in values for k in ATTENTION_KEYS) or \
            len({v["causal_attention"] for v in values}) > 1:
        return {}
    share = sum(v["attention_flops_per_unit"] * v["work_done"] for v in values) / max(1, work)
    return {"attention_flops_per_unit": share, "causal_attention": values[0]["causal_attention"]}


def combined_run_mode(values: list[Mapping[str, Any]]) -> dict[str, Any]:
    """A performance run's ``run_mode``: the timed work of every stage, the whole runs summed;
    no ``timed_window_s`` (each stage has its own, under ``stages``)."""
    first = values[0]["run_mode"]
    mode = {k: v for k, v in first.items() if k not in PER_STAGE_WINDOW}
    mode["timed_work"] = int(sum(v["run_mode"]["timed_work"] for v in values))
    mode["whole_run"] = summed([v["run_mode"]["whole_run"] for v in values])
    return mode
