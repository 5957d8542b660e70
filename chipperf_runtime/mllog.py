"""MLPerf's ``:::MLLOG`` lines, mapped once from the training driver's PerfLog events.

Every PerfLog event a training case emits (``training/driver/events.py``: ``CaseLog``) passes
through ``MLLogMapper.on_event``, which writes the MLPerf logging lines that event stands for
to the same stream, so they land in the rank log beside the PerfLog line they came from::

    :::MLLOG {"namespace": "", "time_ms": T, "event_type": "POINT_IN_TIME" | "INTERVAL_START"
              | "INTERVAL_END", "key": K, "value": V, "metadata": {"file": F, "lineno": N, ...}}

The line format is mlcommons/logging's (``mlperf_logging.mllog``: the same keys in the same
order); it is written here with the standard library because this module runs in every case
container, and the ``mlperf-logging`` package's requirements pull in pandas and scipy.
``mlperf_logging.compliance_checker`` reads the rank log as it is: it takes only the lines
holding ``:::MLLOG``. docs/results.md "MLPerf logs" lists the keys and the ruleset that
checks each benchmark.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

MARKER = ":::MLLOG "
POINT, START, END = "POINT_IN_TIME", "INTERVAL_START", "INTERVAL_END"

# chipperf model -> MLPerf Training's benchmark name, where MLPerf has the benchmark.
BENCHMARKS: Mapping[str, str] = {"resnet50": "resnet", "bert": "bert"}
# The newest training ruleset of mlperf-logging 4.1.68 whose rules cover each benchmark
# (MLPerf Training retired resnet after 4.0 and bert after 5.0; 4.1's and 5.1's open
# lists name them but lack or reject their rule files).
RULESETS: Mapping[str, str] = {"resnet": "4.0.0", "bert": "5.0.0"}
# Config parameter names -> MLPerf hyperparameter keys (the first name present wins).
HYPERPARAMETERS: Mapping[str, tuple[str, ...]] = {
    "seed": ("seed",),
    "global_batch_size": ("global_batch_size",),
    "opt_base_learning_rate": ("base_lr", "learning_rate", "lr"),
    "opt_name": ("optimizer",),
    "gradient_accumulation_steps": ("gradient_accumulation_steps",),
}
# INIT_END keys that give the training and evaluation set sizes.
TRAIN_SIZE_KEYS = ("train_samples", "train_images")
EVAL_SIZE_KEYS = ("eval_samples", "val_images", "eval_size")
# Read from the case's environment (NVIDIA's MLPerf code reads the same names).
ORG_ENV, PLATFORM_ENV = "MLPERF_SUBMISSION_ORG", "MLPERF_SUBMISSION_PLATFORM"


@dataclass
class MLLogWriter:
    """Writes one ``:::MLLOG`` line per call to ``stream`` (default: stdout at write time)."""

    stream: TextIO | None = None
    namespace: str = ""

    def write(self, key: str, value: Any, time_ms: int, metadata: Mapping[str, Any],
              event_type: str = POINT) -> str:
        record = {"namespace": self.namespace, "time_ms": time_ms, "event_type": event_type,
                  "key": key, "value": value, "metadata": dict(metadata)}
        line = MARKER + json.dumps(record, default=str)
        out = self.stream or sys.stdout
        out.write(line + "\n")
        out.flush()
        return line


@dataclass
class MLLogMapper:
    """The MLPerf lines of each PerfLog record (``PerfLogger.event``'s return value)."""

    writer: MLLogWriter
    environ: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    epoch: int | None = None
    global_batch_size: int | None = None
    train_samples_written: bool = False
    run_started: bool = False

    def on_event(self, record: Mapping[str, Any], where: Mapping[str, Any] | None = None) -> None:
        """``where``: the case's {"file", "lineno"} (default: the record's own metadata)."""
        handler = getattr(self, f"_on_{record['event'].lower()}", None)
        if handler is not None:
            handler(record["value"], {**record["metadata"], **(where or {})})

    def eval_window(self, start: bool, time_ms: int, where: Mapping[str, Any]) -> None:
        """eval_start / eval_stop around the driver's evaluation window."""
        self._write("eval_start" if start else "eval_stop", None, time_ms, where,
                    START if start else END, self._epoch_meta())

    # ------------------------------------------------------------ per PerfLog event

    def _on_init_start(self, value: Mapping[str, Any], meta: Mapping[str, Any]) -> None:
        # chipperf does not drop the page cache between runs: the value says so.
        self._write("cache_clear", False, meta["time_ms"], meta)
        self._write("init_start", None, meta["time_ms"], meta, START)

    def _on_submit_info(self, value: Mapping[str, Any], meta: Mapping[str, Any]) -> None:
        config = value.get("config") or {}
        self.global_batch_size = _int(config.get("global_batch_size"))
        for key, item in submission(value, self.environ).items():
            self._write(key, item, meta["time_ms"], meta)
        for key, item in hyperparameters(config).items():
            self._write(key, item, meta["time_ms"], meta)

    def _on_init_end(self, value: Mapping[str, Any], meta: Mapping[str, Any]) -> None:
        train, evaluation = _first(value, TRAIN_SIZE_KEYS), _first(value, EVAL_SIZE_KEYS)
        if train is not None:
            self._write("train_samples", train, meta["time_ms"], meta)
            self.train_samples_written = True
        if evaluation is not None:
            self._write("eval_samples", evaluation, meta["time_ms"], meta)
        self._write("init_stop", None, meta["time_ms"], meta, END)

    def _on_train_start(self, value: Mapping[str, Any], meta: Mapping[str, Any]) -> None:
        self.global_batch_size = _int(value.get("global_batch_size")) or self.global_batch_size
        if not self.run_started:                   # a later stage's TRAIN_START: same run
            self.run_started = True
            self._write("run_start", None, meta["time_ms"], meta, START)

    def _on_epoch_begin(self, value: Mapping[str, Any], meta: Mapping[str, Any]) -> None:
        self.epoch = _int(value.get("epoch"))
        self._write("epoch_start", None, meta["time_ms"], meta, START, self._epoch_meta())

    def _on_epoch_end(self, value: Mapping[str, Any], meta: Mapping[str, Any]) -> None:
        extra = {**self._epoch_meta(), **self._samples(value)}
        self._write("epoch_stop", None, meta["time_ms"], meta, END, extra)

    def _on_evaluate(self, value: Mapping[str, Any], meta: Mapping[str, Any]) -> None:
        epoch = _int(value.get("epoch"))
        extra = {"epoch_num": epoch if epoch is not None else self.epoch,
                 **self._samples(value), "metric": value.get("name")}
        self._write("eval_accuracy", value.get("value"), meta["time_ms"], meta, POINT, extra)

    def _on_finished(self, value: Mapping[str, Any], meta: Mapping[str, Any]) -> None:
        # MLPerf's BERT reference logs train_samples as the samples trained, at the end.
        if not self.train_samples_written and value.get("work_unit") == "samples":
            self._write("train_samples", value.get("work_done"), meta["time_ms"], meta)
        status = "success" if value.get("converged") is True else "aborted"
        self._write("run_stop", None, meta["time_ms"], meta, END, {"status": status})

    # ------------------------------------------------------------ helpers

    def _epoch_meta(self) -> dict[str, Any]:
        return {} if self.epoch is None else {"epoch_num": self.epoch}

    def _samples(self, value: Mapping[str, Any]) -> dict[str, Any]:
        """samples_count: optimizer steps so far times the global batch, where both are known."""
        step = _int(value.get("step"))
        if step is None or self.global_batch_size is None:
            return {}
        return {"samples_count": step * self.global_batch_size}

    def _write(self, key: str, value: Any, time_ms: int, where: Mapping[str, Any],
               event_type: str = POINT, extra: Mapping[str, Any] | None = None) -> None:
        metadata = {"file": Path(str(where.get("file"))).name, "lineno": where.get("lineno"),
                    **(extra or {})}
        self.writer.write(key, value, time_ms, metadata, event_type)


def benchmark_name(model: str) -> str:
    """MLPerf's name for ``model`` where MLPerf has the benchmark, else chipperf's."""
    return BENCHMARKS.get(model, model)


def submission(submit_info: Mapping[str, Any], environ: Mapping[str, str]) -> dict[str, Any]:
    """The submission_* keys: always the open division (chipperf's presets and configs are not
    the closed division's), status "research" (not a claim that the system is available)."""
    vendor = str(submit_info.get("vendor") or "unknown")
    config = submit_info.get("config_file")
    topology = Path(str(config)).stem.removeprefix("config_") if config else "default"
    return {
        "submission_benchmark": benchmark_name(str(submit_info.get("model"))),
        "submission_org": environ.get(ORG_ENV) or "chipperf",
        "submission_division": "open",
        "submission_status": "research",
        "submission_platform": environ.get(PLATFORM_ENV) or f"{vendor}:{topology}",
    }


def hyperparameters(config: Mapping[str, Any]) -> dict[str, Any]:
    """MLPerf hyperparameter keys from the case's config. gradient_accumulation_steps is 1
    when the config has neither it nor a micro-batch size (one batch per optimizer step);
    with a micro-batch size the data-parallel width decides it, which SUBMIT_INFO does not
    carry, so it is left out."""
    out = {}
    for key, names in HYPERPARAMETERS.items():
        found = _first(config, names)
        if found is not None:
            out[key] = found
    if "gradient_accumulation_steps" not in out and "micro_batch_size" not in config:
        out["gradient_accumulation_steps"] = 1
    return out


def _first(values: Mapping[str, Any], names: tuple[str, ...]) -> Any:
    return next((values[n] for n in names if values.get(n) is not None), None)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
