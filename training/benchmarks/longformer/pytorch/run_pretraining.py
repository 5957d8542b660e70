"""longformer / PyTorch: FlagPerf's longformer, longformer-base-4096 (transformers'
LongformerForMaskedLM, built from its config as FlagPerf builds it: random weights) trained on
masked LM from FlagPerf's wikitext-2 rows of 1024 to an MLM-accuracy target, DDP under
torchrun.

The loop, optimizer and FINISHED are the shared text case (hftext); the data is FlagPerf's
longformer layout (``hftext.flagperf_mlm.NpzMLM``); this file holds the model presets. See
README.md.
"""

from __future__ import annotations

from chipperf_runtime.models.tvision import prepare_torchvision

prepare_torchvision()  # first, explicitly: torchvision (transformers imports it) beside a CPU torch

from pathlib import Path
from typing import Any

from chipperf_runtime.training.driver import run_case
from chipperf_runtime.training.hftext.case import main
from chipperf_runtime.training.hftext.flagperf_mlm import NpzMLM
from chipperf_runtime.training.hftext.models import TextModel

CASE_DIR = Path(__file__).resolve().parent
PRESETS: dict[str, dict[str, Any]] = {
    # allenai/longformer-base-4096's config.json (FlagPerf's data folder model/config.json):
    # RoBERTa-base shapes (12 x 768, 12 heads, FFN 3072, 50,265 BPE ids, one token type),
    # 4,098 positions (4,096 + RoBERTa's offset of 2), sliding windows of 512 in every layer
    "base-4096": {"vocab_size": 50265, "hidden_size": 768, "num_hidden_layers": 12,
                  "num_attention_heads": 12, "intermediate_size": 3072,
                  "max_position_embeddings": 4098, "attention_window": 512,
                  "type_vocab_size": 1, "layer_norm_eps": 1e-5, "pad_token_id": 1,
                  "bos_token_id": 0, "eos_token_id": 2, "sep_token_id": 2},
    # CI: 2 x 64, 2 heads, FFN 256, windows of 16 (so rows of 32 use the sliding window),
    # 256 ids (prepare_data.py's tokens are 4-67, <mask> 3)
    "tiny": {"vocab_size": 256, "hidden_size": 64, "num_hidden_layers": 2,
             "num_attention_heads": 2, "intermediate_size": 256, "max_position_embeddings": 130,
             "attention_window": 16, "type_vocab_size": 1, "pad_token_id": 1, "bos_token_id": 0,
             "eos_token_id": 2, "sep_token_id": 2, "hidden_dropout_prob": 0.0,
             "attention_probs_dropout_prob": 0.0},
}
FULL_SIZE = {"model_size": "base-4096", "seq_len": 1024}
TEXT_MODEL = TextModel("longformer", PRESETS, NpzMLM(),
                       "training/benchmarks/longformer/pytorch/prepare_data.py")

if __name__ == "__main__":
    run_case(lambda: main("longformer", CASE_DIR, TEXT_MODEL), quick_exit=True)
