"""chipperf inference case llama3_8b: LLM serving (engines eager, compile, vllm).

Model: ``transformers.LlamaForCausalLM`` from a ``LlamaConfig`` of Llama 3 8B's shape
(configuration.yaml; CI shrinks it), random weights from the seed (nothing is downloaded).
Data: text and a ``tokenizer.json`` (``prepare_prompts.py`` makes CI data). Scenarios and
metrics: ``common.llm`` (docs/inference.md, "LLM serving").
"""

from __future__ import annotations

from chipperf_runtime.models.tvision import prepare_torchvision

prepare_torchvision()  # first, explicitly: torchvision (transformers imports it) beside a CPU torch

import sys

from chipperf_runtime.inference.llm.runner import main

if __name__ == "__main__":
    sys.exit(main("llama3_8b"))
