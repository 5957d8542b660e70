"""The PerfLog writer's output parses back; the parser never raises; FlagPerf's FINISHED keys map."""

from __future__ import annotations

import io
import json

from chipperf_runtime.perflog import (
    MARKER,
    PerfLogger,
    finished_problems,
    normalize_finished,
    parse_lines,
    parse_record,
)

COMPLETE = {
    "e2e_time_s": 70.0, "train_time_s": 60.0, "train_no_eval_time_s": 57.0,
    "pure_compute_time_s": 48.0, "work_unit": "samples", "work_done": 60000,
    "throughput": {"raw": 1000.0, "no_eval": 1052.6, "pure_compute": 1250.0, "unit": "samples/s"},
    "converged": True, "metric": {"name": "top1", "value": 0.76, "target": 0.75,
                                  "higher_is_better": True},
    "flops_per_unit": 12.3e9, "dtype": "bf16", "world_size": 4, "peak_memory_bytes": None,
}


def test_writer_output_parses_back_with_metadata():
    stream = io.StringIO()
    clock = iter([1.0, 2.5])
    log = PerfLogger(rank=3, stream=stream, _clock=lambda: next(clock))
    log.event("TRAIN_START")
    log.event("FINISHED", COMPLETE)
    events, problems = parse_lines(stream.getvalue().splitlines())
    assert problems == []
    assert [e.name for e in events] == ["TRAIN_START", "FINISHED"]
    assert [e.time_ms for e in events] == [1000, 2500]
    assert {e.rank for e in events} == {3}
    assert events[1].value == COMPLETE
    assert events[1].line == 2


def test_parser_finds_the_marker_anywhere_and_ignores_other_output():
    record = json.dumps({"event": "INIT_START", "value": {}, "metadata": {"time_ms": 5, "rank": 0}})
    lines = ["loading ...", f"2024-01-01 INFO {MARKER}{record}", "[PerfLog]without space"]
    events, problems = parse_lines(lines)
    assert [(e.name, e.line) for e in events] == [("INIT_START", 2)]
    assert problems == []


def test_every_bad_line_is_a_problem_with_its_line_number():
    lines = [f"{MARKER}{{not json", f"{MARKER}[1, 2]",
             f"{MARKER}" + json.dumps({"event": "BOGUS", "metadata": {}}),
             f"{MARKER}" + json.dumps({"event": "TRAIN_END", "value": 3, "metadata": "x"}),
             f'{MARKER}{{"event": "FINISHED", "value": {{"e2e_time_s": 1'] # truncated
    events, problems = parse_lines(lines)
    assert [p.line for p in problems] == [1, 2, 3, 5]
    assert "not valid JSON" in problems[0].message
    assert "unknown event 'BOGUS'" in problems[2].message
    # a value that is not an object is kept, wrapped; bad metadata means no time / rank
    end = next(e for e in events if e.name == "TRAIN_END")
    assert end.value == {"value": 3} and end.time_ms is None and end.rank is None


def test_parse_record_rejects_bool_timestamps():
    event, problem = parse_record(json.dumps(
        {"event": "STEP_END", "value": {}, "metadata": {"time_ms": True, "rank": False}}))
    assert problem is None and event.time_ms is None and event.rank is None


def test_complete_finished_has_no_problems_and_each_gap_is_named():
    assert finished_problems(COMPLETE) == []
    partial = {k: v for k, v in COMPLETE.items() if k not in ("dtype", "work_done")}
    partial["converged"] = "yes"
    partial["throughput"] = {"no_eval": 1.0}
    problems = finished_problems(partial)
    assert "FINISHED lacks 'dtype'" in problems
    assert "FINISHED lacks 'work_done'" in problems
    assert "FINISHED 'converged' has type str" in problems
    assert "FINISHED throughput lacks 'raw'" in problems
    assert "FINISHED throughput lacks 'unit'" in problems


def test_flagperf_finished_keys_map_onto_the_schema():
    old = {"e2e_time": 1900.5, "training_sequences_per_second": 822.4, "converged": True,
           "final_mlm_accuracy": 0.72, "raw_train_time": 1700.0, "init_time": 30.0,
           "num_trained_samples": 869632, "pure_training_computing_time": 1500.0,
           "throughput(ips)_raw": 511.5, "throughput(ips)_no_eval": 520.0,
           "throughput(ips)_pure_compute": 579.8}
    new = normalize_finished(old)
    assert new["e2e_time_s"] == 1900.5
    assert new["train_time_s"] == 1700.0
    assert new["pure_compute_time_s"] == 1500.0
    assert new["work_done"] == 869632
    assert new["work_unit"] == "samples"
    # the explicit throughput(ips)_* keys come first in FlagPerf's own order
    assert new["throughput"] == {"raw": 511.5, "no_eval": 520.0, "pure_compute": 579.8,
                                 "unit": "samples/s"}
    assert new["metric"] == {"name": "mlm_accuracy", "value": 0.72, "target": None,
                             "higher_is_better": True}
    assert new["converged"] is True


def test_flagperf_metric_fallbacks_and_token_rates():
    detection = normalize_finished({"final_map_segm": 0.3, "final_map_bbox": 0.37})
    assert detection["metric"]["name"] == "map_bbox"      # the preferred key wins
    other = normalize_finished({"final_eval_loss": 2.1, "final_rouge": 0.4})
    assert other["metric"]["name"] == "rouge"             # losses come last
    loss = normalize_finished({"final_loss": 2.1})["metric"]
    assert loss["higher_is_better"] is False
    tokens = normalize_finished({"tokens_per_second": 5e4, "train_time": 10.0})
    assert tokens["throughput"] == {"raw": 5e4, "unit": "tokens/s"}
    assert tokens["work_unit"] == "tokens"


def test_new_keys_win_over_old_ones():
    mixed = normalize_finished({"e2e_time": 1.0, "e2e_time_s": 2.0,
                                "throughput": {"raw": 9.0, "unit": "tokens/s"},
                                "training_samples_per_second": 1.0})
    assert mixed["e2e_time_s"] == 2.0
    assert mixed["throughput"] == {"raw": 9.0, "unit": "tokens/s"}


def test_execution_survives_normalisation():
    """FINISHED's execution (how the model ran: compile, attention, fused optimizer) reaches
    the round record."""
    ran = {"compile": "torch.compile(inductor, mode=default)", "attention": "sdpa",
           "fused_optimizer": True}
    assert normalize_finished({"execution": ran, "e2e_time_s": 1.0})["execution"] == ran
