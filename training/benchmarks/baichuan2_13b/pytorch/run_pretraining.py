"""baichuan2_13b / PyTorch: Baichuan Inc.'s Baichuan2-13B trained as a causal LM (FlagPerf's
baichuan2_13b, which FlagPerf runs on DeepSpeed) to an eval-loss target with FSDP2 (and
optionally DTensor tensor parallelism inside a node) under torchrun.

Baichuan2-13B is a trust_remote_code model (``BaichuanForCausalLM``) with no transformers
class. Its weights have Llama's shapes exactly (``W_pack`` is Q, K and V stacked), so
transformers' ``LlamaForCausalLM`` holds them; its positions are ALiBi, not RoPE, and its
lm_head is normalised (NormHead): ``llmtrain/alibi.py`` computes both (an attention function
registered with transformers, an identity rotary embedding, a NormHead). The shared LLM case
(``llmtrain``) trains it; this file holds the presets. See README.md.
"""

from __future__ import annotations

from chipperf_runtime.models.tvision import prepare_torchvision

prepare_torchvision()  # first, explicitly: torchvision (transformers imports it) beside a CPU torch

from pathlib import Path

from transformers import LlamaConfig, LlamaForCausalLM

from chipperf_runtime.training.driver import run_case
from chipperf_runtime.training.llmtrain import alibi
from chipperf_runtime.training.llmtrain.case import LLMSpec, main
from chipperf_runtime.training.textlm.tokens import flagperf_npy

CASE_DIR = Path(__file__).resolve().parent
PRESETS = {
    # baichuan-inc/Baichuan2-13B-Base's config.json: 40 layers x 5120, 40 heads (no grouping),
    # intermediate_size 13696, vocab_size 125696, model_max_length 4096, rms_norm_eps 1e-6,
    # untied head; ALiBi (no RoPE). README.md, "Model".
    "13b": {"vocab_size": 125696, "hidden_size": 5120, "intermediate_size": 13696,
            "num_hidden_layers": 40, "num_attention_heads": 40, "num_key_value_heads": 40,
            "max_position_embeddings": 4096, "rms_norm_eps": 1e-6,
            "tie_word_embeddings": False},
    # CI: the same block at 2 x 144 with 6 heads (not a power of two, as 13B's 40 are not, so
    # the interleaved ALiBi slopes are used) on the 259 byte-level ids of prepare_data.py's corpus
    "tiny": {"vocab_size": 259, "hidden_size": 144, "intermediate_size": 384,
             "num_hidden_layers": 2, "num_attention_heads": 6, "num_key_value_heads": 6,
             "max_position_embeddings": 512, "rms_norm_eps": 1e-6,
             "tie_word_embeddings": False},
}
alibi.register()
SPEC = LLMSpec(LlamaForCausalLM, LlamaConfig, PRESETS,
               "training/benchmarks/baichuan2_13b/pytorch/prepare_data.py",
               open_data=flagperf_npy("openwebtext_baichuan2_100M.npy"),
               attention=alibi.ATTENTION, adapt=alibi.baichuan2)

if __name__ == "__main__":
    run_case(lambda: main("baichuan2_13b", CASE_DIR, SPEC), quick_exit=True)
