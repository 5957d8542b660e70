"""t5_small / PyTorch: T5-Small (transformers' T5ForConditionalGeneration, built from its
config) fine-tuned on summarisation to a ROUGE-1 target, as FlagPerf's t5_small is (CNN/DailyMail,
starting from the t5-small weights in the data folder), DDP under torchrun.

The loop, data and FINISHED are the shared text case (hftext; the task is
``hftext.seq2seq.Summarization`` on FlagPerf's data layout, ``hftext.pairs``); this file holds
only the model presets. See README.md.
"""

from __future__ import annotations

from chipperf_runtime.models.tvision import prepare_torchvision

prepare_torchvision()  # first, explicitly: torchvision (transformers imports it) beside a CPU torch

from pathlib import Path
from typing import Any

from chipperf_runtime.training.driver import run_case
from chipperf_runtime.training.hftext.case import main
from chipperf_runtime.training.hftext.models import TextModel
from chipperf_runtime.training.hftext.seq2seq import Summarization

CASE_DIR = Path(__file__).resolve().parent
PRESETS: dict[str, dict[str, Any]] = {
    # T5-Small (FlagPerf's t5_small; Hugging Face t5-small): 6 encoder and 6 decoder layers of
    # 512, 8 heads of 64, ReLU FFN 2048, relative position buckets 32, T5's 32,128-token
    # SentencePiece vocabulary, the LM head tied to the shared embeddings, dropout 0.1
    "small": {"vocab_size": 32128, "d_model": 512, "d_kv": 64, "d_ff": 2048, "num_layers": 6,
              "num_decoder_layers": 6, "num_heads": 8, "relative_attention_num_buckets": 32,
              "dropout_rate": 0.1, "feed_forward_proj": "relu", "tie_word_embeddings": True,
              "pad_token_id": 0, "eos_token_id": 1, "decoder_start_token_id": 0},
    # CI: 2 + 2 layers of 128, 4 heads of 32, FFN 512, prepare_data.py's 146-word vocabulary
    # (160 rows), no dropout
    "tiny": {"vocab_size": 160, "d_model": 128, "d_kv": 32, "d_ff": 512, "num_layers": 2,
             "num_decoder_layers": 2, "num_heads": 4, "relative_attention_num_buckets": 32,
             "dropout_rate": 0.0, "feed_forward_proj": "relu", "tie_word_embeddings": True,
             "pad_token_id": 0, "eos_token_id": 1, "decoder_start_token_id": 0},
}
# FlagPerf's data: sources of 1024 tokens, summaries of 128
FULL_SIZE = {"model_size": "small", "seq_len": (1024, 128)}
TEXT_MODEL = TextModel("t5", PRESETS, Summarization("t5_small"),
                       "training/benchmarks/t5_small/pytorch/prepare_data.py",
                       target="target_rouge1")

if __name__ == "__main__":
    run_case(lambda: main("t5_small", CASE_DIR, TEXT_MODEL), quick_exit=True)
