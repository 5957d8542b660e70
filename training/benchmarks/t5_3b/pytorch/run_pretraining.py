"""t5_3b / PyTorch: T5-3B (transformers' T5ForConditionalGeneration, built from its config)
fine-tuned on CNN/DailyMail summarisation to a ROUGE-1 target, fp32 with gradient
checkpointing, DDP under torchrun: the seed's T5-3B workload (Hugging Face's Habana Gaudi2 vs
A100 80GB benchmark). ``zero_stage`` 1-3 trains through DeepSpeed ZeRO instead of DDP
(``hftext.zero``; README.md).

The loop, data and FINISHED are the shared text case (hftext; the task is
``hftext.seq2seq.Summarization`` on the t5_small pairs layout, ``hftext.pairs``); this file
holds only the model presets. See README.md.
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
    # T5-3B (transformers' T5Config of Hugging Face t5-3b): 24 encoder and 24 decoder layers of
    # 1024, 32 heads of 128 (attention width 4096), ReLU FFN 16384, relative position buckets
    # 32, T5's 32,128-token vocabulary, the LM head tied to the shared embeddings, dropout 0.1
    "3b": {"vocab_size": 32128, "d_model": 1024, "d_kv": 128, "d_ff": 16384, "num_layers": 24,
           "num_decoder_layers": 24, "num_heads": 32, "relative_attention_num_buckets": 32,
           "dropout_rate": 0.1, "feed_forward_proj": "relu", "tie_word_embeddings": True,
           "pad_token_id": 0, "eos_token_id": 1, "decoder_start_token_id": 0},
    # CI: 2 + 2 layers of 64, 4 heads of 32 (attention wider than d_model, as T5-3B's), FFN
    # 256, prepare_data.py's vocabulary (160 rows), no dropout
    "tiny": {"vocab_size": 160, "d_model": 64, "d_kv": 32, "d_ff": 256, "num_layers": 2,
             "num_decoder_layers": 2, "num_heads": 4, "relative_attention_num_buckets": 32,
             "dropout_rate": 0.0, "feed_forward_proj": "relu", "tie_word_embeddings": True,
             "pad_token_id": 0, "eos_token_id": 1, "decoder_start_token_id": 0},
}
# the seed's widths (Optimum Habana's run_summarization.py defaults): sources of 1024 tokens,
# summaries of 128
FULL_SIZE = {"model_size": "3b", "seq_len": (1024, 128)}
TEXT_MODEL = TextModel("t5", PRESETS, Summarization("t5_3b"),
                       "training/benchmarks/t5_3b/pytorch/prepare_data.py",
                       target="target_rouge1")

if __name__ == "__main__":
    run_case(lambda: main("t5_3b", CASE_DIR, TEXT_MODEL), quick_exit=True)
