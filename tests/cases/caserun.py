"""Running a training case's entry on this host the way chipperf does, for tests/cases/.

``Case`` knows a standard case's folder, entry script and cpu vendor configs, and runs the
entry as one rank (``run``, ``run_config``) or builds the LaunchContext chipperf's launchers
take (``context``); ``case_env`` is the launch contract's environment on a cpu host. Then the
checks every converged run (``check_converged``) and every rejected input
(``assert_case_error``) must pass.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

REPO = Path(__file__).resolve().parents[2]
BENCHMARKS = REPO / "training" / "benchmarks"
IMAGE_SITE = REPO / "tests" / "imagesite"     # the cpu image's packages (its sitecustomize.py)
for _path in (str(BENCHMARKS), str(REPO)):   # driver, textlm (as the case sees them); chipperf
    if _path not in sys.path:
        sys.path.insert(0, _path)

from chipperf.config.adaptation import read_adaptation  # noqa: E402
from chipperf.launchers.base import LaunchContext  # noqa: E402
from chipperf_runtime.perflog import Event, finished_problems, parse_lines  # noqa: E402

# What a launcher sets per node or rank: never inherited from the test's own environment.
LAUNCH_VARS = ("RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "NNODES", "NODE_RANK",
               "NPROC_PER_NODE", "MASTER_ADDR", "MASTER_PORT", "TF_CONFIG")
SMALLEST_CONFIG = "config_xeonx1x1.py"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def case_env(**extra: str) -> dict[str, str]:
    """This process's environment as a case sees it on a cpu host, plus ``extra``; without
    the test venv's scikit-learn, as in the cpu images (tests/imagesite/sitecustomize.py)."""
    env = {k: v for k, v in os.environ.items()
           if k not in LAUNCH_VARS and not k.startswith("PADDLE_")}
    env["PYTHONPATH"] = f"{REPO}:{BENCHMARKS}:{IMAGE_SITE}"
    env["CHIPPERF_VENDOR"] = "cpu"
    env["CHIPPERF_DEVICE"] = "cpu"
    return {**env, **extra}


def contract_args(data_dir: Path, config_dir: Path, config_file: str,
                  output_dir: Path | None = None) -> list[str]:
    """--data_dir --extern_config_dir --extern_config_file [--output_dir]."""
    args = ["--data_dir", str(data_dir), "--extern_config_dir", str(config_dir),
            "--extern_config_file", config_file]
    return args + (["--output_dir", str(output_dir)] if output_dir is not None else [])


@dataclass(frozen=True)
class Case:
    """A standard training case (``training/benchmarks/<model>/<family>``) and the variables
    its framework needs on a cpu host (``DS_ACCELERATOR=cpu`` for DeepSpeed)."""

    model: str
    family: str
    cpu_env: Mapping[str, str] = field(default_factory=dict)

    @property
    def dir(self) -> Path:
        return BENCHMARKS / self.model / self.family

    @property
    def entry(self) -> Path:
        return self.dir / "run_pretraining.py"

    @property
    def cpu_configs(self) -> Path:
        return self.configs("cpu")

    def configs(self, vendor: str) -> Path:
        """The vendor case's config folder (training/<vendor>/<model>-<family>/config)."""
        return REPO / "training" / vendor / f"{self.model}-{self.family}" / "config"

    def env(self, **extra: str) -> dict[str, str]:
        """``case_env`` with the cpu vendor's adaptation of the case (its
        environment_variables.sh files, read as the engine reads them) and ``cpu_env``."""
        return case_env(**{**self.cpu_adaptation_env(), **self.cpu_env, **extra})

    def cpu_adaptation_env(self) -> dict[str, str]:
        """What the engine puts into the cpu vendor's container for this case."""
        where = f"cpu {self.model}-{self.family}"
        adaptation = read_adaptation(REPO / "training" / "cpu", self.cpu_configs.parent, where,
                                     honoured=None)
        assert not adaptation.problems, adaptation.problems
        return adaptation.container_env()

    def context(self, data_dir: Path, config_file: str, out_dir: Path, nproc: int, *,
                nnodes: int = 1, node_rank: int = 0,
                master_port: int | None = None) -> LaunchContext:
        """One node's launch of a cpu config on this host (every node at 127.0.0.1)."""
        return LaunchContext(
            nnodes=nnodes, node_rank=node_rank, nproc_per_node=nproc, master_addr="127.0.0.1",
            master_port=master_port or free_port(), node_addr="127.0.0.1",
            hosts=("127.0.0.1",) * nnodes, entry=str(self.entry),
            case_args=tuple(contract_args(data_dir, self.cpu_configs, config_file, out_dir)),
            output_dir=str(out_dir), python=sys.executable)

    def run(self, *argv: str, env: dict[str, str] | None = None,
            timeout: int = 300) -> subprocess.CompletedProcess:
        """``python3 run_pretraining.py argv...`` as one rank, without a launcher."""
        return subprocess.run([sys.executable, str(self.entry), *argv],
                              env=env or self.env(), capture_output=True, text=True,
                              timeout=timeout)

    def run_config(self, data_dir: Path, *extra: str, config_dir: Path | None = None,
                   config_file: str = SMALLEST_CONFIG,
                   env: dict[str, str] | None = None,
                   timeout: int = 300) -> subprocess.CompletedProcess:
        """One rank with a vendor config (default: the case's smallest cpu one)."""
        args = contract_args(data_dir, config_dir or self.cpu_configs, config_file)
        return self.run(*args, *extra, env=env, timeout=timeout)


def rank_logs(out_dir: Path) -> dict[int, str]:
    return {int(p.name[4:-8]): p.read_text() for p in out_dir.glob("rank*.out.log")}


def assert_case_error(result: subprocess.CompletedProcess, *phrases: str) -> None:
    """Stopped before training with exit status 2, one message holding every phrase."""
    assert result.returncode == 2, result.stderr[-3000:]
    for phrase in phrases:
        assert phrase in result.stderr, result.stderr[-3000:]
    assert "TRAIN_START" not in result.stdout and "Traceback" not in result.stderr


def perflog_events(log: str) -> list[Event]:
    events, problems = parse_lines(log.splitlines())
    assert problems == []
    return events


def check_converged(events: list[Event]) -> Mapping[str, Any]:
    """The lifecycle of a converged run and its FINISHED (returned): valid schema, target
    reached, windows nested as they must be. Prints the figures a reader compares."""
    names = [e.name for e in events]
    assert names[:4] == ["INIT_START", "SUBMIT_INFO", "INIT_END", "TRAIN_START"]
    assert names[-2:] == ["TRAIN_END", "FINISHED"] and "EVALUATE" in names
    finished = events[-1].value
    assert finished_problems(finished) == []
    assert finished["converged"] is True, finished
    metric = finished["metric"]
    assert metric["value"] >= metric["target"] if metric["higher_is_better"] else \
        metric["value"] <= metric["target"]
    assert 0 < finished["pure_compute_time_s"] < finished["train_no_eval_time_s"] \
        <= finished["train_time_s"] < finished["e2e_time_s"]
    print(summary(events))
    return finished


def init_end(events: list[Event]) -> Mapping[str, Any]:
    return next(e.value for e in events if e.name == "INIT_END")


def summary(events: list[Event]) -> str:
    """One line: the evaluations (step: value) and FINISHED's metric, work and times."""
    evaluations = [e.value for e in events if e.name == "EVALUATE"]
    f = events[-1].value
    return (f"evaluations {[(e.get('step'), e['value']) for e in evaluations]}; FINISHED "
            f"converged={f['converged']} {f['metric']['name']}={f['metric']['value']} "
            f"work_done={f['work_done']} {f['work_unit']} train_time_s={f['train_time_s']:.1f}")
