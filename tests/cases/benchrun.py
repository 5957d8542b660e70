"""Running base/ and operation/ benchmark programs on this host as chipperf does (cpu vendor)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Mapping

from caserun import LAUNCH_VARS, free_port

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from chipperf_runtime.perflog import Event, parse_lines  # noqa: E402


def suite_env(suite: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in LAUNCH_VARS}
    env.update(PYTHONPATH=f"{REPO}:{REPO / suite / 'benchmarks'}", CHIPPERF_VENDOR="cpu",
               CHIPPERF_DEVICE="cpu", **extra)
    return env


def entry(suite: str, name: str) -> Path:
    return REPO / suite / "benchmarks" / name / "pytorch" / "main.py"


def config_args(suite: str) -> list[str]:
    return ["--extern_config_dir", str(REPO / suite / "configs" / "vendor_config"),
            "--extern_config_file", "cpu_configuration.yaml"]


def run(suite: str, name: str, *args: str, env: Mapping[str, str] | None = None,
        timeout: int = 300) -> subprocess.CompletedProcess:
    """One rank of ``name`` with the cpu vendor config."""
    return subprocess.run([sys.executable, str(entry(suite, name)), *config_args(suite), *args],
                          env=dict(env or suite_env(suite)), capture_output=True, text=True,
                          timeout=timeout)


def run_ranks(name: str, nproc: int, nnodes: int = 1, timeout: int = 300) -> list[str]:
    """``name`` under torchrun: nnodes launchers on this host, nproc ranks each; the
    outputs of every launcher (rank 0's PerfLog is in the first)."""
    port = free_port()
    procs = []
    for node in range(nnodes):
        cmd = [sys.executable, "-m", "torch.distributed.run", f"--nnodes={nnodes}",
               f"--nproc_per_node={nproc}", f"--node_rank={node}", "--master_addr=127.0.0.1",
               f"--master_port={port}", str(entry("base", name)), *config_args("base")]
        env = suite_env("base", NNODES=str(nnodes), NPROC_PER_NODE=str(nproc))
        procs.append(subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, text=True))
    outs = [p.communicate(timeout=timeout)[0] for p in procs]
    assert [p.returncode for p in procs] == [0] * nnodes, outs
    return outs


def finished(output: str) -> Mapping[str, Any]:
    events, problems = parse_lines(output.splitlines())
    assert problems == []
    names = [e.name for e in events]
    assert names == ["INIT_START", "SUBMIT_INFO", "INIT_END", "TRAIN_START", "TRAIN_END",
                     "FINISHED"], names
    return _last(events)


def _last(events: list[Event]) -> Mapping[str, Any]:
    return events[-1].value
