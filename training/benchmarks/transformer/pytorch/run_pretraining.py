"""transformer / PyTorch: FlagPerf's transformer, fairseq's transformer_wmt_en_de_big_t2t
(Transformer-big with pre-LayerNorm blocks, all embeddings shared) built from torch's
nn.Transformer (``chipperf_runtime.models.mt_transformer``: no library in the images has the
pre-LN variant), trained on FlagPerf's binarized WMT14 en-de to a BLEU target, DDP under
torchrun.

The loop, optimizer and FINISHED are the shared text case (hftext); the data and the BLEU
metric are ``hftext.translation``; this file holds the model presets. See README.md.
"""

from __future__ import annotations

from chipperf_runtime.models.tvision import prepare_torchvision

prepare_torchvision()  # first, explicitly: torchvision beside a CPU torch (as every text case)

from pathlib import Path
from typing import Any

from chipperf_runtime.training.driver import run_case
from chipperf_runtime.training.hftext.case import main
from chipperf_runtime.training.hftext.models import TextModel
from chipperf_runtime.training.hftext.translation import Translation

CASE_DIR = Path(__file__).resolve().parent
PRESETS: dict[str, dict[str, Any]] = {
    # transformer_wmt_en_de_big_t2t (FlagPerf's arch): 6 + 6 layers of 1024, 16 heads, FFN
    # 4096, dropout 0.1, 1024 positions; the vocabulary is the data's joined dictionary
    "big": {"vocab_size": None, "d_model": 1024, "heads": 16, "ffn": 4096, "encoder_layers": 6,
            "decoder_layers": 6, "dropout": 0.1, "max_positions": 1024},
    # CI: 1 + 1 layers of 64, 2 heads, FFN 128, no dropout
    "tiny": {"vocab_size": None, "d_model": 64, "heads": 2, "ffn": 128, "encoder_layers": 1,
             "decoder_layers": 1, "dropout": 0.0, "max_positions": 64},
}
# the full size at a 32,768-symbol joined dictionary, sentence pairs of 32 + 32 tokens
FULL_SIZE = {"model_size": "big", "vocab_size": 32768, "seq_len": (32, 32)}
TEXT_MODEL = TextModel("mt_transformer", PRESETS, Translation(),
                       "training/benchmarks/transformer/pytorch/prepare_data.py",
                       target="target_bleu")

if __name__ == "__main__":
    run_case(lambda: main("transformer", CASE_DIR, TEXT_MODEL), quick_exit=True)
