"""Paddle launcher: argv, and the real ``paddle.distributed.launch`` on this CPU host running
two ranks of a stdlib-only script (rank logs through rankexec, failure propagation).

Needs paddlepaddle on the host (requirements-test.txt). Paddle runs in child processes only:
importing it into the pytest process next to TensorFlow crashes (see the case README)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from launchctx import launch_context

from chipperf.launchers import get_launcher, launcher_names
from chipperf.launchers import paddle as paddle_launcher
from chipperf.launchers.base import LaunchContext

REPO = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def context(tmp: Path, entry: str = "/w/code/benchmarks/bert/paddle/run_pretraining.py",
            nnodes: int = 1, node_rank: int = 0, nproc: int = 2,
            hosts: tuple[str, ...] = ("127.0.0.1",), port: int = 29500) -> LaunchContext:
    return launch_context(str(tmp), entry, nnodes=nnodes, node_rank=node_rank, nproc=nproc,
                          hosts=hosts, port=port, python=sys.executable)


def child_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PADDLE_")
           and k not in ("RANK", "LOCAL_RANK", "WORLD_SIZE")}
    env["PYTHONPATH"] = str(REPO)
    return env


def test_registered_as_a_launcher() -> None:
    assert "paddle" in launcher_names()
    assert get_launcher("paddle") is paddle_launcher


def test_command_is_paddle_launch_with_master_rank_and_no_restarts(tmp_path: Path) -> None:
    ctx = context(tmp_path, nnodes=2, node_rank=1, nproc=8, hosts=("10.0.0.1", "10.0.0.2"))
    argv = paddle_launcher.command(ctx)
    assert argv[:3] == [sys.executable, "-m", "paddle.distributed.launch"]
    options = argv[3:argv.index("--")]
    assert dict(zip(options[::2], options[1::2])) == {
        "--nnodes": "2", "--master": "10.0.0.1:29500", "--rank": "1",
        "--nproc_per_node": "8", "--log_dir": f"{tmp_path}/paddle_launch", "--max_restart": "0"}
    rest = argv[argv.index("--") + 1:]
    assert rest[:4] == [sys.executable, "-m", "chipperf_runtime.launch.rankexec",
                        f"{tmp_path}/rank{{PADDLE_TRAINER_ID}}.out.log"]
    assert rest[4:] == [sys.executable, "-u", ctx.entry, *ctx.case_args]
    assert paddle_launcher.env(ctx) == {}


def write_entry(tmp: Path, body: str) -> Path:
    entry = tmp / "entry.py"
    entry.write_text(textwrap.dedent(body))
    return entry


def test_two_ranks_on_cpu_write_their_own_logs(tmp_path: Path) -> None:
    entry = write_entry(tmp_path, """
        import json, os, sys
        print(json.dumps({k: os.environ.get(k) for k in ("PADDLE_TRAINER_ID",
              "PADDLE_LOCAL_RANK", "PADDLE_TRAINERS_NUM", "PADDLE_DISTRI_BACKEND")}))
        print(sys.argv[1:], flush=True)
    """)
    out = tmp_path / "node"
    ctx = context(out, entry=str(entry), port=free_port())
    result = subprocess.run(paddle_launcher.command(ctx), env=child_env(), capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    for rank in (0, 1):
        lines = (out / f"rank{rank}.out.log").read_text().splitlines()
        seen = json.loads(next(line for line in lines if line.startswith("{")))
        assert seen == {"PADDLE_TRAINER_ID": str(rank), "PADDLE_LOCAL_RANK": str(rank),
                        "PADDLE_TRAINERS_NUM": "2", "PADDLE_DISTRI_BACKEND": "gloo"}
        assert any("'--data_dir', '/data'" in line for line in lines)
    assert (out / "paddle_launch").is_dir()


def test_a_failing_rank_fails_the_node_and_stops_the_other(tmp_path: Path) -> None:
    entry = write_entry(tmp_path, """
        import os, sys, time
        if os.environ["PADDLE_TRAINER_ID"] == "1":
            time.sleep(1)
            sys.exit(3)
        open(os.path.join(os.path.dirname(__file__), "pid0"), "w").write(str(os.getpid()))
        time.sleep(120)
    """)
    ctx = context(tmp_path / "node", entry=str(entry), port=free_port())
    started = time.monotonic()
    result = subprocess.run(paddle_launcher.command(ctx), env=child_env(), capture_output=True,
                            text=True, timeout=120)
    assert result.returncode != 0
    assert time.monotonic() - started < 90
    pid0 = int((tmp_path / "pid0").read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid0, 0)
