"""BERT for masked-LM pretraining, in plain PyTorch.

The architecture is the published one (Devlin et al. 2018; Google's ``bert_config.json``):
post-LayerNorm Transformer encoder, learned absolute positions, token types, erf-GELU, and the
MLM head (dense + GELU + LayerNorm, then a decoder tied to the word embeddings plus its own
bias). Parameter names and shapes follow Hugging Face ``BertForMaskedLM`` (no pooler), except
that query/key/value are one fused ``qkv`` linear (same parameter count).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn


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


# The published BERT-large (Google's bert_config.json) and the CI size.
PRESETS = {
    "large": BertConfig(),
    "tiny": BertConfig(vocab_size=1024, hidden_size=128, num_layers=2, num_heads=2,
                       intermediate_size=512, max_position_embeddings=128, hidden_dropout=0.0,
                       attention_dropout=0.0),
}


def matmul_params(cfg: BertConfig) -> int:
    """Weights that take part in a matmul for every token (embedding lookups and biases
    excluded): encoder Q/K/V/O + FFN, the MLM transform and the tied decoder."""
    h, i = cfg.hidden_size, cfg.intermediate_size
    return cfg.num_layers * (4 * h * h + 2 * h * i) + h * h + h * cfg.vocab_size


def train_flops_per_sequence(cfg: BertConfig, seq_len: int) -> float:
    """Forward + backward FLOPs of one sequence: 6*N*s + 12*L*h*s^2 (attention scores and
    their weighted sum), N = ``matmul_params``. The MLM head runs on every position."""
    return 6.0 * matmul_params(cfg) * seq_len + 12.0 * cfg.num_layers * cfg.hidden_size * seq_len**2


class Embeddings(nn.Module):
    def __init__(self, cfg: BertConfig):
        super().__init__()
        self.word = nn.Embedding(cfg.vocab_size, cfg.hidden_size)
        self.position = nn.Embedding(cfg.max_position_embeddings, cfg.hidden_size)
        self.token_type = nn.Embedding(cfg.type_vocab_size, cfg.hidden_size)
        self.norm = nn.LayerNorm(cfg.hidden_size, eps=cfg.layer_norm_eps)
        self.dropout = nn.Dropout(cfg.hidden_dropout)

    def forward(self, input_ids: torch.Tensor, token_type_ids: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(input_ids.shape[1], device=input_ids.device)
        x = self.word(input_ids) + self.position(positions) + self.token_type(token_type_ids)
        return self.dropout(self.norm(x))


class SelfAttention(nn.Module):
    def __init__(self, cfg: BertConfig):
        super().__init__()
        self.num_heads = cfg.num_heads
        self.dropout_p = cfg.attention_dropout
        self.qkv = nn.Linear(cfg.hidden_size, 3 * cfg.hidden_size)
        self.out = nn.Linear(cfg.hidden_size, cfg.hidden_size)

    def forward(self, x: torch.Tensor, key_mask: torch.Tensor) -> torch.Tensor:
        batch, seq, hidden = x.shape
        q, k, v = (t.view(batch, seq, self.num_heads, -1).transpose(1, 2)
                   for t in self.qkv(x).chunk(3, dim=-1))
        ctx = F.scaled_dot_product_attention(
            q, k, v, attn_mask=key_mask, dropout_p=self.dropout_p if self.training else 0.0)
        return self.out(ctx.transpose(1, 2).reshape(batch, seq, hidden))


class EncoderLayer(nn.Module):
    def __init__(self, cfg: BertConfig):
        super().__init__()
        self.attention = SelfAttention(cfg)
        self.attention_norm = nn.LayerNorm(cfg.hidden_size, eps=cfg.layer_norm_eps)
        self.intermediate = nn.Linear(cfg.hidden_size, cfg.intermediate_size)
        self.output = nn.Linear(cfg.intermediate_size, cfg.hidden_size)
        self.output_norm = nn.LayerNorm(cfg.hidden_size, eps=cfg.layer_norm_eps)
        self.dropout = nn.Dropout(cfg.hidden_dropout)

    def forward(self, x: torch.Tensor, key_mask: torch.Tensor) -> torch.Tensor:
        x = self.attention_norm(x + self.dropout(self.attention(x, key_mask)))
        ffn = self.output(F.gelu(self.intermediate(x)))
        return self.output_norm(x + self.dropout(ffn))


class MLMHead(nn.Module):
    def __init__(self, cfg: BertConfig, word_embeddings: nn.Embedding):
        super().__init__()
        self.transform = nn.Linear(cfg.hidden_size, cfg.hidden_size)
        self.norm = nn.LayerNorm(cfg.hidden_size, eps=cfg.layer_norm_eps)
        self.word_embeddings = word_embeddings  # tied decoder weight (not a second copy)
        self.bias = nn.Parameter(torch.zeros(cfg.vocab_size))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.norm(F.gelu(self.transform(x)))
        return F.linear(x, self.word_embeddings.weight, self.bias)


class BertForMaskedLM(nn.Module):
    def __init__(self, cfg: BertConfig):
        super().__init__()
        self.cfg = cfg
        self.embeddings = Embeddings(cfg)
        self.layers = nn.ModuleList(EncoderLayer(cfg) for _ in range(cfg.num_layers))
        self.mlm = MLMHead(cfg, self.embeddings.word)
        self.apply(self._init_weights)

    def _init_weights(self, module: nn.Module) -> None:
        std = self.cfg.initializer_range
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, mean=0.0, std=std)
        if isinstance(module, nn.Linear) and module.bias is not None:
            nn.init.zeros_(module.bias)

    def forward(self, input_ids: torch.Tensor, token_type_ids: torch.Tensor,
                attention_mask: torch.Tensor) -> torch.Tensor:
        """Logits [batch, seq, vocab]; ``attention_mask`` is 1 for real tokens, 0 for padding."""
        key_mask = attention_mask[:, None, None, :].bool()
        x = self.embeddings(input_ids, token_type_ids)
        for layer in self.layers:
            x = layer(x, key_mask)
        return self.mlm(x)


def mlm_loss(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Mean cross entropy over the masked positions (label -100 elsewhere)."""
    return F.cross_entropy(logits.view(-1, logits.shape[-1]).float(), labels.view(-1),
                           ignore_index=-100)


def mlm_correct(logits: torch.Tensor, labels: torch.Tensor) -> tuple[int, int]:
    """(correct predictions, masked positions) of one batch."""
    chosen = labels != -100
    correct = (logits.argmax(dim=-1) == labels) & chosen
    return int(correct.sum()), int(chosen.sum())


def count_parameters(model: nn.Module) -> int:
    """Distinct parameters (the tied decoder weight counts once)."""
    return sum(p.numel() for p in model.parameters())

