"""LLM serving engines chipperf cannot run where they are asked for (SGLang, TensorRT-LLM
anywhere; vLLM's offline engine off NVIDIA): one plan-time problem each, naming the layer that
chose the engine and what to use instead; the engines that can run pass."""

from __future__ import annotations

import pytest

from chipperf_runtime.inference.engine_limits import serving_engine_problems

LAYERS = ["cpu_configuration.yaml", "--set"]


@pytest.mark.parametrize("engine, name", [("sglang", "SGLang"), ("SGLang_server", "SGLang"),
                                          ("trtllm_server", "TensorRT-LLM"),
                                          ("TensorRT-LLM", "TensorRT-LLM")])
def test_sglang_and_tensorrt_llm_are_refused_for_every_vendor(engine: str, name: str) -> None:
    for vendor in ("cpu", "nvidia"):
        (problem,) = serving_engine_problems({"engine": engine}, vendor, LAYERS)
        assert problem.startswith(f"--set: engine {engine!r} is {name}, which chipperf does not "
                                  "run: no chipperf image installs it")
        assert problem.endswith("or transformers_server (the transformers engine behind the "
                                "same server)")


def test_offline_vllm_is_refused_off_nvidia_only() -> None:
    (problem,) = serving_engine_problems({"engine": "vllm"}, "metax", LAYERS[:1])
    assert problem.startswith("cpu_configuration.yaml: engine 'vllm' is vLLM's offline engine, "
                              "which chipperf runs on vendor nvidia only (NVIDIA GPUs), and "
                              "vendor 'metax' selects it: serve with engine vllm_server")
    assert serving_engine_problems({"engine": "vllm"}, "nvidia", LAYERS) == []


@pytest.mark.parametrize("engine", ["eager", "compile", "vllm_server", "transformers_server",
                                    "onnxruntime", None])
def test_engines_chipperf_runs_pass(engine) -> None:
    assert serving_engine_problems({"engine": engine}, "cpu", LAYERS) == []
