"""The shapes of FlagPerf's Paddle LLM models, their parameter counts and training FLOPs per
token (standard library only: counted here from the shapes, checked against the built Paddle
model by tests/runtime/test_paddlellm_model.py).

llama: LLaMA-1 (PaddleNLP's ``facebook/llama-7b`` / ``-13b``, which FlagPerf's configs name):
RMSNorm, SwiGLU MLP, rotary positions, no biases, untied lm_head. Counted by
``llmtrain.arch`` (the same decoder as the torch Llama cases).

gpt: GPT-3 as PaddleNLP's ``gpt3-6.7B-en`` / ``gpt3-13B-en`` with FlagPerf's _base.py
(``tie_word_embeddings = False``, ``max_position_embeddings = 2048``): learned absolute
positions, pre-LayerNorm blocks with biases, GELU MLP, a final LayerNorm and an untied
lm_head without bias.

Training FLOPs per token = 6 * N_matmul + 12 * L * h * s (as ``llmtrain.arch``: the attention
scores counted whole, causal or not; FINISHED says the attention is causal).
"""

from __future__ import annotations

from typing import Any, Mapping

from chipperf_runtime.training.llmtrain import arch as llama_arch

Shape = Mapping[str, Any]

# FlagPerf's model names -> (family, model_size); the case folder picks one, a vendor config may
# shrink it to "tiny" (the CI size).
MODELS = {"llama1_7B": ("llama", "7b"), "llama1_13B": ("llama", "13b"),
          "gpt3_6.7B": ("gpt", "6.7b"), "gpt3_13B": ("gpt", "13b")}

_TINY = {"vocab_size": 259, "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
         "max_position_embeddings": 128}
PRESETS: dict[str, dict[str, Shape]] = {
    "llama": {
        # LLaMA-1 (Touvron et al. 2023, table 2); vocabulary 32,000 (its SentencePiece model)
        "7b": {"vocab_size": 32000, "hidden_size": 4096, "intermediate_size": 11008,
               "num_hidden_layers": 32, "num_attention_heads": 32,
               "max_position_embeddings": 2048, "rms_norm_eps": 1e-6, "num_key_value_heads": 32},
        "13b": {"vocab_size": 32000, "hidden_size": 5120, "intermediate_size": 13824,
                "num_hidden_layers": 40, "num_attention_heads": 40,
                "max_position_embeddings": 2048, "rms_norm_eps": 1e-6, "num_key_value_heads": 40},
        "tiny": {**_TINY, "intermediate_size": 172, "rms_norm_eps": 1e-6, "num_key_value_heads": 4},
    },
    "gpt": {
        # PaddleNLP gpt3-6.7B-en / gpt3-13B-en (FlagPerf's gpt3_6.7B/paddle/config/_base.py
        # lists both: vocab 50304, 2048 positions; 13B: hidden 5120, 40 layers, 128 heads)
        "6.7b": {"vocab_size": 50304, "hidden_size": 4096, "intermediate_size": 16384,
                 "num_hidden_layers": 32, "num_attention_heads": 32,
                 "max_position_embeddings": 2048, "layer_norm_eps": 1e-5},
        "13b": {"vocab_size": 50304, "hidden_size": 5120, "intermediate_size": 20480,
                "num_hidden_layers": 40, "num_attention_heads": 128,
                "max_position_embeddings": 2048, "layer_norm_eps": 1e-5},
        "tiny": {**_TINY, "intermediate_size": 256, "layer_norm_eps": 1e-5},
    },
}


def shape(family: str, size: str) -> Shape:
    """The preset's shape; KeyError names the sizes there are."""
    sizes = PRESETS[family]
    if size not in sizes:
        raise KeyError(f"model_size {size!r} is not a {family} size: use one of "
                       f"{', '.join(sizes)}")
    return sizes[size]


def gpt_layer_params(s: Shape) -> int:
    h, i = s["hidden_size"], s["intermediate_size"]
    attention = 4 * (h * h + h)               # Q, K, V, O with biases
    mlp = h * i + i + i * h + h               # fc1, fc2 with biases
    return attention + mlp + 2 * 2 * h        # two LayerNorms (weight, bias)


def parameter_count(family: str, s: Shape) -> int:
    """Every parameter of the model (embeddings, layers, final norm, lm_head)."""
    if family == "llama":
        return llama_arch.parameter_count(s)
    h, v = s["hidden_size"], s["vocab_size"]
    embeddings = v * h + s["max_position_embeddings"] * h
    return embeddings + s["num_hidden_layers"] * gpt_layer_params(s) + 2 * h + v * h


def matmul_params(family: str, s: Shape) -> int:
    """Weights used in a matmul for every token: the layers' projections and the lm_head."""
    if family == "llama":
        return llama_arch.matmul_params(s)
    h, i = s["hidden_size"], s["intermediate_size"]
    return s["num_hidden_layers"] * (4 * h * h + 2 * h * i) + h * s["vocab_size"]


def attention_train_flops_per_token(s: Shape, seq_len: int) -> int:
    return 12 * s["num_hidden_layers"] * s["hidden_size"] * seq_len


def train_flops_per_token(family: str, s: Shape, seq_len: int) -> int:
    return 6 * matmul_params(family, s) + attention_train_flops_per_token(s, seq_len)
