"""TensorFlow 2 launcher + the per-node spawner: argv, TF_CONFIG, rank logs, failure handling.

The spawner is exercised for real (stdlib-only child processes, no TensorFlow needed)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from launchctx import launch_context

from chipperf.launchers import get_launcher, launcher_names, tensorflow2
from chipperf.launchers.base import LaunchContext
from chipperf_runtime.launch import spawn

REPO = Path(__file__).resolve().parents[2]


def context(tmp: Path, nnodes: int = 1, node_rank: int = 0, nproc: int = 2,
            entry: str = "/w/code/benchmarks/resnet50/tensorflow2/run_pretraining.py",
            hosts: tuple[str, ...] = ("10.0.0.1",), port: int = 29500) -> LaunchContext:
    return launch_context(str(tmp), entry, nnodes=nnodes, node_rank=node_rank, nproc=nproc,
                          hosts=hosts, port=port, python=sys.executable)


def child_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("RANK", "LOCAL_RANK", "WORLD_SIZE", "TF_CONFIG")}
    env["PYTHONPATH"] = str(REPO)
    return env


def test_registered_as_a_launcher() -> None:
    assert "tensorflow2" in launcher_names()
    assert get_launcher("tensorflow2") is tensorflow2


def test_command_spawns_ranks_through_rankexec(tmp_path: Path) -> None:
    ctx = context(tmp_path, nnodes=2, node_rank=1, nproc=2, hosts=("10.0.0.1", "10.0.0.2"))
    argv = tensorflow2.command(ctx)
    assert argv[:3] == [sys.executable, "-m", "chipperf_runtime.launch.spawn"]
    assert "--nnodes=2" in argv and "--node_rank=1" in argv and "--nproc_per_node=2" in argv
    assert ("--tf_workers=10.0.0.1:29500,10.0.0.1:29501,10.0.0.2:29502,10.0.0.2:29503"
            in argv)
    rest = argv[argv.index("--") + 1:]
    assert rest[:4] == [sys.executable, "-m", "chipperf_runtime.launch.rankexec",
                        f"{tmp_path}/rank{{RANK}}.out.log"]
    assert rest[4:] == [sys.executable, "-u", ctx.entry, *ctx.case_args]
    assert tensorflow2.env(ctx) == {}


def test_worker_addresses_are_distinct_even_when_nodes_share_an_address(tmp_path) -> None:
    ctx = context(tmp_path, nnodes=2, nproc=8, hosts=("127.0.0.1", "127.0.0.1"), port=4000)
    workers = tensorflow2.worker_addresses(ctx)
    assert len(workers) == 16 == len(set(workers))
    assert workers[0] == "127.0.0.1:4000" and workers[15] == "127.0.0.1:4015"


def test_rank_env_numbers_ranks_node_major_and_names_the_task() -> None:
    topo = spawn.Topology(nnodes=2, node_rank=1, nproc_per_node=3,
                          tf_workers=tuple(f"h:{p}" for p in range(6)))
    env = spawn.rank_env(topo, 2)
    assert (env["RANK"], env["LOCAL_RANK"], env["WORLD_SIZE"]) == ("5", "2", "6")
    assert (env["NODE_RANK"], env["NNODES"], env["LOCAL_WORLD_SIZE"]) == ("1", "2", "3")
    tf_config = json.loads(env["TF_CONFIG"])
    assert tf_config == {"cluster": {"worker": [f"h:{p}" for p in range(6)]},
                         "task": {"type": "worker", "index": 5}}
    assert "TF_CONFIG" not in spawn.rank_env(spawn.Topology(1, 0, 1), 0)


@pytest.mark.parametrize("topo, expected", [
    (spawn.Topology(1, 1, 2), "--node_rank 1 is outside 0..0"),
    (spawn.Topology(1, 0, 0), "must be at least 1"),
    (spawn.Topology(1, 0, 2, ("a:1",)), "lists 1 addresses for 2 ranks"),
])
def test_topology_problems(topo: spawn.Topology, expected: str) -> None:
    assert any(expected in p for p in topo.problems())


def test_exit_code_maps_signals_like_a_shell() -> None:
    assert spawn.exit_code(0) == 0 and spawn.exit_code(3) == 3
    assert spawn.exit_code(-signal.SIGKILL) == 128 + signal.SIGKILL


def write_entry(tmp: Path, body: str) -> Path:
    entry = tmp / "entry.py"
    entry.write_text(textwrap.dedent(body))
    return entry


def test_launcher_command_runs_every_rank_with_its_env_and_log(tmp_path: Path) -> None:
    entry = write_entry(tmp_path, """
        import json, os, sys
        print(json.dumps({k: os.environ.get(k) for k in
              ("RANK", "LOCAL_RANK", "WORLD_SIZE", "TF_CONFIG")}))
        print(sys.argv[1:], flush=True)
        print("to stderr", file=sys.stderr)
    """)
    ctx = context(tmp_path, nproc=2, entry=str(entry), hosts=("127.0.0.1",))
    result = subprocess.run(tensorflow2.command(ctx), env=child_env(), capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    for rank in (0, 1):
        lines = (tmp_path / f"rank{rank}.out.log").read_text().splitlines()
        seen = json.loads(lines[0])
        assert seen["RANK"] == seen["LOCAL_RANK"] == str(rank) and seen["WORLD_SIZE"] == "2"
        assert json.loads(seen["TF_CONFIG"])["task"]["index"] == rank
        assert "'--data_dir', '/data'" in lines[1] and "to stderr" in lines[2]


def test_first_failure_stops_the_other_ranks_and_sets_the_status(tmp_path: Path) -> None:
    entry = write_entry(tmp_path, """
        import os, sys, time
        if os.environ["RANK"] == "1":
            time.sleep(0.5)
            sys.exit(3)
        open(os.path.join(os.path.dirname(__file__), "pid0"), "w").write(str(os.getpid()))
        time.sleep(120)
    """)
    ctx = context(tmp_path, nproc=2, entry=str(entry), hosts=("127.0.0.1",))
    started = time.monotonic()
    result = subprocess.run(tensorflow2.command(ctx), env=child_env(), capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 3
    assert time.monotonic() - started < 30
    assert "local rank 1 exited with status 3" in result.stdout
    pid0 = int((tmp_path / "pid0").read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid0, 0)


def test_sigterm_is_passed_on_to_the_ranks(tmp_path: Path) -> None:
    entry = write_entry(tmp_path, """
        import os, signal, sys, time
        def bye(signum, frame):
            print("got", signum, flush=True)
            sys.exit(143)
        signal.signal(signal.SIGTERM, bye)
        print("ready", flush=True)
        time.sleep(120)
    """)
    ctx = context(tmp_path, nproc=2, entry=str(entry), hosts=("127.0.0.1",))
    proc = subprocess.Popen(tensorflow2.command(ctx), env=child_env(), text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    logs = [tmp_path / f"rank{r}.out.log" for r in (0, 1)]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not all(
            p.is_file() and "ready" in p.read_text() for p in logs):
        time.sleep(0.1)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 143
    assert all(f"got {int(signal.SIGTERM)}" in p.read_text() for p in logs)


def test_spawner_rejects_bad_arguments() -> None:
    result = subprocess.run([sys.executable, "-m", "chipperf_runtime.launch.spawn", "--nnodes", "1",
                             "--node_rank", "0", "--nproc_per_node", "2", "--tf_workers", "a:1",
                             "--", "true"], env=child_env(), capture_output=True, text=True,
                            timeout=30)
    assert result.returncode == 2
    assert "--tf_workers lists 1 addresses for 2 ranks" in result.stderr


def test_spawner_reports_a_command_that_cannot_start() -> None:
    result = subprocess.run([sys.executable, "-m", "chipperf_runtime.launch.spawn", "--nnodes", "1",
                             "--node_rank", "0", "--nproc_per_node", "1", "--",
                             "/nonexistent/python"], env=child_env(), capture_output=True,
                            text=True, timeout=30)
    assert result.returncode == 127
    assert "cannot start '/nonexistent/python'" in result.stderr


def test_ranks_that_ignore_sigterm_are_killed_after_the_grace_period(tmp_path: Path) -> None:
    """TensorFlow's multi-worker runtime catches SIGTERM (a preemption notice) and runs on."""
    entry = write_entry(tmp_path, """
        import signal, time
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        print("ready", flush=True)
        time.sleep(120)
    """)
    argv = [sys.executable, "-m", "chipperf_runtime.launch.spawn", "--nnodes", "1", "--node_rank",
            "0", "--nproc_per_node", "2", "--grace_s", "1", "--",
            sys.executable, "-m", "chipperf_runtime.launch.rankexec",
            f"{tmp_path}/rank{{RANK}}.out.log", sys.executable, "-u", str(entry)]
    proc = subprocess.Popen(argv, env=child_env(), stdout=subprocess.PIPE, text=True)
    logs = [tmp_path / f"rank{r}.out.log" for r in (0, 1)]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not all(
            p.is_file() and "ready" in p.read_text() for p in logs):
        time.sleep(0.1)
    started = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 128 + signal.SIGKILL
    assert time.monotonic() - started < 15
