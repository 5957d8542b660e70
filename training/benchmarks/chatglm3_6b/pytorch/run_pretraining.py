"""chatglm3_6b / PyTorch: THUDM's ChatGLM3-6B trained as a causal LM (FlagPerf's chatglm3_6b,
which FlagPerf runs on DeepSpeed) to an eval-loss target with FSDP2 under torchrun.

ChatGLM3 is a trust_remote_code model (``ChatGLMForConditionalGeneration``); its block is
exactly transformers' GLM (``GlmForCausalLM``, the class of GLM-4, ChatGLM3's successor with
the same block): RMSNorm, Q/K/V with biases and no output bias, grouped ("multi-query")
key/value heads (``multi_query_group_num`` 2 = ``num_key_value_heads`` 2), rotary embedding
on the first half of each head's dimensions with interleaved pairs (``partial_rotary_factor``
0.5), fused SwiGLU, untied output layer. The shared LLM case (``llmtrain``) trains it; this
file holds the presets. See README.md.
"""

from __future__ import annotations

from chipperf_runtime.models.tvision import prepare_torchvision

prepare_torchvision()  # first, explicitly: torchvision (transformers imports it) beside a CPU torch

from pathlib import Path

from transformers import GlmConfig, GlmForCausalLM

from chipperf_runtime.training.driver import run_case
from chipperf_runtime.training.llmtrain.case import LLMSpec, main
from chipperf_runtime.training.textlm.tokens import flagperf_npy

CASE_DIR = Path(__file__).resolve().parent
PRESETS = {
    # THUDM/chatglm3-6b's config.json: 28 layers x 4096, 32 heads of 128, multi_query_group_num
    # 2, ffn_hidden_size 13696, padded_vocab_size 65024, seq_length 8192, add_qkv_bias true,
    # add_bias_linear false, layernorm_epsilon 1e-5, RoPE base 10000 over half the head (rope
    # ratio 1); README.md, "Model".
    "6b": {"vocab_size": 65024, "hidden_size": 4096, "intermediate_size": 13696,
           "num_hidden_layers": 28, "num_attention_heads": 32, "num_key_value_heads": 2,
           "head_dim": 128, "partial_rotary_factor": 0.5, "attention_bias": True,
           "max_position_embeddings": 8192, "rms_norm_eps": 1e-5,
           "tie_word_embeddings": False, "pad_token_id": 0},
    # CI: the same block (2 key/value groups, half rotary, Q/K/V biases) at 2 x 128 on the
    # 259 byte-level ids of prepare_data.py's corpus
    "tiny": {"vocab_size": 259, "hidden_size": 128, "intermediate_size": 352,
             "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
             "head_dim": 32, "partial_rotary_factor": 0.5, "attention_bias": True,
             "max_position_embeddings": 512, "rms_norm_eps": 1e-5,
             "tie_word_embeddings": False, "pad_token_id": 0},
}
SPEC = LLMSpec(GlmForCausalLM, GlmConfig, PRESETS,
               "training/benchmarks/chatglm3_6b/pytorch/prepare_data.py",
               open_data=flagperf_npy("openwebtext_chatglm3_100M.npy"),
               no_tensor_parallel="GLM's fused gate_up_proj would be split into whole gate "
                                  "and whole up halves by the column split")

if __name__ == "__main__":
    run_case(lambda: main("chatglm3_6b", CASE_DIR, SPEC), quick_exit=True)
