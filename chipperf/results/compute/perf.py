"""What global rank 0's PerfLog says about a round: times, throughput, metric, MFU.

``read_rank_log`` streams a ``rank<R>.out.log`` through ``chipperf_runtime.perflog.parse_lines``
(non-UTF-8 bytes are replaced and reported). ``performance`` turns the events into
the round's performance fields, each absent with a reason when the log cannot
tell (an inference round's latency, engine and reference deviation too, see
``chipperf.results.compute.inference``). ``mfu`` (chipperf.results.compute.mfu) divides
achieved FLOP/s by the vendor spec sheet's peak.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chipperf.results.compute.cut import StepTrail, cut_fields
from chipperf.results.compute.inference import inference_fields, window_work
from chipperf.results.compute.mfu import SPEC_NOT_MFU, Mfu, chip_peak, mfu
from chipperf.results.compute.schema import Metric, Throughput
from chipperf.results.compute.spec import spec_fields
from chipperf.results.read.flagperf import target_from_config
from chipperf.results.read.samples import read_lines
from chipperf.suites import suite_of
from chipperf_runtime.perflog import Event, iter_records, normalize_finished
from chipperf_runtime.perflog_schema import attention_problems

# MFU lives in chipperf.results.compute.mfu: importable from here as before
__all__ = ["FIGURES_FROM", "Mfu", "RankLog", "SPEC_NOT_MFU", "TIMES", "chip_peak",
           "finish_info_fields", "flagperf_llm_fields", "mfu", "performance",
           "read_finish_info_log", "read_rank_log", "run_mode_text"]

# reasons[FIGURES_FROM]: a FlagPerf round whose figures come from its text lines, not FINISHED
FIGURES_FROM = "figures_from"
TIMES = ("e2e_time_s", "train_time_s", "train_no_eval_time_s", "pure_compute_time_s")


@dataclass
class RankLog:
    """The events of one rank log that matter to a summary."""

    path: Path
    present: bool = False
    submit_info: Event | None = None
    init_start: Event | None = None
    train_start: Event | None = None
    train_end: Event | None = None
    finished: Event | None = None
    steps: StepTrail = field(default_factory=StepTrail)   # for a round cut before FINISHED
    finish_info: Mapping[str, Any] | None = None  # FlagPerf inference: its Finish Info dict
    events: int = 0
    lines: int = 0                                # the last line read
    problems: list[str] = field(default_factory=list)


def read_rank_log(path: Path) -> RankLog:
    out = RankLog(path=path)
    if not path.is_file():
        return out
    out.present = True
    try:
        for event, problem in iter_records(_decoded(path, out)):
            if problem is not None:
                out.problems.append(f"{path.name}:{problem.line}: {problem.message}")
            if event is not None:
                _keep(out, event)
    except OSError as exc:
        out.problems.append(f"{path.name}: unreadable: {exc}")
    return out


def read_finish_info_log(path: Path) -> RankLog:
    """A FlagPerf inference case's ``container.out.log``: its one ``Finish Info {...}`` line
    stands for FINISHED (a log without it, or cut inside it, is a problem naming the line)."""
    from chipperf.results.read.flagperf_text import parse_finish_info

    out = RankLog(path=path, present=path.is_file())
    if not out.present:
        return out
    info, problems = parse_finish_info(text for _, text, _ in read_lines(path))
    out.finish_info = info or None
    out.problems += [f"{path.name}:{p.removeprefix('line ')}" for p in problems]
    return out


def _decoded(path: Path, out: RankLog) -> Iterator[str]:
    """Every line of the log (streamed); lines with bad bytes are reported as they pass."""
    for number, text, clean in read_lines(path):
        out.lines = number
        if not clean:
            out.problems.append(f"{path.name}:{number}: not valid UTF-8 (bytes replaced)")
        yield text


def _keep(out: RankLog, event: Event) -> None:
    out.events += 1
    name = event.name
    if name == "SUBMIT_INFO" and out.submit_info is None:
        out.submit_info = event
    elif name == "INIT_START" and out.init_start is None:
        out.init_start = event
    elif name == "TRAIN_START" and out.train_start is None:
        out.train_start = event
    elif name == "TRAIN_END":
        out.train_end = event
    elif name == "FINISHED":
        out.finished = event
    elif name == "STEP_END":
        out.steps.keep(event)


# ---------------------------------------------------------------- performance fields


def performance(log: RankLog, rel: str, suite: str | None = None
                ) -> tuple[dict[str, Any], dict[str, str]]:
    """RoundResult fields from rank 0's events, and the reason for each absent one."""
    fields: dict[str, Any] = {}
    reasons: dict[str, str] = {}
    if log.train_start and log.train_end and log.train_start.time_ms is not None \
            and log.train_end.time_ms is not None:
        fields["train_start_ms"] = log.train_start.time_ms
        fields["train_end_ms"] = log.train_end.time_ms
    else:
        missing = [n for n, e in (("TRAIN_START", log.train_start), ("TRAIN_END", log.train_end))
                   if e is None or e.time_ms is None]
        reasons["window"] = f"{rel} has no {' / '.join(missing)} with time_ms"
    if log.finish_info is not None:
        fields.update(finish_info_fields(log.finish_info, reasons))
        return fields, reasons
    if log.finished is None:
        return _without_finished(log, rel, fields, reasons)
    value = normalize_finished(log.finished.value)
    fields.update(_finished_fields(value, reasons))
    _timed_window(fields, value.get("run_mode"), reasons)
    if suite_of(suite).measures_spec and isinstance(log.finished.value, Mapping):
        fields.update(spec_fields(log.finished.value, suite, reasons))
    if suite_of(suite).infers:
        fields.update(inference_fields(value, reasons))
        _window_time(fields, reasons)
        reasons.pop("throughput.no_eval", None)      # a training figure; inference has none
    fields["window_work"] = window_work(fields, suite, reasons)
    _fill_target(fields, log.submit_info)
    return fields, reasons


def _without_finished(log: RankLog, rel: str, fields: dict[str, Any], reasons: dict[str, str]
                      ) -> tuple[dict[str, Any], dict[str, str]]:
    """A log with no FINISHED event: a FlagPerf LLM case's summary lines stand for it, else
    what its completed steps say (a cut round); ``finished`` in the reasons says why."""
    why = f"{rel} missing" if not log.present else \
        f"{rel} has no FINISHED event (it ends at line {log.lines}: the case did not " \
        "finish, or the log is truncated)"
    llm, cut = flagperf_llm_fields(log.path, reasons) if log.present else (None, "")
    if llm is not None:  # a FlagPerf LLM case: its summary lines stand for FINISHED
        fields.update(llm)
        return fields, reasons
    completed, said = cut_fields(log.steps, why)
    fields.update(completed)
    if completed:
        reasons["cut"] = said
        fields["window_work"] = completed["work_done"]
    return fields, {**reasons, "finished": f"{rel.rsplit('/', 1)[0]}/{cut}" if cut else why}


def flagperf_llm_fields(path: Path, reasons: dict[str, str]
                        ) -> tuple[dict[str, Any] | None, str]:
    """RoundResult fields from the summary lines a FlagPerf LLM case (deepspeed, megatron,
    flagscale) prints instead of FINISHED: system tokens/s, MFU (as the case computed it,
    over FlagPerf's "Theory TFLOPS"), final loss. (None, '<file>:<line>: what') for an LLM
    log that ends before its summary; (None, '') for a log with no LLM lines at all."""
    from chipperf.results.read.flagperf_text import parse_llm_log

    values, problems = parse_llm_log(text for _, text, _ in read_lines(path))
    if problems or "system_tokens_per_s" not in values:
        cut = problems[0].removeprefix("line ") if values and problems else ""
        return None, f"{path.name}:{cut}" if cut else ""
    reasons[FIGURES_FROM] = ("FlagPerf LLM case: no FINISHED event; figures from its summary "
                             "lines (System tokens per second, MFU, loss); it reports no "
                             "convergence")
    out: dict[str, Any] = {
        "throughput": Throughput(raw=values["system_tokens_per_s"], unit="tokens/s"),
        "work_unit": "tokens", "mfu_reported": values["mfu"]}
    if "final_loss" in values:
        out["metric"] = Metric("final_loss", values["final_loss"], None, False)
    if "theory_tflops" in values:
        out["reported_peak_tflops"] = values["theory_tflops"]
    return out, ""


def finish_info_fields(info: Mapping[str, Any], reasons: dict[str, str]) -> dict[str, Any]:
    """RoundResult fields from a FlagPerf inference Finish Info: throughput (whole: the
    e2e inference pass; pure compute: its starred ``*p_inference_core(qps)``), end-to-end
    time, precision, the compiler as the engine, and the inference accuracy as the metric."""
    def number(key: str) -> float | None:
        value = info.get(key)
        return float(value) if isinstance(value, (int, float)) and \
            not isinstance(value, bool) else None

    reasons[FIGURES_FROM] = "FlagPerf inference case: no FINISHED event; figures from its " \
                            "Finish Info line"
    reasons["latency_ms"] = "FlagPerf's Finish Info has no latency percentiles"
    reasons["reference"] = "FlagPerf's Finish Info has no deviation from a reference"
    reasons["train_time_s"] = "FlagPerf's Finish Info has no timed window"
    raw, core = number("p_inference_whole(qps)"), number("*p_inference_core(qps)")
    out: dict[str, Any] = {
        "e2e_time_s": number("e2e_time(second)"), "work_unit": "items",
        "throughput": Throughput(raw=raw, pure_compute=core, unit="items/s")
        if raw is not None or core is not None else None,
        "precision": info.get("precision") if isinstance(info.get("precision"), str) else None,
        "engine": info.get("compiler") if isinstance(info.get("compiler"), str) else None}
    out["dtype"] = out["precision"]
    accuracy = number("infer_average_acc")
    if accuracy is not None:
        out["metric"] = Metric("infer_average_acc", accuracy, None, True)
    for key, name in (("throughput", "p_inference_whole(qps)"), ("e2e_time_s", "e2e_time(second)")):
        if out[key] is None:
            reasons[key] = f"Finish Info has no numeric {name!r}"
    return out


def _window_time(fields: dict[str, Any], reasons: dict[str, str]) -> None:
    """Inference FINISHED need not carry train_time_s: the TRAIN_START..TRAIN_END span of
    rank 0 is the timed window then."""
    if fields.get("train_time_s") is not None:
        return
    start, end = fields.get("train_start_ms"), fields.get("train_end_ms")
    if start is not None and end is not None and end > start:
        fields["train_time_s"] = (end - start) / 1000
        reasons.pop("train_time_s", None)
    else:
        reasons["train_time_s"] = "FINISHED has no 'train_time_s' and rank 0 logged no " \
                                  "TRAIN_START..TRAIN_END span"
    if fields.get("train_no_eval_time_s") is None:
        reasons["train_no_eval_time_s"] = "FINISHED has no 'train_no_eval_time_s' (optional " \
                                          "for inference)"


def _finished_fields(value: Mapping[str, Any], reasons: dict[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in TIMES:
        out[key] = _number(value, key, reasons)
    out["work_done"] = _integer(value, "work_done", reasons)
    out["work_unit"] = _text(value, "work_unit", reasons)
    out["flops_per_unit"] = _number(value, "flops_per_unit", reasons)
    out["dtype"] = _text(value, "dtype", reasons)
    out["world_size"] = _integer(value, "world_size", reasons)
    out["peak_memory_bytes"] = _integer(value, "peak_memory_bytes", reasons)
    if "peak_memory_bytes" in value and value["peak_memory_bytes"] is None:
        reasons["peak_memory_bytes"] = "the framework could not tell (FINISHED reports null)"
    rss = value.get("peak_rss_bytes")      # training: rank 0's peak RSS (host memory)
    out["peak_rss_bytes"] = rss if isinstance(rss, int) and not isinstance(rss, bool) else None
    converged = value.get("converged")
    out["converged"] = converged if isinstance(converged, bool) else None
    if out["converged"] is None:
        reasons["converged"] = "FINISHED lacks 'converged'"
    out["throughput"] = _throughput(value.get("throughput"), reasons)
    out["metric"] = _metric(value.get("metric"), reasons)
    out["run_mode"] = run_mode_text(value.get("run_mode"))
    data_mode = value.get("data_mode")
    out["data_mode"] = data_mode if isinstance(data_mode, str) else None
    execution = value.get("execution")      # how the model ran (driver.executed)
    out["execution"] = dict(execution) if isinstance(execution, Mapping) else None
    out.update(_attention(value))
    return out


def _attention(value: Mapping[str, Any]) -> dict[str, Any]:
    """FINISHED's attention pair, when both are present and well typed (``chipperf check``
    reports them otherwise: perflog_schema.attention_problems)."""
    share, causal = value.get("attention_flops_per_unit"), value.get("causal_attention")
    if attention_problems(value) or share is None:
        return {}
    return {"attention_flops_per_unit": float(share), "causal_attention": causal}


def _timed_window(fields: dict[str, Any], item: Any, reasons: dict[str, str]) -> None:
    """A performance run's monitor window (energy, power, utilisation): its timed steps, the
    last ``timed_window_s`` before TRAIN_END (the driver ends training right after the last
    timed step), so work per joule divides the timed work by the timed window's energy."""
    seconds = item.get("timed_window_s") if isinstance(item, Mapping) else None
    start, end = fields.get("train_start_ms"), fields.get("train_end_ms")
    if not isinstance(seconds, (int, float)) or isinstance(seconds, bool) or start is None \
            or end is None:
        return
    fields["train_start_ms"] = max(start, end - round(seconds * 1000))
    reasons["monitor_window"] = ("performance mode: monitor window = the timed steps, the last "
                         f"{seconds:.3f} s before TRAIN_END (warm-up left out)")


def run_mode_text(item: Any) -> str | None:
    """FINISHED's ``run_mode`` as one phrase; None when the case did not say (older cases)."""
    if not isinstance(item, Mapping) or not isinstance(item.get("mode"), str):
        return None
    if item["mode"] != "performance":
        return str(item["mode"])
    return (f"performance: {item.get('warmup_steps')} warm-up + {item.get('timed_steps')} "
            "timed steps")


def _number(value: Mapping[str, Any], key: str, reasons: dict[str, str]) -> float | None:
    item = value.get(key)
    if isinstance(item, (int, float)) and not isinstance(item, bool):
        return float(item)
    reasons[key] = f"FINISHED lacks {key!r}" if item is None else f"FINISHED {key!r} is not a number"
    return None


def _integer(value: Mapping[str, Any], key: str, reasons: dict[str, str]) -> int | None:
    number = _number(value, key, reasons)
    return None if number is None else int(number)


def _text(value: Mapping[str, Any], key: str, reasons: dict[str, str]) -> str | None:
    item = value.get(key)
    if isinstance(item, str) and item:
        return item
    reasons[key] = f"FINISHED lacks {key!r}"
    return None


def _throughput(item: Any, reasons: dict[str, str]) -> Throughput | None:
    if not isinstance(item, Mapping):
        reasons["throughput"] = "FINISHED lacks 'throughput'"
        return None
    out = {}
    for kind in ("raw", "no_eval", "pure_compute"):
        number = item.get(kind)
        out[kind] = float(number) if isinstance(number, (int, float)) \
            and not isinstance(number, bool) else None
        if out[kind] is None:
            reasons[f"throughput.{kind}"] = f"FINISHED throughput lacks {kind!r}"
    unit = item.get("unit") if isinstance(item.get("unit"), str) else None
    return Throughput(unit=unit, **out)


def _metric(item: Any, reasons: dict[str, str]) -> Metric | None:
    if not isinstance(item, Mapping):
        reasons["metric"] = "FINISHED lacks 'metric'"
        return None

    def number(key: str) -> float | None:
        v = item.get(key)
        return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None

    metric = Metric(name=str(item.get("name")) if item.get("name") is not None else None,
                    value=number("value"), target=number("target"),
                    higher_is_better=item.get("higher_is_better")
                    if isinstance(item.get("higher_is_better"), bool) else None)
    if metric.value is None:
        reasons["metric.value"] = "FINISHED metric has no numeric value"
    return metric


def _fill_target(fields: dict[str, Any], submit_info: Event | None) -> None:
    """FlagPerf's target lives in SUBMIT_INFO's config, not in FINISHED."""
    metric = fields.get("metric")
    if metric is None or metric.target is not None or submit_info is None:
        return
    target = target_from_config(submit_info.value.get("config"))
    if target is not None:
        fields["metric"] = Metric(metric.name, metric.value, target, metric.higher_is_better)


# ---------------------------------------------------------------- MFU
