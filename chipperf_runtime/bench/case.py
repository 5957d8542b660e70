"""One benchmark process of the base/ or operation/ suite.

    case = BenchCase("base", "computation-FP32")      # reads the contract arguments
    case.start()                                      # INIT_START, SUBMIT_INFO
    ... open the device, build inputs, warm up ...
    case.ready(device_facts)                          # INIT_END
    with case.window():                               # TRAIN_START .. TRAIN_END: the timed
        ...                                           # window power and energy cover
    case.finish(result)                               # FINISHED (rank 0)

``run_bench(build, body)`` maps a ``BenchError`` (bad input) to ``chipperf case error: ...``
and exit 2, a ``WrongResult`` (an operator failing its correctness check) to exit 4, and
``Unsupported`` (the device lacks the dtype or the link) to a FINISHED that says so, the same
error line with ``unsupported:`` and exit 3: a measurement the device cannot make is reported
with its reason, never as 0.

FINISHED (docs/base-and-operation.md) carries the suite's own keys (``spec`` or
``operator``, ``value``, ``unit``, ``method``, ``spec_peak``, ``share_of_peak``) and the
engine's common ones, so summary, report, power and energy work unchanged: the timed
window is ``train_time_s``, ``work_done`` counts FLOPs or bytes, ``throughput`` is per
second of the window.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, NoReturn, Optional

from chipperf_runtime.codeversion import script_digest
from chipperf_runtime.perflog import PerfLogger

EXIT_BAD_INPUT, EXIT_UNSUPPORTED, EXIT_WRONG = 2, 3, 4


class BenchError(Exception):
    """Bad input: a name, a setting or a topology the benchmark cannot run with."""


class WrongResult(Exception):
    """The measured operation computed a wrong result (after its FINISHED said so)."""


class Unsupported(Exception):
    """The device cannot make this measurement (a dtype or link it lacks); str() says why."""


def contract_parser(description: str = "") -> argparse.ArgumentParser:
    """The launch contract's arguments (all optional, so a benchmark runs by hand too)."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--data_dir", default="")
    p.add_argument("--extern_config_dir", default="")
    p.add_argument("--extern_config_file", default="")
    p.add_argument("--output_dir", default="")
    p.add_argument("--chip", default="", help="chip for the spec sheet (default: the case key's)")
    return p


def key_chip(environ: Mapping[str, str]) -> str:
    """The chip part of CHIPPERF_CASE (model:framework:chip:...), else the vendor's name."""
    parts = environ.get("CHIPPERF_CASE", "").split(":")
    return parts[2] if len(parts) >= 3 and parts[2] else environ.get("CHIPPERF_VENDOR", "cpu")


def read_settings(config_dir: str, config_file: str, name: str) -> dict[str, Any]:
    """The vendor config's ``defaults`` with the ``name`` section over them ({} without one)."""
    if not config_file:
        return {}
    path = os.path.join(config_dir, config_file)
    if not os.path.isfile(path):
        raise BenchError(f"vendor config {path} does not exist: give an existing "
                         "--extern_config_dir/--extern_config_file")
    import yaml

    with open(path, encoding="utf-8") as f:
        data = yaml.safe_load(f) or {}
    if not isinstance(data, dict):
        raise BenchError(f"{path}: the top level must be a mapping of sections")
    merged: dict[str, Any] = {}
    for section in ("defaults", name.split("-", 1)[0], name):
        part = data.get(section) or {}
        if not isinstance(part, dict):
            raise BenchError(f"{path}: {section}: must be a mapping of settings")
        merged.update(part)
    return merged


class BenchCase:
    """Identity, settings and PerfLog lifecycle of one benchmark process."""

    def __init__(self, suite: str, name: str, args: argparse.Namespace,
                 environ: Mapping[str, str] | None = None, method: str = ""):
        env = os.environ if environ is None else environ
        self.suite, self.name, self.args = suite, name, args
        self.method = method          # base/: "benchmark" or "toolkit" (FlagPerf's two methods)
        self.rank = int(env.get("RANK", "0"))
        self.local_rank = int(env.get("LOCAL_RANK", "0"))
        self.world_size = int(env.get("WORLD_SIZE", "1"))
        self.local_world_size = int(env.get("LOCAL_WORLD_SIZE", env.get("NPROC_PER_NODE", "1")))
        self.vendor = env.get("CHIPPERF_VENDOR", "cpu")
        self.chip = args.chip or key_chip(env)
        self.settings = read_settings(args.extern_config_dir, args.extern_config_file, name)
        self.log = PerfLogger(rank=self.rank, skip_modules=("chipperf", "contextlib"))
        self.started = time.perf_counter()
        self.window_s: Optional[float] = None

    def setting(self, key: str, default: Any, kind: Callable[[Any], Any] = int) -> Any:
        value = self.settings.get(key, default)
        try:
            return kind(value)
        except (TypeError, ValueError) as exc:
            raise BenchError(f"{self.name}: setting {key}={value!r} is not valid ({exc})") from exc

    def emit(self, event: str, value: Mapping[str, Any] | None = None) -> None:
        if self.rank == 0:
            self.log.event(event, value)

    def start(self) -> None:
        self.emit("INIT_START")
        self.emit("SUBMIT_INFO", {"vendor": self.vendor, "model": self.name, "suite": self.suite,
                                  "chip": self.chip, "config": dict(self.settings),
                                  "case_version": script_digest(),
                                  **({"method": self.method} if self.method else {})})

    def ready(self, facts: Mapping[str, Any]) -> None:
        self.emit("INIT_END", dict(facts))

    @contextmanager
    def window(self, sync: Callable[[], None]) -> Iterator[None]:
        sync()
        self.emit("TRAIN_START")
        start = time.perf_counter()
        yield
        sync()
        self.window_s = time.perf_counter() - start
        self.emit("TRAIN_END", {"window_s": self.window_s})

    def finish(self, result: Mapping[str, Any]) -> None:
        self.emit("FINISHED", {"e2e_time_s": time.perf_counter() - self.started,
                               "suite": self.suite, "world_size": self.world_size,
                               **result})

    def unsupported(self, reason: str) -> None:
        self.emit("FINISHED", {"e2e_time_s": time.perf_counter() - self.started,
                               "suite": self.suite, "case": self.name, "unsupported": reason,
                               "converged": False, "world_size": self.world_size})


def is_out_of_memory(exc: BaseException) -> bool:
    """An allocation that did not fit: ``torch.OutOfMemoryError``, or the RuntimeError that a
    vendor plug-in's allocator raises instead ("NPU out of memory", "MLU out of memory", ...)."""
    return type(exc).__name__ == "OutOfMemoryError" or (
        isinstance(exc, RuntimeError) and "out of memory" in str(exc).lower())


def common_finished(value: float, unit: str, work: float, work_unit: str, window_s: float,
                    dtype: str, flops_per_unit: float, peak_memory: Optional[int]
                    ) -> dict[str, Any]:
    """The engine's common FINISHED keys for one measured figure over one timed window."""
    rate = work / window_s if window_s > 0 else 0.0
    return {
        "value": value, "unit": unit,
        "train_time_s": window_s, "train_no_eval_time_s": window_s,
        "pure_compute_time_s": window_s,
        "work_unit": work_unit, "work_done": int(work),
        "throughput": {"raw": rate, "no_eval": rate, "pure_compute": rate,
                       "unit": f"{work_unit}/s"},
        "metric": {"name": unit, "value": value, "target": None, "higher_is_better": True},
        "flops_per_unit": flops_per_unit, "dtype": dtype, "peak_memory_bytes": peak_memory,
    }


def run_bench(build: Callable[[], BenchCase], body: Callable[[BenchCase], None]) -> NoReturn:
    """``body(build())``: bad input exits 2, an unsupported measurement exits 3 after a
    FINISHED that says so, both with one ``chipperf case error:`` line on stderr (anything
    else is a bug, reported by its traceback)."""
    case: Optional[BenchCase] = None
    try:
        case = build()
        case.start()
        body(case)
    except BenchError as exc:
        _stop(f"{exc}", EXIT_BAD_INPUT)
    except WrongResult as exc:
        _stop(f"wrong result: {exc}", EXIT_WRONG)
    except Unsupported as exc:
        if case is not None:
            case.unsupported(str(exc))
        _stop(f"unsupported: {exc}", EXIT_UNSUPPORTED)
    sys.stdout.flush()
    sys.exit(0)


def _stop(message: str, status: int) -> NoReturn:
    sys.stdout.flush()
    print(f"chipperf case error: {message}", file=sys.stderr, flush=True)
    sys.exit(status)
