"""The selftest's engine side: its state (``Selftest``), each step as one `chipperf run` of
the shipped configs in in-container mode on this host (``engine_run``), the data it reads
(``prepared``) and its summary turned into verdict rows (``case_rows``). Both the common steps
(``selftest``) and the accelerator ones (``selftest_accel``) run through it."""

from __future__ import annotations

import json
import os
import socket
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from chipperf.commands.selftest_data import make_images, make_prompts
from chipperf.commands.selftest_verdict import HEADLINE_ROUNDS, Row, headline
from chipperf.plan import device_env
from chipperf.suites import get_suite
from chipperf.suites.suite import REPO  # the case roots' folder: the checkout, or a plain install's copy

RUNTIME_HOME = Path(__file__).resolve().parents[2]   # the folder holding chipperf_runtime
ROUND_FLOOR_S = 20.0          # the shortest round deadline (a case's torch import and window)
DATA = {"training": "images", "inference": "images", "serving": "llm-prompts", "gpt2": "gpt2",
        "llama1b": "llama1b", "serving32": "llm-prompts"}
WARMUP_STEPS, TRAINING_STEPS = 3, 12   # the training step's performance mode
GPT2_STEPS = {"run_mode": "performance", "perf_warmup_steps": 10, "timed_steps": 50}
LLAMA_STEPS = {"run_mode": "performance", "perf_warmup_steps": 5, "timed_steps": 15}
TIMED_STEPS = {"training": TRAINING_STEPS, "gpt2": GPT2_STEPS["timed_steps"],
               "llama1b": LLAMA_STEPS["timed_steps"]}    # the training-kind steps
# the engine's units -> the table's (base/ reports FLOP/s and bytes/s)
SCALE = {"FLOP/s": (1e12, "TFLOP/s"), "OP/s": (1e12, "TOPS"), "bytes/s": (1e9, "GB/s")}


@dataclass
class Selftest:
    vendor: str
    chip: str
    budget_s: float
    root: Path
    data_root: Path
    # `chipperf <argv>` in this process, exit code back (chipperf.cli.main, handed in by the CLI)
    command: Callable[[Sequence[str]], int]
    data_problem: str | None = None   # why the data sets could not be made
    started: float = field(default_factory=time.monotonic)
    rows: list[Row] = field(default_factory=list)
    runs: dict[str, str] = field(default_factory=dict)
    facts: dict[str, Any] = field(default_factory=dict)
    loads: dict[str, dict[str, Any]] = field(default_factory=dict)   # step -> host_load() before it
    warnings: list[str] = field(default_factory=list)
    share_s: float = 0.0              # what the running step's rounds may take (rounds_for)

    def left(self) -> float:
        return self.budget_s - (time.monotonic() - self.started)


def prepared(test: Selftest, step: str) -> Path:
    """The step's data under the data root, made there by the selftest when missing
    (selftest_data); why it could not be made is kept for the table."""
    where = test.data_root / DATA[step]
    try:
        if DATA[step] == "images":
            return make_images(where)
        return make_prompts(where, REPO)
    except OSError as e:
        test.data_problem = str(e)
        return where



def engine_run(test: Selftest, step: str, cases: Mapping[str, str], suite: str | None = None,
               overrides: Mapping[str, Any] | None = None, rounds: int = 1) -> dict[str, Any] | None:
    """One `chipperf run` of ``cases`` in in-container mode on this host (``rounds`` each:
    the base suite's ``repeat``, the other suites' in the case key, which the caller writes:
    the rounds share the step's time, so each round's deadline is its part); its summary."""
    suite = suite or step
    folder = test.root / step
    folder.mkdir()
    # a deadline is per case and round: the step's cases (base/'s several) share its time
    per_round = (test.share_s or test.left()) / max(1, rounds) / max(1, len(cases))
    common = {"ROUND_TIMEOUT": int(max(ROUND_FLOOR_S, min(600, per_round))), "MONITOR_INTERVAL": 1,
              "IN_CONTAINER_LAUNCH": True, "SHM_SIZE": "1g"}
    where = {"HOSTS": ["127.0.0.1"], "MASTER_PORT": free_port(), "WORK_ROOT": str(folder / "work")}
    if not get_suite(suite).reads_host_yaml:
        (folder / "cluster.yaml").write_text(yaml.safe_dump(where))
        (folder / "test.yaml").write_text(yaml.safe_dump({
            "VENDOR": test.vendor, "CASES": dict(cases), "RESULT_ROOT": str(folder),
            "OVERRIDES": dict(overrides or {}), **common}))
        argv = ["run", "--cluster", str(folder / "cluster.yaml"), "--test", str(folder / "test.yaml")]
    else:
        # a spec suite's rounds are its host.yaml's repeat; the others' the case key's last field
        repeat = {"repeat": rounds} if get_suite(suite).measures_spec else {}
        (folder / "host.yaml").write_text(yaml.safe_dump({
            **where, "VENDOR": test.vendor, "CHIP": test.chip, "CASES": dict(cases),
            "FLAGPERF_LOG_PATH": str(folder), "OVERRIDES": dict(overrides or {}), **repeat,
            **common}))
        argv = ["run", "--suite", suite, "--host-config", str(folder / "host.yaml")]
    with python_on_path():
        rc = test.command([*argv, "--db", results_store(test.root)])
    runs = sorted(folder.glob("run*"))
    if not runs or not (runs[-1] / "summary.json").is_file():
        test.rows.append(Row(step, step, verdict=f"failed: chipperf run exited {rc} and wrote no "
                             f"summary (see {folder})"))
        return None
    test.runs[step] = str(runs[-1])
    summary = json.loads((runs[-1] / "summary.json").read_text())
    for case in summary.get("cases", []):
        name = case.get("model") or case.get("dir_name", "")
        case_rows(test, step, case, f"{name} ({case['preset']})" if case.get("preset") else name)
    return dict(summary)


def results_store(selftest_root: Path) -> str:
    """The store of the result root the selftest writes under (result/selftest<ts>/<step>/run*:
    that of result/), so that one store holds its steps and `chipperf history` and the
    leaderboard see them; RESULTS_DB wins as for any run."""
    from chipperf.store.db import default_url

    return default_url(selftest_root.parent)


def case_rows(test: Selftest, step: str, case: Mapping[str, Any], name: str) -> None:
    """The case's figures as verdict rows, added to the test: each the median of the rounds
    that counted (status succeeded), their spread beside it; a round that did not count gives
    no figure."""
    rounds = case.get("rounds") or [{}]
    counted = [r for r in rounds if r.get("status") == "succeeded"]
    if not counted:
        first = rounds[0]
        why = first.get("reason") or case.get("reason") or first.get("status") or case.get("status") \
            or "no result"
        if test.data_problem and step in DATA:
            why = f"{why} (its data could not be made: {test.data_problem})"
        verdict = f"unsupported: {why}" if "unsupported" in str(why).lower() else f"failed: {why}"
        test.rows.append(Row(step, name, verdict=verdict, rounds=f"0 of {len(rounds)}"))
        return
    per_round = [figures(step, name, r) for r in counted]
    missed = quality_missed(step, counted[0])
    for n, row in enumerate(per_round[0]):
        value, spread = _over_rounds(per_round, n, "value")
        test.rows.append(Row(
            row.step, row.figure, value, row.unit, _over_rounds(per_round, n, "reference")[0],
            _over_rounds(per_round, n, "ratio")[0], _over_rounds(per_round, n, "share_of_spec")[0],
            verdict=f"ok, {missed}" if missed else "ok", spread=spread,
            share_causal=_over_rounds(per_round, n, "share_causal")[0],
            rounds=f"{len(counted)} of {len(rounds)}" + (" (budget)" if len(rounds) < HEADLINE_ROUNDS
                                                         else "")))


def _over_rounds(per_round: Sequence[Sequence[Row]], n: int, name: str
                 ) -> tuple[float | None, float | None]:
    """Row ``n``'s field ``name`` over the counted rounds: their median and spread."""
    values = [v for rows in per_round if (v := getattr(rows[n], name)) is not None]
    return headline(values) if values else (None, None)


def quality_missed(step: str, first: Mapping[str, Any]) -> str:
    """An inference or serving round whose quality metric (agreement with the fp32 reference)
    missed its target: the figures stand, the verdict says so; '' otherwise."""
    metric = first.get("metric")
    if step not in ("inference", "serving") or first.get("converged") is not False \
            or not isinstance(metric, Mapping):
        return ""
    return (f"but {metric.get('name')} {metric.get('value'):.3g} missed its target "
            f"{metric.get('target'):g} (agreement with the fp32 reference)")


def figures(step: str, name: str, first: Mapping[str, Any]) -> list[Row]:
    """The round's figures: training its throughput over the timed steps, inference and
    serving the whole (FlagPerf's, pre/post-processing in) and core (device-resident batches)
    throughput, serving TTFT and TPOT, base/ its value beside the bare loop's."""
    throughput = first.get("throughput") or {}
    unit = throughput.get("unit") or ""
    scale, shown = SCALE.get(unit, (1.0, unit))
    share = first.get("share_of_peak") if step == "base" else first.get("mfu")
    engine = f", {first['engine']}" if first.get("engine") else ""
    if step == "base":
        reference = first.get("bare_value")   # already in the table's unit (TFLOP/s, GB/s)
        rows = [Row(step, name, _scaled(throughput.get("raw"), scale), shown,
                    reference if isinstance(reference, (int, float)) else None,
                    first.get("bare_ratio"), share)]
    elif step in TIMED_STEPS:
        rows = [Row(step, f"{name} throughput ({TIMED_STEPS[step]} timed steps)",
                    _scaled(throughput.get("raw"), scale), shown, share_of_spec=share,
                    share_causal=first.get("mfu_causal"))]
    else:
        rows = [Row(step, f"{name} whole throughput{engine}", _scaled(throughput.get("raw"), scale),
                    shown, share_of_spec=share),
                Row(step, f"{name} core throughput{engine}",
                    _scaled(throughput.get("pure_compute"), scale), shown)]
    for scenario, figs in sorted((first.get("serving") or {}).items()):
        for figure in ("ttft_ms", "tpot_ms"):
            p50 = (figs.get(figure) or {}).get("p50") if isinstance(figs, Mapping) else None
            if p50 is not None:
                rows.append(Row(step, f"{name} {scenario} {figure[:-3].upper()} p50", p50, "ms"))
    return rows


def _scaled(value: Any, scale: float) -> float | None:
    return float(value) / scale if isinstance(value, (int, float)) else None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def python_on_path() -> Iterator[None]:
    """In-container mode starts ``python3`` from PATH: make it this python for the run."""
    saved = os.environ.get("PATH", "")
    os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{saved}"
    try:
        yield
    finally:
        os.environ["PATH"] = saved


def runtime_env(vendor: str) -> dict[str, str]:
    """This environment with the runtime importable and the vendor's device named, as plan
    gives a case (chipperf.plan.device_env)."""
    return {**os.environ, "PYTHONPATH": str(RUNTIME_HOME), **device_env(vendor)}
