"""bert_hf / PyTorch: FlagPerf's bert_hf, BERT-large (transformers' BertForMaskedLM, built from
its config) trained on masked LM from FlagPerf's OpenWebText token files to an MLM-accuracy
target, DDP under torchrun.

The loop, optimizer and FINISHED are the shared text case (hftext); the data is FlagPerf's
bert_hf layout (``hftext.flagperf_mlm.TokenStreamMLM``); this file holds the model presets.
See README.md.
"""

from __future__ import annotations

from chipperf_runtime.models.tvision import prepare_torchvision

prepare_torchvision()  # first, explicitly: torchvision (transformers imports it) beside a CPU torch

from pathlib import Path
from typing import Any

from chipperf_runtime.training.driver import run_case
from chipperf_runtime.training.hftext.case import main
from chipperf_runtime.training.hftext.flagperf_mlm import TokenStreamMLM
from chipperf_runtime.training.hftext.models import TextModel

CASE_DIR = Path(__file__).resolve().parent
PRESETS: dict[str, dict[str, Any]] = {
    # bert-large-uncased (FlagPerf's bert_hf): 24 x 1024, 16 heads, FFN 4096, 512 positions,
    # BERT's 30,522-token WordPiece vocabulary, the MLM decoder tied to the word embeddings
    "large": {"vocab_size": 30522, "hidden_size": 1024, "num_hidden_layers": 24,
              "num_attention_heads": 16, "intermediate_size": 4096,
              "max_position_embeddings": 512},
    # bert-base-uncased, FlagPerf's other choice of weights: 12 x 768, 12 heads, FFN 3072
    "base": {"vocab_size": 30522, "hidden_size": 768, "num_hidden_layers": 12,
             "num_attention_heads": 12, "intermediate_size": 3072,
             "max_position_embeddings": 512},
    # CI: 2 x 64, 2 heads, FFN 256, 128 positions, 256 ids (prepare_data.py uses 110-255)
    "tiny": {"vocab_size": 256, "hidden_size": 64, "num_hidden_layers": 2,
             "num_attention_heads": 2, "intermediate_size": 256, "max_position_embeddings": 128,
             "hidden_dropout_prob": 0.0, "attention_probs_dropout_prob": 0.0},
}
FULL_SIZE = {"model_size": "large", "seq_len": 512}
TEXT_MODEL = TextModel("bert", PRESETS, TokenStreamMLM(),
                       "training/benchmarks/bert_hf/pytorch/prepare_data.py")

if __name__ == "__main__":
    run_case(lambda: main("bert_hf", CASE_DIR, TEXT_MODEL), quick_exit=True)
