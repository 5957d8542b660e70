"""LLM serving engines a user may name that chipperf cannot run where they ask for it, refused
by the plan (on the master, before any image is built) with what to use instead.

SGLang and TensorRT-LLM serve through their OpenAI servers (``sglang_server``,
``trtllm_server``) on vendor nvidia only, in their own image folders (pytorch_sglang_0.5,
pytorch_trtllm_1.2; never built or run here: no NVIDIA GPU on this project's machines); no
chipperf image has a CPU build of either. Other names for them are refused with the key to
write. vLLM's offline engine (``vllm``) runs on NVIDIA GPUs only; on vendor cpu vLLM serves
through its OpenAI server in the serving image (``vllm_server``, framework
``pytorch_vllm_0.32``).
"""

from __future__ import annotations

from typing import Mapping, Sequence

# the served keys of SGLang and TensorRT-LLM -> (the engine, the nvidia image folder)
NVIDIA_SERVED = {"sglang_server": ("SGLang", "pytorch_sglang_0.5"),
                 "trtllm_server": ("TensorRT-LLM", "pytorch_trtllm_1.2")}
# other names a user may write for them -> the served key
ALIASES = {
    "sglang": "sglang_server", "trtllm": "trtllm_server", "tensorrt_llm": "trtllm_server",
    "tensorrt-llm": "trtllm_server", "trt-llm": "trtllm_server", "trt_llm": "trtllm_server",
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
    if engine.lower() in ALIASES:
        key = ALIASES[engine.lower()]
        name, image = NVIDIA_SERVED[key]
        return [f"{place}: engine {engine!r} is not an engine name: {name} serves as engine "
                f"{key!r} (its OpenAI server, vendor nvidia, framework {image})"]
    if engine in NVIDIA_SERVED and vendor and vendor != "nvidia":
        name, image = NVIDIA_SERVED[engine]
        return [f"{place}: engine {engine!r} is {name}'s OpenAI server, which chipperf runs on "
                f"vendor nvidia only (NVIDIA GPUs, image folder {image}; no chipperf image has "
                f"a build of it for vendor {vendor!r}): {SERVED_INSTEAD}"]
    if engine == "vllm" and vendor and vendor != "nvidia":
        return [f"{place}: engine 'vllm' is vLLM's offline engine, which chipperf runs on vendor "
                f"nvidia only (NVIDIA GPUs), and vendor {vendor!r} selects it: {SERVED_INSTEAD}, "
                "or use eager or compile"]
    return []
