"""chipperf inference case llama3_8b_mmlu: MMLU accuracy and throughput of a causal LM read from local
files (FlagPerf's case of this name; flow and metrics: chipperf_runtime.inference.mmlu,
docs/inference.md "MMLU")."""

from __future__ import annotations

from chipperf_runtime.models.tvision import prepare_torchvision

prepare_torchvision()  # first, explicitly: torchvision (transformers imports it) beside a CPU torch

import sys

from chipperf_runtime.inference.mmlu.runner import main

if __name__ == "__main__":
    sys.exit(main("llama3_8b_mmlu"))
