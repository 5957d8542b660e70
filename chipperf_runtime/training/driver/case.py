"""``Driver``: one object a training case holds from process start to FINISHED.

    driver = Driver.start("resnet50", Path(__file__).parent)    # INIT_START, args, config, SUBMIT_INFO
    cfg, dist = driver.config, driver.dist
    ... build model, data ...
    driver.init_end()
    driver.train_start()
    for epoch in ...:
        driver.epoch_begin(epoch)
        for step ...:
            with driver.compute():                               # forward + backward + step
                ...
            driver.step_end(global_step, loss=...)
        with driver.evaluation():
            acc = ...
        driver.evaluate(epoch, Metric("top1", acc, cfg.target_accuracy))
        driver.epoch_end(epoch)
    driver.train_end()
    driver.finish(work_done=..., work_unit="samples", metric=..., flops_per_unit=...,
                  dtype="fp32", peak_memory_bytes=None)

On an accelerator call ``driver.set_sync(device.synchronize)`` (the device layer's, for any
framework) once the device is chosen: every clock reading then waits for queued work.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, TextIO

from chipperf_runtime.codeversion import code_digest
from chipperf_runtime.timing import Clock
from chipperf_runtime.training.driver.adapter import Adapter, load_adapter, vendor_env
from chipperf_runtime.training.driver.args import CaseArgs, parse_args
from chipperf_runtime.training.driver.config import (
    DERIVED_NAME,
    IMPLEMENTATION_ENV,
    NO_EFFECT_NAME,
    Config,
    load_case_config,
    read_aliases,
)
from chipperf_runtime.training.driver.dist import DistEnv
from chipperf_runtime.training.driver.events import CaseLog
from chipperf_runtime.training.driver.finished import (
    Attention,
    Metric,
    build_finished,
    peak_rss_bytes,
)
from chipperf_runtime.training.driver.perfmode import (
    Mark,
    RunMode,
    StepWindow,
    performance_value,
    run_mode_from,
)
from chipperf_runtime.training.driver.preset import full_size_params, preset_record
from chipperf_runtime.training.driver.windows import Windows
from chipperf_runtime.workload import from_config as workload_from_config

DEFAULT_STEP_EVERY = 10
STEP_EVERY_PARAM = "log_every_steps"


DATASET_CARD = "dataset.json"
ROUND_ENV = "CHIPPERF_ROUND"                       # the engine's round number, from 1


def round_seed(config: Config, environ: Mapping[str, str]) -> int | None:
    """With ``seed_per_round``, the config's seed + round - 1; None when the config does not
    ask for it, has no integer seed, or the round is unknown (a run outside the engine)."""
    seed, number = config.get("seed"), environ.get(ROUND_ENV, "")
    if not config.get("seed_per_round") or not isinstance(seed, int) or not number.isdigit():
        return None
    return seed + int(number) - 1


def dataset_card(data_dir: Path) -> dict[str, Any] | None:
    """``<data_dir>/dataset.json`` as the data's writer left it (name, what it is, and
    ``smoke_test``: why its figures do not compare with the full-size workload), or None."""
    try:
        card = json.loads((Path(data_dir) / DATASET_CARD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return card if isinstance(card, dict) else None


class Driver:
    def __init__(self, model: str, args: CaseArgs, config: Config, dist: DistEnv,
                 windows: Windows, log: CaseLog, environ: Mapping[str, str]):
        self.model = model
        self.args = args
        self.config = config
        self.dist = dist
        self.windows = windows
        self.log = log
        self.vendor = environ.get("CHIPPERF_VENDOR", "unknown")
        self.case_key = environ.get("CHIPPERF_CASE")
        self.implementation = environ.get(IMPLEMENTATION_ENV, "")
        self.case_version: str | None = None       # driver.version.code_digest of the case
        self.run_mode: RunMode = run_mode_from(config)
        self.timed = StepWindow(self.run_mode)
        self.work_unit: str | None = None          # train_start(work_unit=...): for STEP_END
        self.parameters: Any = None                # init_end(parameters=...): for the preset
        self.full_params: int | None = None        # case.yaml full_size.params
        self.execution: dict[str, Any] = {}        # executed(...): how the model ran, for FINISHED
        self.adapter = Adapter()                   # the vendor's trainer adapter (training.driver.adapter)
        self.vendor_env = vendor_env(environ)       # the vendor's environment files' variables

    @classmethod
    def start(cls, model: str, case_dir: Path, argv: Sequence[str] | None = None,
              environ: Mapping[str, str] | None = None, clock: Clock | None = None,
              stream: TextIO | None = None, all_ranks: bool = False) -> Driver:
        """Parse the launch contract, load the layered config, emit INIT_START + SUBMIT_INFO.

        Raises ``CaseError`` (bad arguments, config or environment) before anything trains."""
        env = os.environ if environ is None else environ
        windows = Windows(clock) if clock is not None else Windows()
        dist = DistEnv.from_env(env)
        log = CaseLog(dist.rank, all_ranks=all_ranks, stream=stream)
        log.emit("INIT_START", {"model": model})
        args = parse_args(argv)
        config = load_case_config(Path(case_dir) / "config", args.vendor_config, args.overrides)
        seeded = round_seed(config, env)
        if seeded is not None:                     # seed_per_round: this round's seed
            config = load_case_config(Path(case_dir) / "config", args.vendor_config,
                                      {**args.overrides, "seed": seeded})
        log.step_every = max(1, int(config.get(STEP_EVERY_PARAM, DEFAULT_STEP_EVERY)))
        driver = cls(model, args, config, dist, windows, log, env)
        driver.case_version = code_digest(Path(case_dir))
        driver.full_params = full_size_params(Path(case_dir))
        driver.adapter = load_adapter(args.extern_config_dir)
        driver.submit_info()
        return driver

    # ------------------------------------------------------------ events

    def submit_info(self) -> None:
        self.log.emit("SUBMIT_INFO", {
            "vendor": self.vendor, "model": self.model, "case": self.case_key,
            **({"implementation": self.implementation} if self.implementation else {}),
            "case_version": self.case_version,
            "flagperf_aliases": read_aliases(self.args.vendor_config),
            "flagperf_derived": read_aliases(self.args.vendor_config, DERIVED_NAME),
            "flagperf_no_effect": read_aliases(self.args.vendor_config, NO_EFFECT_NAME),
            "config_file": None if self.args.vendor_config is None else str(self.args.vendor_config),
            "config": self.config.as_dict(),
            "workload": workload_from_config(self.config.as_dict()).as_dict(),
            "config_sources": {k: self.config.source(k) for k in self.config},
            "world_size": self.dist.world_size, "nnodes": self.dist.nnodes,
            "nproc_per_node": self.dist.nproc_per_node,
            "dataset": dataset_card(self.args.data_dir),
            "vendor_env": self.vendor_env, "trainer_adapter": self.adapter.describe(),
        })

    def executed(self, **facts: Any) -> None:
        """Record how the model runs (e.g. ``compile="torch.compile(inductor, mode=default)"``,
        ``attention="sdpa"``, ``fused_optimizer=True``): FINISHED carries them as
        ``execution``, beside SUBMIT_INFO's config (what was asked)."""
        self.execution.update(facts)

    def init_end(self, **value: Any) -> None:
        self.parameters = value.get("parameters")
        self.log.emit("INIT_END", value)

    def train_start(self, **value: Any) -> None:
        self.windows.train_start()
        self.work_unit = value.get("work_unit", self.work_unit)
        if self.timed.wants(0):                    # no warm-up: the timed window opens here
            self.timed.mark(self._mark(0, 0.0))
        self.log.emit("TRAIN_START", {**value, "run_mode": self.run_mode.as_dict()})

    def epoch_begin(self, epoch: int, **value: Any) -> None:
        self.log.emit("EPOCH_BEGIN", {"epoch": epoch, **value})

    def epoch_end(self, epoch: int, **value: Any) -> None:
        self.log.emit("EPOCH_END", {"epoch": epoch, **value})

    def step_end(self, step: int, work: float | None = None, **value: Any) -> None:
        """STEP_END every ``log_every_steps`` steps. ``work``: samples or tokens this rank has
        trained since train_start; the event then carries ``throughput_so_far`` (this rank's
        pace times the world size, per second of the train window so far, unsynchronised): a
        progress figure for the console, results come from FINISHED. It also carries
        ``work_so_far`` (all ranks, estimated as this rank's times the world size),
        ``train_elapsed_s`` and ``warmup_steps``, from which the engine computes the
        throughput of a round its deadline cut (chipperf/results/compute/cut.py)."""
        if step % self.log.step_every:
            return
        elapsed = self.windows.train_elapsed()
        if work is not None and elapsed:
            value = {**value, "throughput_so_far": work * self.dist.world_size / elapsed,
                     "work_so_far": work * self.dist.world_size, "train_elapsed_s": elapsed,
                     "warmup_steps": self.run_mode.warmup_steps}
            if self.work_unit is not None:
                value["work_unit"] = self.work_unit
        self.log.step_end(step, value)

    def step_done(self, step: int, work: float) -> bool:
        """Call after every optimizer step (``work``: this rank's samples or tokens since
        train_start). Marks the performance-mode timed window (a synced clock reading at its
        two edges only); True when a performance run has made all its steps: stop training."""
        if self.timed.wants(step):
            self.timed.mark(self._mark(step, work))
        return self.timed.done

    def stop_after(self, max_steps: int | None) -> int | None:
        """The step count a loop stops at: the performance run's warm-up + timed steps, else
        the config's ``max_steps``."""
        return self.run_mode.total_steps or max_steps

    def _mark(self, step: int, work: float) -> Mark:
        return Mark(step, work, self.windows.now(), self.windows.compute)

    def evaluate(self, epoch: int, metric: Metric, **value: Any) -> None:
        self.log.emit("EVALUATE", {"epoch": epoch, **metric.as_dict(),
                                   "reached": metric.reached(), **value})

    def train_end(self, **value: Any) -> None:
        self.windows.train_end()
        self.log.emit("TRAIN_END", value)

    # ------------------------------------------------------------ timed regions

    def set_sync(self, sync: Callable[[], None] | None) -> None:
        self.windows.sync = sync

    @contextmanager
    def compute(self) -> Iterator[None]:
        with self.windows.computing():
            yield

    @contextmanager
    def evaluation(self) -> Iterator[None]:
        self.log.eval_window(start=True)           # MLPerf's eval_start / eval_stop
        with self.windows.evaluating():
            yield
        self.log.eval_window(start=False)

    # ------------------------------------------------------------ the end

    def next_stage(self) -> None:
        """Begin a further training stage in this process (llava1.5_7b's pretrain, then its
        finetune): a fresh train window, compute time and performance-mode step window, each
        stage measured by ``finished_value``; e2e goes on from the process start."""
        self.windows = self.windows.fresh()
        self.timed = StepWindow(self.run_mode)

    def finish(self, *, work_done: int, work_unit: str, metric: Metric, flops_per_unit: float,
               dtype: str, peak_memory_bytes: int | None,
               parameters: Mapping[str, int] | None = None,
               attention: Attention | None = None) -> dict[str, Any]:
        """Build (on every rank) and emit (rank 0) FINISHED. ``work_done``: all ranks together;
        ``parameters``: the model's {"trainable", "total"} counts where the case tells them
        (a fine-tuning case trains a small part); ``attention``: the attention part of
        ``flops_per_unit`` and whether it is causal, where the case counts it."""
        return self.emit_finished(self.finished_value(
            work_done=work_done, work_unit=work_unit, metric=metric,
            flops_per_unit=flops_per_unit, dtype=dtype, peak_memory_bytes=peak_memory_bytes,
            parameters=parameters, attention=attention))

    def emit_finished(self, value: dict[str, Any]) -> dict[str, Any]:
        self.log.emit("FINISHED", value)
        return value

    def finished_value(self, *, work_done: int, work_unit: str, metric: Metric,
                       flops_per_unit: float, dtype: str, peak_memory_bytes: int | None,
                       parameters: Mapping[str, int] | None = None,
                       attention: Attention | None = None) -> dict[str, Any]:
        """FINISHED's value of the training so far (since ``next_stage``), not emitted."""
        value = build_finished(self.windows.times(), work_done=work_done, work_unit=work_unit,
                               metric=metric, flops_per_unit=flops_per_unit, dtype=dtype,
                               world_size=self.dist.world_size,
                               peak_memory_bytes=peak_memory_bytes, attention=attention)
        value["peak_rss_bytes"] = peak_rss_bytes()     # host memory: a sweep's figure on a cpu
        if self.run_mode.performance:
            value = performance_value(value, self.timed, self.dist.world_size)
        else:
            value["run_mode"] = self.run_mode.as_dict()
        if "data_mode" in self.config:             # "real", "predecoded", or "synthetic": compute only
            value["data_mode"] = str(self.config.data_mode)
        if parameters is not None:
            value["parameters"] = {k: int(parameters[k]) for k in ("trainable", "total")}
        # the adapter's hooks that ran so far (the step hooks run in the loop, after the build)
        ran = {"adapter_hooks": list(self.adapter.used)} if self.adapter.path else {}
        if self.execution or ran:
            value["execution"] = {**self.execution, **ran}
        preset = preset_record(self.config, self.parameters, self.full_params)
        if preset is not None:                     # a smaller model than the case's name
            value["preset"] = preset
        return value
