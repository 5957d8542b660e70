"""LLM serving engines a user may name that chipperf cannot run where they ask for it, refused
by the plan (on the master, before any image is built) with what to use instead.

SGLang and TensorRT-LLM: chipperf has no engine for either (issue 43 lists them as further
NVIDIA engines); no chipperf image installs them and none has been installed or run on this
project's machines (no NVIDIA GPU there). vLLM's offline engine (``vllm``) runs on NVIDIA GPUs
only; on vendor cpu vLLM serves through its OpenAI server in the serving image
(``vllm_server``, framework ``pytorch_vllm_0.32``).
"""

from __future__ import annotations

from typing import Mapping, Sequence

# engine names a user may write -> the engine they mean
ABSENT_ENGINES = {
    "sglang": "SGLang", "sglang_server": "SGLang",
    "trtllm": "TensorRT-LLM", "trtllm_server": "TensorRT-LLM", "tensorrt_llm": "TensorRT-LLM",
    "tensorrt-llm": "TensorRT-LLM", "trt-llm": "TensorRT-LLM", "trt_llm": "TensorRT-LLM",
}
SERVED_INSTEAD = ("serve with engine vllm_server (vLLM's OpenAI server; on vendor cpu the serving "
                  "image, framework pytorch_vllm_0.32) or transformers_server (the transformers "
                  "engine behind the same server)")


def serving_engine_problems(config: Mapping, vendor: str, where: Sequence[str]) -> list[str]:
    """Why the configuration's engine cannot run for ``vendor``, as one problem; [] when it
    can (or when the engine is not one of these). ``where``: the layers that set it, in
    order (the last one wins, and is named)."""
    engine = str(config.get("engine"))
    place = where[-1] if where else "the case's configuration"
    if engine.lower() in ABSENT_ENGINES:
        name = ABSENT_ENGINES[engine.lower()]
        return [f"{place}: engine {engine!r} is {name}, which chipperf does not run: no chipperf "
                f"image installs it and no case drives it (it has never been installed or run "
                f"on this project's machines, which have no NVIDIA GPU): {SERVED_INSTEAD}"]
    if engine == "vllm" and vendor and vendor != "nvidia":
        return [f"{place}: engine 'vllm' is vLLM's offline engine, which chipperf runs on vendor "
                f"nvidia only (NVIDIA GPUs), and vendor {vendor!r} selects it: {SERVED_INSTEAD}, "
                "or use eager or compile"]
    return []
