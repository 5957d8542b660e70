"""distilbert / PyTorch: DistilBERT-base (transformers' DistilBertForMaskedLM, built from its
config) trained from scratch on masked-LM to an MLM-accuracy target, DDP under torchrun.

The loop, data and FINISHED are the shared text case (hftext); this file holds only the model
presets. The data is the bert cases' layout (``textlm.mlm``, made by bert/pytorch's
``prepare_data.py``). See README.md.
"""

from __future__ import annotations

from chipperf_runtime.models.tvision import prepare_torchvision

prepare_torchvision()  # first, explicitly: torchvision (transformers imports it) beside a CPU torch

from pathlib import Path
from typing import Any

from chipperf_runtime.training.driver import run_case
from chipperf_runtime.training.hftext.case import main
from chipperf_runtime.training.hftext.models import TextModel
from chipperf_runtime.training.hftext.tasks import MaskedLM

CASE_DIR = Path(__file__).resolve().parent
PRESETS: dict[str, dict[str, Any]] = {
    # DistilBERT-base-uncased (FlagPerf's distilbert): 6 x 768, 12 heads, FFN 3072, 512
    # positions, BERT's 30,522-token vocabulary, MLM head tied to the embeddings
    "base": {"vocab_size": 30522, "max_position_embeddings": 512, "n_layers": 6, "n_heads": 12,
             "dim": 768, "hidden_dim": 3072},
    # CI: 2 x 128, 2 heads, FFN 512, 128 positions, the CI corpus' 1,024-token vocabulary
    "tiny": {"vocab_size": 1024, "max_position_embeddings": 128, "n_layers": 2, "n_heads": 2,
             "dim": 128, "hidden_dim": 512, "dropout": 0.0, "attention_dropout": 0.0},
}
FULL_SIZE = {"model_size": "base", "seq_len": 512}
TEXT_MODEL = TextModel("distilbert", PRESETS, MaskedLM(token_types=False),
                       "training/benchmarks/bert/pytorch/prepare_data.py")

if __name__ == "__main__":
    run_case(lambda: main("distilbert", CASE_DIR, TEXT_MODEL), quick_exit=True)
