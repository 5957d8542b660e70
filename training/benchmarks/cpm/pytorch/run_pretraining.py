"""cpm / PyTorch: CPM-1 Medium (FlagPerf's cpm: a GPT-2-shaped Chinese language model, built as
transformers' GPT2LMHeadModel from its config) trained on next-token prediction to a
token-accuracy target, DDP under torchrun (FlagPerf's "embedding average" metric is not the
target: README.md says why).

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
from chipperf_runtime.training.hftext.megatron_weights import MegatronGPT2LM
from chipperf_runtime.training.hftext.models import TextModel

CASE_DIR = Path(__file__).resolve().parent
PRESETS: dict[str, dict[str, Any]] = {
    # CPM-1 Medium (FlagPerf's cpm/pytorch/config/_base.py: num_layers 24, hidden_size 1024,
    # num_attention_heads 16, vocab_size 30000, max_position_embeddings 1024, layernorm 1e-5;
    # its checkpoint cpm_model_states_medium.pt): GPT-2's pre-LN decoder, LM head tied to the
    # word embeddings. No bos/eos ids: CPM's <eod> is an entry of its vocab.json, which only
    # FlagPerf's raw-text layout reads (hftext/flagperf_cpm.py), to end each document
    "medium": {"vocab_size": 30000, "n_positions": 1024, "n_embd": 1024, "n_layer": 24,
               "n_head": 16, "layer_norm_epsilon": 1e-5, "bos_token_id": None,
               "eos_token_id": None},
    # CI: 2 x 64, 4 heads, 64 positions, prepare_data.py's 256 ids, no dropout
    "tiny": {"vocab_size": 256, "n_positions": 64, "n_embd": 64, "n_layer": 2, "n_head": 4,
             "resid_pdrop": 0.0, "embd_pdrop": 0.0, "attn_pdrop": 0.0, "bos_token_id": 0,
             "eos_token_id": 0},
}
FULL_SIZE = {"model_size": "medium", "seq_len": 200}   # FlagPerf's seq_length
TEXT_MODEL = TextModel("gpt2", PRESETS, MegatronGPT2LM("cpm"),
                       "training/benchmarks/cpm/pytorch/prepare_data.py")

if __name__ == "__main__":
    run_case(lambda: main("cpm", CASE_DIR, TEXT_MODEL), quick_exit=True)
