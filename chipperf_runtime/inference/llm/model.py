"""The llama-shaped model: ``transformers.LlamaForCausalLM`` built from a ``LlamaConfig``.

No weights are downloaded: the model is randomly initialised (transformers' own
initialisation, N(0, initializer_range)) from the case's seed, directly on the device, so an
8B model never passes through host memory. Defaults in configuration.yaml are Llama 3 8B's
published shape; the CI configuration shrinks it.
"""

from __future__ import annotations

from typing import Any, Mapping

import torch

from chipperf_runtime.inference.errors import CaseError
from chipperf_runtime.inference.llm.preset import SHAPE_KEYS

PAD, BOS, EOS = 0, 1, 2


def llama_config(config: Mapping[str, Any]) -> Any:
    from transformers import LlamaConfig

    problems = [f"{k}: must be a whole number >= 1, got {config[k]!r}" for k in SHAPE_KEYS
                if not isinstance(config[k], int) or config[k] < 1]
    if not problems and config["hidden_size"] % config["num_heads"]:
        problems.append("hidden_size must be a multiple of num_heads")
    if not problems and config["num_heads"] % config["num_kv_heads"]:
        problems.append("num_heads must be a multiple of num_kv_heads (grouped-query attention)")
    if problems:
        raise CaseError("configuration problems:\n  " + "\n  ".join(problems))
    return LlamaConfig(
        vocab_size=config["vocab_size"], hidden_size=config["hidden_size"],
        intermediate_size=config["intermediate_size"], num_hidden_layers=config["num_layers"],
        num_attention_heads=config["num_heads"], num_key_value_heads=config["num_kv_heads"],
        max_position_embeddings=config["max_position"],
        rope_parameters={"rope_type": "default", "rope_theta": float(config["rope_theta"])},
        rms_norm_eps=float(config["rms_norm_eps"]), tie_word_embeddings=False,
        pad_token_id=PAD, bos_token_id=BOS, eos_token_id=EOS)


def check_fits(llama: Any, prompt_max: int, output_max: int, tokenizer_vocab: int) -> None:
    """The longest request must fit the context, and every token id the embedding table."""
    need = prompt_max + output_max
    if need > llama.max_position_embeddings:
        raise CaseError(f"a prompt of up to {prompt_max} tokens plus {output_max} output tokens "
                        f"({need}) is longer than the model's context of "
                        f"{llama.max_position_embeddings} tokens (max_position): lower "
                        "prompt_tokens_max or output_tokens_max")
    if tokenizer_vocab > llama.vocab_size:
        raise CaseError(f"the tokenizer has {tokenizer_vocab} tokens, more than the model's "
                        f"vocab_size {llama.vocab_size}: raise vocab_size")


def build(llama: Any, device: torch.device, seed: int) -> Any:
    """fp32 weights from ``seed``, created on ``device``, in eval mode; EOS never stops a
    request (each request runs to its drawn output length)."""
    from transformers import LlamaForCausalLM

    torch.manual_seed(seed)
    with torch.device(device):
        model: Any = LlamaForCausalLM(llama)
    model.generation_config.eos_token_id = None
    model.generation_config.pad_token_id = PAD
    return model.eval()


def parameter_count(model: Any) -> tuple[int, int]:
    """(all parameters, those of the input embedding table)."""
    total = sum(p.numel() for p in model.parameters())
    return total, model.get_input_embeddings().weight.numel()


def flops_per_token(model: Any, mean_context: float) -> float:
    """Forward FLOPs per processed token: 2 per weight of every matmul (all parameters but
    the embedding lookup), plus attention's QK^T and AV, 4 * layers * hidden * context."""
    total, embedding = parameter_count(model)
    c = model.config
    return 2.0 * (total - embedding) + 4.0 * c.num_hidden_layers * c.hidden_size * mean_context
