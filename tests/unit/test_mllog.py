"""chipperf_runtime.mllog: the MLPerf lines of the training driver's PerfLog events, read back
by mlperf-logging's own parser and compliance checker (the real runs: the resnet50
and bert runs of tests/e2e, `mlperf_compliant` in tests/e2e/conftest.py)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from chipperf_runtime import mllog
from chipperf_runtime.training.driver.events import CaseLog

compliance = pytest.importorskip("mlperf_logging.compliance_checker.mlp_compliance")
encoder = pytest.importorskip("mlperf_logging.mllog.mllog")


def lifecycle(log: CaseLog, model: str, config: dict[str, Any], init: dict[str, Any],
              accuracies: list[float], converged: bool = True) -> None:
    """The events a convergence run emits, in the driver's order."""
    log.emit("INIT_START", {"model": model})
    log.emit("SUBMIT_INFO", {"vendor": "cpu", "model": model, "config": config,
                             "config_file": "/cfg/config_xeonx1x1.py"})
    log.emit("INIT_END", init)
    log.emit("TRAIN_START", {"global_batch_size": config["global_batch_size"]})
    for epoch, accuracy in enumerate(accuracies, start=1):
        log.emit("EPOCH_BEGIN", {"epoch": epoch})
        log.step_end(10 * epoch, {"loss": 1.0})
        log.eval_window(start=True)
        log.eval_window(start=False)
        log.emit("EVALUATE", {"epoch": epoch, "name": "top1", "value": accuracy,
                              "step": 10 * epoch})
        log.emit("EPOCH_END", {"epoch": epoch, "step": 10 * epoch})
    log.emit("TRAIN_END", {})
    log.emit("FINISHED", {"converged": converged, "work_unit": "samples", "work_done": 640})


RESNET = ("resnet50", {"seed": 7, "global_batch_size": 32, "base_lr": 0.1, "optimizer": "sgd"},
          {"train_images": 1438, "val_images": 359})
BERT = ("bert", {"seed": 7, "global_batch_size": 32, "learning_rate": 3e-3},
        {"eval_size": 1024})


def write_log(tmp_path: Path, case: tuple, rank: int = 0, **kw: Any) -> Path:
    stream = io.StringIO()
    lifecycle(CaseLog(rank, stream=stream), *case, **kw)
    path = tmp_path / "rank0.out.log"
    path.write_text(stream.getvalue())
    return path


def check(path: Path, benchmark: str) -> tuple[bool, list[str]]:
    ruleset = mllog.RULESETS[benchmark]
    checker = compliance.make_checker("training", ruleset, True, False)
    valid = compliance.main(str(path), f"training_{ruleset}/common.yaml", checker)[0]
    return valid, [str(m) for m in checker.not_overwritable + list(checker.overwritable.values())]


def mllog_records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line[len(mllog.MARKER):]) for line in path.read_text().splitlines()
            if line.startswith(mllog.MARKER)]


@pytest.mark.parametrize("case,benchmark", [(RESNET, "resnet"), (BERT, "bert")])
def test_a_converged_run_passes_the_benchmarks_compliance_rules(tmp_path: Path, case: tuple,
                                                                benchmark: str) -> None:
    path = write_log(tmp_path, case, accuracies=[0.5, 0.95])
    assert check(path, benchmark) == (True, [])
    keys = [r["key"] for r in mllog_records(path)]
    assert keys[:2] == ["cache_clear", "init_start"] and keys[-1] == "run_stop"
    assert keys.count("eval_start") == keys.count("eval_accuracy") == 2


def test_the_lines_are_mlperf_loggings_own_encoding(tmp_path: Path) -> None:
    for record in mllog_records(write_log(tmp_path, RESNET, accuracies=[0.5])):
        line = encoder._encode_log(record["namespace"], record["time_ms"], record["event_type"],
                                   record["key"], record["value"], record["metadata"])
        assert line.startswith(mllog.MARKER.strip()) and json.loads(line[len(":::MLLOG "):]) \
            == record


def test_hyperparameters_and_sizes_come_from_the_config_and_init_end(tmp_path: Path) -> None:
    values = {r["key"]: r for r in mllog_records(write_log(tmp_path, RESNET, accuracies=[0.5]))}
    assert {k: values[k]["value"] for k in ("seed", "global_batch_size", "opt_base_learning_rate",
                                            "opt_name", "gradient_accumulation_steps",
                                            "train_samples", "eval_samples")} == \
        {"seed": 7, "global_batch_size": 32, "opt_base_learning_rate": 0.1, "opt_name": "sgd",
         "gradient_accumulation_steps": 1, "train_samples": 1438, "eval_samples": 359}
    assert values["submission_platform"]["value"] == "cpu:xeonx1x1"
    assert values["eval_accuracy"]["metadata"]["samples_count"] == 10 * 32
    assert values["eval_start"]["metadata"]["file"] == Path(__file__).name  # the case's line


def test_bert_without_a_dataset_size_logs_the_samples_trained(tmp_path: Path) -> None:
    records = mllog_records(write_log(tmp_path, BERT, accuracies=[0.5]))
    assert [r["value"] for r in records if r["key"] == "train_samples"] == [640]


def test_an_unconverged_run_stops_aborted(tmp_path: Path) -> None:
    records = mllog_records(write_log(tmp_path, RESNET, accuracies=[0.5], converged=False))
    assert records[-1]["key"] == "run_stop" and records[-1]["metadata"]["status"] == "aborted"


def test_the_checker_rejects_a_log_without_its_evaluations(tmp_path: Path) -> None:
    valid, messages = check(write_log(tmp_path, RESNET, accuracies=[]), "resnet")
    assert not valid and any("eval_accuracy" in m for m in messages)


def test_only_the_logging_rank_writes(tmp_path: Path) -> None:
    assert mllog_records(write_log(tmp_path, RESNET, rank=1, accuracies=[0.5])) == []


def test_a_model_mlperf_lacks_keeps_its_name_and_a_micro_batch_leaves_accumulation_out() -> None:
    assert mllog.benchmark_name("swin_transformer") == "swin_transformer"
    assert "gradient_accumulation_steps" not in mllog.hyperparameters(
        {"global_batch_size": 64, "micro_batch_size": 2})
