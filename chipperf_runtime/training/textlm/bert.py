"""BERT as numbers, shared by the bert/pytorch and bert/paddle cases: configurations, the
parameter count and the training FLOPs from the shapes alone (no framework import, so
configuration errors come before one loads).

The architecture is the published one (Devlin et al. 2018; Google's ``bert_config.json``):
post-LayerNorm encoder, learned absolute positions, 2 token types, and the MLM head (dense +
GELU + LayerNorm, then a decoder tied to the word embeddings plus its own bias); no pooler and
no next-sentence head.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from chipperf_runtime.training.driver import Config
from chipperf_runtime.training.textlm.checks import (
    count_problems,
    dtype_problems,
    raise_problems,
    size_problems,
)


@dataclass(frozen=True)
class BertConfig:
    vocab_size: int = 30522
    hidden_size: int = 1024
    num_layers: int = 24
    num_heads: int = 16
    intermediate_size: int = 4096
    max_position_embeddings: int = 512
    type_vocab_size: int = 2
    hidden_dropout: float = 0.1
    attention_dropout: float = 0.1
    layer_norm_eps: float = 1e-12
    initializer_range: float = 0.02

    def problems(self) -> list[str]:
        out = [f"{name} must be >= 1" for name in ("vocab_size", "hidden_size", "num_layers",
                                                   "num_heads", "intermediate_size")
               if getattr(self, name) < 1]
        if self.num_heads >= 1 and self.hidden_size % self.num_heads:
            out.append(f"hidden_size {self.hidden_size} is not a multiple of "
                       f"num_heads {self.num_heads}")
        return out


# The published BERT-large (Google's bert_config.json) and the CI size.
PRESETS = {
    "large": BertConfig(),
    "tiny": BertConfig(vocab_size=1024, hidden_size=128, num_layers=2, num_heads=2,
                       intermediate_size=512, max_position_embeddings=128, hidden_dropout=0.0,
                       attention_dropout=0.0),
}


def model_config(cfg: Config, dtypes: Sequence[str]) -> BertConfig:
    """The architecture of ``model_size``; raises ConfigError with every config problem."""
    raise_problems(size_problems(cfg, PRESETS, "target_mlm_accuracy")
                   + dtype_problems(cfg, dtypes)
                   + count_problems(cfg, ("global_batch_size", "max_steps", "eval_every_steps")))
    return PRESETS[cfg.model_size]


def parameter_count(cfg: BertConfig) -> int:
    """Parameters from the shapes alone (the tied decoder weight counts once)."""
    h, i, v = cfg.hidden_size, cfg.intermediate_size, cfg.vocab_size
    embeddings = (v + cfg.max_position_embeddings + cfg.type_vocab_size) * h + 2 * h
    layer = 4 * (h * h + h) + (h * i + i) + (i * h + h) + 2 * 2 * h
    mlm_head = (h * h + h) + 2 * h + v
    return embeddings + cfg.num_layers * layer + mlm_head


def matmul_params(cfg: BertConfig) -> int:
    """Weights that take part in a matmul for every token (embedding lookups and biases
    excluded): encoder Q/K/V/O + FFN, the MLM transform and the tied decoder."""
    h, i = cfg.hidden_size, cfg.intermediate_size
    return cfg.num_layers * (4 * h * h + 2 * h * i) + h * h + h * cfg.vocab_size


def train_flops_per_sequence(cfg: BertConfig, seq_len: int) -> float:
    """Forward + backward FLOPs of one sequence: 6*N*s + 12*L*h*s^2 (attention scores and
    their weighted sum), N = ``matmul_params``. The MLM head runs on every position."""
    return 6.0 * matmul_params(cfg) * seq_len + attention_train_flops_per_sequence(cfg, seq_len)


def attention_train_flops_per_sequence(cfg: BertConfig, seq_len: int) -> float:
    """The attention term of ``train_flops_per_sequence``: 12*L*h*s^2, counted whole (BERT's
    encoder attends both ways: no causal half)."""
    return 12.0 * cfg.num_layers * cfg.hidden_size * seq_len**2
