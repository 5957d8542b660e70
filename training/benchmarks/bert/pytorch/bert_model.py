"""BERT for masked-LM pretraining, in plain PyTorch.

The architecture is the published one (Devlin et al. 2018; Google's ``bert_config.json``):
post-LayerNorm Transformer encoder, learned absolute positions, token types, erf-GELU, and the
MLM head (dense + GELU + LayerNorm, then a decoder tied to the word embeddings plus its own
bias). Parameter names and shapes follow Hugging Face ``BertForMaskedLM`` (no pooler), except
that query/key/value are one fused ``qkv`` linear (same parameter count). The architecture's
numbers (presets, parameter count, FLOPs formula) are shared with the bert/paddle case in
``textlm.bert``.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from textlm.bert import BertConfig
from torch import nn


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

