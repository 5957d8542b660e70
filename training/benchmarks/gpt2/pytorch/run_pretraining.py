"""gpt2 / PyTorch: GPT-2 Medium (transformers' GPT2LMHeadModel, built from its config) trained
from scratch on next-token prediction to a token-accuracy target, DDP under torchrun.

The loop, data and FINISHED are the shared text case (hftext); this file holds only the model
presets. See README.md.
"""

from __future__ import annotations

from chipperf_runtime.models.tvision import prepare_torchvision

prepare_torchvision()  # first, explicitly: torchvision (transformers imports it) beside a CPU torch

from pathlib import Path
from typing import Any

from chipperf_runtime.training.driver import run_case
from chipperf_runtime.training.hftext.case import main
from chipperf_runtime.training.hftext.models import TextModel
from chipperf_runtime.training.hftext.tasks import CausalLM

CASE_DIR = Path(__file__).resolve().parent
PRESETS: dict[str, dict[str, Any]] = {
    # GPT-2 Medium (FlagPerf's gpt2, Megatron's 345M; Hugging Face gpt2-medium): 24 x 1024,
    # 16 heads, 1024 positions, GPT-2's 50,257-token vocabulary, LM head tied to the embeddings
    "medium": {"vocab_size": 50257, "n_positions": 1024, "n_embd": 1024, "n_layer": 24,
               "n_head": 16},
    # CI: 2 x 256, 4 heads, 128 positions, prepare_data.py's 1,024-token BPE (<|endoftext|>
    # is its id 0), no dropout
    "tiny": {"vocab_size": 1024, "n_positions": 128, "n_embd": 256, "n_layer": 2, "n_head": 4,
             "resid_pdrop": 0.0, "embd_pdrop": 0.0, "attn_pdrop": 0.0, "bos_token_id": 0,
             "eos_token_id": 0},
}
FULL_SIZE = {"model_size": "medium", "seq_len": 1024}
TEXT_MODEL = TextModel("gpt2", PRESETS, CausalLM("gpt2"),
                       "training/benchmarks/gpt2/pytorch/prepare_data.py")

if __name__ == "__main__":
    run_case(lambda: main("gpt2", CASE_DIR, TEXT_MODEL), quick_exit=True)
