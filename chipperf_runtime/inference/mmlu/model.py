"""The MMLU cases' model and tokenizer: a causal LM read from local files only.

``<data_dir>/<weight_dir>`` is a Hugging Face model folder (``config.json``, safetensors or
``pytorch_model*.bin`` weights, the tokenizer's files), read with transformers'
``AutoModelForCausalLM`` / ``AutoTokenizer`` and ``local_files_only=True``: nothing comes from
the hub at run time. ``SHAPES`` are the four models' published shapes (Llama-architecture
decoders; see ``full_size_config``), used to check full-size parameter counts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from chipperf_runtime.inference.errors import CaseError

# model -> LlamaConfig keyword arguments of its published shape
SHAPES: dict[str, dict[str, Any]] = {
    # Llama 2 7B (meta-llama/Llama-2-7b-hf config.json)
    "llama2_7b_mmlu": {"vocab_size": 32000, "hidden_size": 4096, "intermediate_size": 11008,
                       "num_hidden_layers": 32, "num_attention_heads": 32,
                       "num_key_value_heads": 32, "max_position_embeddings": 4096},
    # Llama 3 8B (meta-llama/Meta-Llama-3-8B config.json): grouped-query attention, 8 kv heads
    "llama3_8b_mmlu": {"vocab_size": 128256, "hidden_size": 4096, "intermediate_size": 14336,
                       "num_hidden_layers": 32, "num_attention_heads": 32,
                       "num_key_value_heads": 8, "max_position_embeddings": 8192},
    # DeepSeek LLM 7B base (deepseek-ai/deepseek-llm-7b-base config.json): 30 layers
    "deepseek_7b_mmlu": {"vocab_size": 102400, "hidden_size": 4096, "intermediate_size": 11008,
                         "num_hidden_layers": 30, "num_attention_heads": 32,
                         "num_key_value_heads": 32, "max_position_embeddings": 4096},
    # Aquila 7B (FlagAI's aquila-7b config.json: dim 4096, multiple_of 256 -> FFN 11008,
    # 32 heads, 32 layers, vocab 100008, max_seq_len 2048): LLaMA's architecture
    "Aquila_7b_mmlu": {"vocab_size": 100008, "hidden_size": 4096, "intermediate_size": 11008,
                       "num_hidden_layers": 32, "num_attention_heads": 32,
                       "num_key_value_heads": 32, "max_position_embeddings": 2048},
}


def full_size_config(model: str) -> Any:
    from transformers import LlamaConfig

    return LlamaConfig(**SHAPES[model], tie_word_embeddings=False)


def folder(data_dir: str, weight_dir: str) -> Path:
    path = Path(data_dir) / weight_dir
    if not (path / "config.json").is_file():
        raise CaseError(f"model folder {path} has no config.json: put the model's Hugging Face "
                        "files (config.json, weights, tokenizer) there, or set weight_dir (CI: "
                        "inference/benchmarks/llama3_8b_mmlu/pytorch/prepare_mmlu.py writes a "
                        "tiny one)")
    return path


def load_tokenizer(path: Path, trust_remote_code: bool) -> Any:
    from transformers import AutoTokenizer

    try:
        return AutoTokenizer.from_pretrained(str(path), local_files_only=True,
                                             trust_remote_code=trust_remote_code)
    except (OSError, ValueError) as exc:
        raise CaseError(f"no tokenizer could be read from {path}: {exc}: put the model's "
                        "tokenizer files (tokenizer.json or tokenizer.model) in the folder") from exc


def load_model(path: Path, trust_remote_code: bool) -> Any:
    """fp32 weights on the host, in eval mode (the engine casts and moves its own copy)."""
    import torch
    from transformers import AutoModelForCausalLM

    try:
        model = AutoModelForCausalLM.from_pretrained(str(path), local_files_only=True,
                                                     trust_remote_code=trust_remote_code,
                                                     dtype=torch.float32)
    except (OSError, ValueError) as exc:
        raise CaseError(f"the model in {path} could not be loaded: {exc}: give a Hugging Face "
                        "model folder (a model with its own code needs trust_remote_code: "
                        "true)") from exc
    return model.eval().requires_grad_(False)
