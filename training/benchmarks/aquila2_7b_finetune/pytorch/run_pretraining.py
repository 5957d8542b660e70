"""aquila2_7b_finetune / PyTorch: BAAI's Aquila2-7B (transformers' LlamaForCausalLM over
model.json, aquila2_7b's presets) fine-tuned, every weight trained, from a checkpoint (the
``checkpoint`` folder under the data dir, written by aquila2_7b's ``save_checkpoint``) on
FlagPerf's conversation data (``textlm/convo.py``), with FSDP2 under torchrun.

The mesh, model building, checkpoint, loop and FINISHED are the shared LLM case
(``llmtrain``). See README.md.
"""

from __future__ import annotations

from chipperf_runtime.models.tvision import prepare_torchvision

prepare_torchvision()  # first, explicitly: torchvision (transformers imports it) beside a CPU torch

from pathlib import Path

from transformers import LlamaConfig, LlamaForCausalLM

from chipperf_runtime.training.driver import run_case
from chipperf_runtime.training.llmtrain.case import LLMSpec, main
from chipperf_runtime.training.llmtrain.llama import read_presets
from chipperf_runtime.training.textlm.convo import open_convo

CASE_DIR = Path(__file__).resolve().parent
SPEC = LLMSpec(LlamaForCausalLM, LlamaConfig, read_presets(CASE_DIR),
               "training/benchmarks/aquila2_7b_finetune/pytorch/prepare_data.py",
               open_data=open_convo)

if __name__ == "__main__":
    run_case(lambda: main("aquila2_7b_finetune", CASE_DIR, SPEC), quick_exit=True)
