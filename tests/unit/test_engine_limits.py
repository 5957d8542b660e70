"""LLM serving engines chipperf cannot run where they are asked for (SGLang and TensorRT-LLM
off NVIDIA, or under another name; vLLM's offline engine off NVIDIA): one plan-time problem
each, naming the layer that chose the engine and what to use instead; the engines that can run
pass."""

from __future__ import annotations

import pytest

from chipperf_runtime.inference.engine_limits import serving_engine_problems

LAYERS = ["cpu_configuration.yaml", "--set"]


@pytest.mark.parametrize("engine, name, key, image", [
    ("sglang", "SGLang", "sglang_server", "pytorch_sglang_0.5"),
    ("TensorRT-LLM", "TensorRT-LLM", "trtllm_server", "pytorch_trtllm_1.2"),
    ("trtllm", "TensorRT-LLM", "trtllm_server", "pytorch_trtllm_1.2")])
def test_other_names_of_sglang_and_tensorrt_llm_name_the_served_key(engine: str, name: str,
                                                                      key: str, image: str) -> None:
    for vendor in ("cpu", "nvidia"):
        assert serving_engine_problems({"engine": engine}, vendor, LAYERS) == [
            f"--set: engine {engine!r} is not an engine name: {name} serves as engine {key!r} "
            f"(its OpenAI server, vendor nvidia, framework {image})"]


@pytest.mark.parametrize("engine, name", [("sglang_server", "SGLang"),
                                          ("trtllm_server", "TensorRT-LLM")])
def test_sglang_and_tensorrt_llm_are_refused_off_nvidia_in_one_line(engine: str, name: str) -> None:
    for vendor in ("cpu", "metax"):
        (problem,) = serving_engine_problems({"engine": engine}, vendor, LAYERS)
        assert problem.startswith(f"--set: engine {engine!r} is {name}'s OpenAI server, which "
                                  "chipperf runs on vendor nvidia only (NVIDIA GPUs")
        assert f"no chipperf image has a build of it for vendor {vendor!r}" in problem
        assert "\n" not in problem and problem.endswith("(the transformers engine behind the "
                                                        "same server)")
    assert serving_engine_problems({"engine": engine}, "nvidia", LAYERS) == []


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
