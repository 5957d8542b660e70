"""glm / PyTorch: GLM-Large (FlagPerf's glm: THUDM's General Language Model, 335M) fine-tuned
on SuperGLUE ReCoRD as GLM does it, a multiple-choice cloze whose candidates are scored by
blank infilling, to FlagPerf's accuracy target, DDP under torchrun.

GLM has no transformers class: chipperf_runtime/models/glm.py writes it in torch with GLM's
module names (2-D positions, the blank-infilling attention mask, pre-LN blocks); the loop and
FINISHED are the shared text case (hftext), the data and metric ``hftext.cloze``; nothing
imports transformers or torchvision. See README.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from chipperf_runtime.training.driver import run_case
from chipperf_runtime.training.hftext.case import main
from chipperf_runtime.training.hftext.cloze import MultipleChoiceCloze
from chipperf_runtime.training.hftext.models import TextModel

CASE_DIR = Path(__file__).resolve().parent
PRESETS: dict[str, dict[str, Any]] = {
    # GLM-Large (FlagPerf's glm/pytorch/config/_base.py: num_layers 24, hidden_size 1024,
    # num_attention_heads 16, vocab_size 30592, max_position_embeddings 512, dropout 0.1;
    # its checkpoint blocklm-large-blank)
    "large": {"vocab_size": 30592, "hidden_size": 1024, "num_layers": 24,
              "num_attention_heads": 16, "max_sequence_length": 512},
    # CI: 2 x 64, 4 heads, prepare_data.py's 128 ids and 32-token rows, no dropout
    "tiny": {"vocab_size": 128, "hidden_size": 64, "num_layers": 2, "num_attention_heads": 4,
             "max_sequence_length": 32, "dropout": 0.0},
}
FULL_SIZE = {"model_size": "large", "seq_len": 512}   # FlagPerf's max_seq_length
TEXT_MODEL = TextModel("glm", PRESETS, MultipleChoiceCloze(),
                       "training/benchmarks/glm/pytorch/prepare_data.py")

if __name__ == "__main__":
    run_case(lambda: main("glm", CASE_DIR, TEXT_MODEL), quick_exit=True)
