"""Parameter count and training FLOPs per token of a Llama-style decoder, dense or
mixture-of-experts, from its transformers config values (standard library only, so the
formulas are tested against the meta-built model without a GPU).

Training FLOPs per token = 6 * N_active + 12 * L * (heads * head_dim) * s (PaLM, appendix B:
forward + backward = 3 x forward, 2 FLOPs per multiply-add; the attention term counts the
whole, not the causal half, score matrix). N_active is the weights used in a matmul for every
token: Q/K/V/O, the router and the ``top_k`` routed experts' SwiGLU (all of the MLP when dense)
and the lm_head; the input embedding is a lookup and the RMSNorm weights are elementwise.

GLM's (chatglm3_6b): Q/K/V biases (``attention_bias``), grouped K/V heads and a fused SwiGLU
of the same size as Llama's. Baichuan2-13B's ALiBi and NormHead are elementwise: Llama's
counts.

Qwen2-MoE's extras (qwen1.5_MoE): routed experts of ``moe_intermediate_size`` (the key
``num_experts``), a shared SwiGLU expert of ``shared_expert_intermediate_size`` with its
sigmoid gate (``hidden -> 1``) used by every token, and Q/K/V biases (``qkv_bias``: counted as
parameters, not as matmul weights). Every layer is taken as sparse (``decoder_sparse_step``
1, no ``mlp_only_layers``: Qwen1.5-MoE-A2.7B's published config).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence


def head_dim(config: Mapping[str, Any]) -> int:
    return int(config.get("head_dim") or config["hidden_size"] // config["num_attention_heads"])

def attention_params(config: Mapping[str, Any]) -> int:
    h, d = config["hidden_size"], head_dim(config)
    q = config["num_attention_heads"] * d
    kv = config["num_key_value_heads"] * d
    return h * q + 2 * h * kv + q * h

def attention_biases(config: Mapping[str, Any]) -> int:
    """Q/K/V biases (Qwen2's ``qkv_bias``, GLM's ``attention_bias``: Q/K/V only, no output
    bias); 0 without them."""
    if not (config.get("qkv_bias") or config.get("attention_bias")):
        return 0
    return (config["num_attention_heads"] + 2 * config["num_key_value_heads"]) * head_dim(config)

def experts(config: Mapping[str, Any]) -> tuple[int, int]:
    """(experts per layer, experts per token); (1, 1) for a dense MLP."""
    total = config.get("num_local_experts") or config.get("num_experts") or 1
    return int(total), int(config.get("num_experts_per_tok", 1))

def expert_width(config: Mapping[str, Any]) -> int:
    """The SwiGLU width of one routed expert (of the MLP when dense): what TP splits."""
    return int(config.get("moe_intermediate_size") or config["intermediate_size"])

def shared_expert_params(config: Mapping[str, Any]) -> int:
    """Qwen2-MoE's shared expert and its gate, used by every token; 0 without one."""
    width, h = int(config.get("shared_expert_intermediate_size") or 0), config["hidden_size"]
    return 3 * h * width + h if width else 0

def mlp_params(config: Mapping[str, Any], active: bool) -> int:
    """SwiGLU weights of a layer (of the routed experts only when ``active``), plus the router
    and any shared expert."""
    total, per_token = experts(config)
    one = 3 * config["hidden_size"] * expert_width(config)
    router = config["hidden_size"] * total if total > 1 else 0
    return (per_token if active else total) * one + router + shared_expert_params(config)

def parameter_count(config: Mapping[str, Any]) -> int:
    """Every parameter: embeddings, layers (with their two RMSNorms), final norm, lm_head."""
    h, vocab, layers = config["hidden_size"], config["vocab_size"], config["num_hidden_layers"]
    per_layer = (attention_params(config) + attention_biases(config)
                 + mlp_params(config, active=False) + 2 * h)
    head = 0 if config.get("tie_word_embeddings") else h * vocab
    return vocab * h + layers * per_layer + h + head

def matmul_params(config: Mapping[str, Any]) -> int:
    """N_active (module doc)."""
    layers = config["num_hidden_layers"]
    per_layer = attention_params(config) + mlp_params(config, active=True)
    return layers * per_layer + config["hidden_size"] * config["vocab_size"]

def attention_train_flops_per_token(config: Mapping[str, Any], seq_len: int) -> int:
    """The attention term of the training FLOPs per token, counted whole: each layer's score
    (Q K^T) and value (P V) products, 2 x 2 x width x s forward per token, x 3 with the
    backward; a causal mask leaves about half of it to do (FINISHED's causal_attention)."""
    attention_width = config["num_attention_heads"] * head_dim(config)
    return 12 * config["num_hidden_layers"] * attention_width * seq_len


def train_flops_per_token(config: Mapping[str, Any], seq_len: int) -> int:
    return 6 * matmul_params(config) + attention_train_flops_per_token(config, seq_len)


# ---------------------------------------------------------------- LoRA fine-tuning
#
# A LoRA adapter on a linear map in -> out adds A [r, in] and B [out, r]: r * (in + out)
# trainable weights; the base weights are frozen. Training FLOPs per token then are
#
#     4 * N_frozen + 6 * N_lora + 12 * L * (heads * head_dim) * s
#
# N_frozen = ``matmul_params`` (the base's matmul weights): forward 2 FLOPs per weight, and
# backward 2 more for the input gradient the adapters below need, but no weight gradient
# (2 FLOPs saved per frozen weight against 6N). The adapters are ordinary trained weights
# (forward + input gradient + weight gradient = 6). The attention scores have no weights:
# their forward and backward are counted whole as in pretraining. Slight overcount: the
# first layer's input gradient is not needed (nothing below it trains) and autograd skips it.

def lora_widths(config: Mapping[str, Any]) -> dict[str, tuple[int, int]]:
    """(in, out) of each Llama linear map LoRA may adapt, by its module name."""
    h, d = config["hidden_size"], head_dim(config)
    q, kv, width = config["num_attention_heads"] * d, config["num_key_value_heads"] * d, \
        expert_width(config)
    return {"q_proj": (h, q), "k_proj": (h, kv), "v_proj": (h, kv), "o_proj": (q, h),
            "gate_proj": (h, width), "up_proj": (h, width), "down_proj": (width, h)}


def lora_params(config: Mapping[str, Any], rank: int, targets: Sequence[str]) -> int:
    """The adapters' weights over every decoder layer (dense Llama blocks)."""
    widths = lora_widths(config)
    return config["num_hidden_layers"] * sum(rank * sum(widths[t]) for t in targets)


def lora_train_flops_per_token(config: Mapping[str, Any], seq_len: int, rank: int,
                               targets: Sequence[str]) -> int:
    return (4 * matmul_params(config) + 6 * lora_params(config, rank, targets)
            + attention_train_flops_per_token(config, seq_len))
