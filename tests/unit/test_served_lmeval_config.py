"""The served mode's lm-eval keys, record and report (pure parts of ``served/lmtasks.py``);
lm-eval itself against a live server: tests/runtime/test_served_lmeval.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from chipperf_runtime.inference.errors import CaseError
from chipperf_runtime.inference.llm.served import lmtasks

FOLDER = Path(__file__).resolve().parents[2] / "inference/configs/llama3_8b"
# lm-eval 0.4.13's results for two tasks (simple_evaluate's "results" and "n-samples", as the
# runtime test's run against tfserver wrote them)
RESULTS = {"results": {
    "chipperf_arith": {"name": "chipperf_arith", "alias": "chipperf_arith", "sample_len": 10,
                       "exact_match,none": 0.0, "exact_match_stderr,none": 0.0},
    "chipperf_arith_mc": {"name": "chipperf_arith_mc", "alias": "chipperf_arith_mc",
                          "sample_len": 10, "acc,none": 0.2,
                          "acc_stderr,none": 0.13333333333333333,
                          "acc_norm,strict": 0.5, "acc_norm_stderr,strict": "N/A"}},
    "n-samples": {"chipperf_arith": {"original": 50, "effective": 10},
                  "chipperf_arith_mc": {"original": 50, "effective": 10}},
    "harness": "lm-eval 0.4.13"}


def test_the_lmeval_keys_report_every_problem_at_once() -> None:
    from chipperf_runtime.inference import config as configuration
    from chipperf_runtime.inference.llm.served.settings import ServedSettings

    good = configuration.load(FOLDER, "cpu_configuration.yaml", [
        "serve_lmeval_tasks=[chipperf_arith, arc_easy]", "serve_lmeval_limit=null"])
    assert ServedSettings.from_config(good).serve_lmeval_tasks == ("chipperf_arith", "arc_easy")
    bad = configuration.load(FOLDER, "cpu_configuration.yaml", [
        "serve_lmeval_tasks=[chipperf_arith, chipperf_arith, 3]", "serve_lmeval_limit=0",
        "serve_lmeval_timeout_s=0",
        "serve_lmeval_local_tasks={chipperf_arith: {kind: exact_match, data_file: a.jsonl}, "
        "mine: {kind: essay, data_file: b.jsonl}}"])
    with pytest.raises(CaseError) as caught:
        ServedSettings.from_config(bad)
    assert str(caught.value).splitlines()[1:] == [
        "  serve_lmeval_tasks: every item must be a task name (a string), got 3",
        "  serve_lmeval_tasks: a task is listed twice: ['chipperf_arith', 'chipperf_arith', 3]",
        "  serve_lmeval_limit: must be null (every example) or a whole number >= 1 of examples "
        "per task, got 0",
        "  serve_lmeval_timeout_s: must be a number of seconds > 0, got 0.0",
        "  serve_lmeval_local_tasks.chipperf_arith: chipperf_arith is chipperf's own local "
        "task: give yours another name",
        "  serve_lmeval_local_tasks.mine: must be {kind: exact_match | multiple_choice, "
        "data_file: PATH}, got {'kind': 'essay', 'data_file': 'b.jsonl'}"]


def test_a_local_tasks_data_file_missing_or_malformed_is_named(tmp_path: Path) -> None:
    (tmp_path / "short.jsonl").write_text('{"question": "q", "choices": ["a", "b"]}\n')
    (tmp_path / "good.jsonl").write_text('{"question": "q", "answer": "a"}\n')
    local = {"gone": {"kind": "exact_match", "data_file": "gone.jsonl"},
             "short": {"kind": "multiple_choice", "data_file": str(tmp_path / "short.jsonl")},
             "good": {"kind": "exact_match", "data_file": "good.jsonl"}}
    found = lmtasks.local_tasks(["gone", "short", "good", "chipperf_arith", "arc_easy"], local,
                                tmp_path, tmp_path / "out")
    assert [t.name for t in found] == ["gone", "short", "good", "chipperf_arith"]
    assert lmtasks.missing_files(found) == [
        f"serve_lmeval_local_tasks.gone.data_file: {tmp_path}/gone.jsonl is not a file: write "
        "the task's examples there, one JSON object per line (question, answer)",
        f"serve_lmeval_local_tasks.short.data_file: {tmp_path}/short.jsonl line 1 lacks label "
        "(a multiple_choice example has question, choices, label)"]


def test_local_tasks_are_lmeval_yaml_over_json_data_with_no_hub(tmp_path: Path) -> None:
    found = lmtasks.local_tasks(["chipperf_arith", "chipperf_arith_mc"], {}, tmp_path, tmp_path)
    lmtasks.write_tasks(found, 42, tmp_path)
    choice = yaml.safe_load((tmp_path / "chipperf_arith_mc.yaml").read_text())
    assert choice["dataset_path"] == "json" and choice["output_type"] == "multiple_choice"
    assert choice["dataset_kwargs"] == {"data_files": {"test": str(tmp_path / "data" /
                                                                   "chipperf_arith_mc.jsonl")}}
    items = [json.loads(line) for line in (tmp_path / "data/chipperf_arith_mc.jsonl")
             .read_text().splitlines()]
    assert len(items) == lmtasks.BUILTIN_ITEMS
    for item in items:
        a, b = map(int, item["question"][len("What is "):-1].split(" plus "))
        assert item["choices"][item["label"]] == str(a + b) and len(set(item["choices"])) == 4
    exact = yaml.safe_load((tmp_path / "chipperf_arith.yaml").read_text())
    assert exact["output_type"] == "generate_until" and exact["doc_to_target"] == "{{answer}}"
    assert lmtasks.arithmetic(42, 3, "exact_match") == lmtasks.arithmetic(42, 3, "exact_match")


def test_the_record_keeps_each_score_and_says_random_weights_mean_nothing() -> None:
    random = lmtasks.record(RESULTS, None, None, ["chipperf_arith", "chipperf_arith_mc"], 10)
    assert random["scores"] == [
        {"task": "chipperf_arith", "metric": "exact_match", "value": 0.0, "n": 10, "stderr": 0.0},
        {"task": "chipperf_arith_mc", "metric": "acc", "value": 0.2, "n": 10,
         "stderr": 0.13333333333333333},
        {"task": "chipperf_arith_mc", "metric": "acc_norm (strict)", "value": 0.5, "n": 10,
         "stderr": None}]
    assert random["meaningful"] is False and random["note"].startswith("not meaningful")
    assert random["harness"] == "lm-eval 0.4.13"
    real = lmtasks.record(RESULTS, None, "/ckpt", ["chipperf_arith"], None)
    assert real["meaningful"] is True and real["weights"] == "checkpoint /ckpt" \
        and "note" not in real
    failed = lmtasks.record(None, "failed: lm-eval failed (exit 1)", "/ckpt", ["gsm8k"], 5)
    assert failed["scores"] == [] and failed["not_run"] == "failed: lm-eval failed (exit 1)"


def test_the_report_shows_the_scores_and_the_guard_beside_the_sweep() -> None:
    from chipperf.results.compute.schema import CaseResult, RoundResult
    from chipperf.results.render import servedaccuracy
    from chipperf.results.render.markdown import _inference_notes

    guard = {"prompts": 3, "tokens": 48, "token_agreement": 1.0, "prefix_agreement": 1.0,
             "target": 0.99, "agree": True, "reference": "transformers generate, greedy, fp32"}
    tasks = lmtasks.record(RESULTS, None, None, ["chipperf_arith", "chipperf_arith_mc"], 10)
    sweep = {"points": [], "planned": 0, "accuracy_guard": guard, "accuracy_tasks": tasks}
    case = CaseResult(dir_name="llama3_8b-pytorch_vllm_0.32-xeon-1x1", suite="inference",
                      rounds=(RoundResult(number=1, serving={"sweep": sweep}),))
    header, rows = servedaccuracy.accuracy_rows(case)
    assert rows[1] == ["1", "chipperf_arith_mc", "acc", "0.2", "0.1333", "10",
                       "chipperf's seeded random weights (not meaningful)"]
    notes = servedaccuracy.accuracy_notes(case)
    assert notes[0] == ("Round 1: accuracy guard: 100.0 % of 48 greedy tokens over 3 prompts "
                        "equal the reference's (transformers generate, greedy, fp32), target "
                        "99.0 %: agree")
    assert notes[1].startswith("Round 1: lm-eval 0.4.13 on chipperf_arith, chipperf_arith_mc, "
                               "at most 10 examples each; not meaningful")
    markdown = "\n".join(_inference_notes(case))
    assert "### Served accuracy (beside the speed)" in markdown and "| chipperf_arith |" in markdown
    first = CaseResult(dir_name=case.dir_name, suite="inference", rounds=(RoundResult(
        number=1, serving={"sweep": {**sweep, "accuracy_when": "before_sweep"}}),))
    guard_note, tasks_note = servedaccuracy.accuracy_notes(first)
    assert guard_note == notes[0] + " (asked before the sweep)"
    assert tasks_note.startswith("Round 1: lm-eval 0.4.13 on chipperf_arith, chipperf_arith_mc, "
                                 "at most 10 examples each; asked before the sweep; not meaningful")


def test_plan_refuses_lmeval_tasks_only_where_the_image_lacks_lmeval() -> None:
    from chipperf.plan.engines import harness_image_problems

    repo = Path(__file__).resolve().parents[2]
    serving = repo / "inference/cpu/docker_image/pytorch_vllm_0.32"
    plain = repo / "training/cpu/docker_image/pytorch_2.13"
    assert harness_image_problems(["chipperf_arith"], serving, [], "case") == []
    assert harness_image_problems([], plain, [], "case") == []
    (problem,) = harness_image_problems(["chipperf_arith"], plain, [], "case")
    assert problem.startswith(f"case: serve_lmeval_tasks asks lm-eval, which image folder {plain} "
                              "does not install")
