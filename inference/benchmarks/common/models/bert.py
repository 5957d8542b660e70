"""BERT encoder with a masked-LM head (Devlin et al., 2018), written out in plain PyTorch.

Module names follow Hugging Face's ``BertForMaskedLM`` (``bert.embeddings.word_embeddings``,
``bert.encoder.layer.N.attention.self.query``, ... ``cls.predictions.decoder``), so its
state dict (e.g. ``bert-large-uncased``, saved with ``torch.save``) loads as a checkpoint.
The decoder shares its weight with the word embeddings, as in BERT.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn
from torch.nn import functional as F


@dataclass(frozen=True)
class BertShape:
    vocab_size: int = 30522
    hidden_size: int = 1024
    num_layers: int = 24
    num_heads: int = 16
    intermediate_size: int = 4096
    max_position: int = 512
    type_vocab_size: int = 2
    layer_norm_eps: float = 1e-12


class Embeddings(nn.Module):
    def __init__(self, s: BertShape) -> None:
        super().__init__()
        self.word_embeddings = nn.Embedding(s.vocab_size, s.hidden_size)
        self.position_embeddings = nn.Embedding(s.max_position, s.hidden_size)
        self.token_type_embeddings = nn.Embedding(s.type_vocab_size, s.hidden_size)
        self.LayerNorm = nn.LayerNorm(s.hidden_size, eps=s.layer_norm_eps)

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(input_ids.shape[1], device=input_ids.device)
        x = self.word_embeddings(input_ids) + self.position_embeddings(positions)[None]
        return self.LayerNorm(x + self.token_type_embeddings.weight[0])


class SelfAttention(nn.Module):
    def __init__(self, s: BertShape) -> None:
        super().__init__()
        self.heads = s.num_heads
        self.query = nn.Linear(s.hidden_size, s.hidden_size)
        self.key = nn.Linear(s.hidden_size, s.hidden_size)
        self.value = nn.Linear(s.hidden_size, s.hidden_size)

    def _split(self, x: torch.Tensor) -> torch.Tensor:
        b, n, h = x.shape
        return x.view(b, n, self.heads, h // self.heads).transpose(1, 2)

    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        q, k, v = self._split(self.query(x)), self._split(self.key(x)), self._split(self.value(x))
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
        return y.transpose(1, 2).reshape(x.shape)


class DenseNorm(nn.Module):
    """``LayerNorm(x + dense(h))``: HF's BertSelfOutput and BertOutput."""

    def __init__(self, d_in: int, s: BertShape) -> None:
        super().__init__()
        self.dense = nn.Linear(d_in, s.hidden_size)
        self.LayerNorm = nn.LayerNorm(s.hidden_size, eps=s.layer_norm_eps)

    def forward(self, h: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        return self.LayerNorm(x + self.dense(h))


class Attention(nn.Module):
    def __init__(self, s: BertShape) -> None:
        super().__init__()
        self.self = SelfAttention(s)
        self.output = DenseNorm(s.hidden_size, s)

    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        return self.output(self.self(x, bias), x)


class Intermediate(nn.Module):
    def __init__(self, s: BertShape) -> None:
        super().__init__()
        self.dense = nn.Linear(s.hidden_size, s.intermediate_size)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(self.dense(x))


class Layer(nn.Module):
    def __init__(self, s: BertShape) -> None:
        super().__init__()
        self.attention = Attention(s)
        self.intermediate = Intermediate(s)
        self.output = DenseNorm(s.intermediate_size, s)

    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        x = self.attention(x, bias)
        return self.output(self.intermediate(x), x)


class Encoder(nn.Module):
    def __init__(self, s: BertShape) -> None:
        super().__init__()
        self.layer = nn.ModuleList(Layer(s) for _ in range(s.num_layers))

    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        for layer in self.layer:
            x = layer(x, bias)
        return x


class Bert(nn.Module):
    def __init__(self, s: BertShape) -> None:
        super().__init__()
        self.embeddings = Embeddings(s)
        self.encoder = Encoder(s)


class Transform(nn.Module):
    def __init__(self, s: BertShape) -> None:
        super().__init__()
        self.dense = nn.Linear(s.hidden_size, s.hidden_size)
        self.LayerNorm = nn.LayerNorm(s.hidden_size, eps=s.layer_norm_eps)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.LayerNorm(F.gelu(self.dense(x)))


class Predictions(nn.Module):
    def __init__(self, s: BertShape, embeddings: nn.Embedding) -> None:
        super().__init__()
        self.transform = Transform(s)
        self.decoder = nn.Linear(s.hidden_size, s.vocab_size, bias=False)
        self.decoder.weight = embeddings.weight
        self.bias = nn.Parameter(torch.zeros(s.vocab_size))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.decoder(self.transform(x)) + self.bias


class MLMHead(nn.Module):
    def __init__(self, s: BertShape, embeddings: nn.Embedding) -> None:
        super().__init__()
        self.predictions = Predictions(s, embeddings)


class BertForMaskedLM(nn.Module):
    """``(input_ids [B,S] int64, attention_mask [B,S] int64) -> logits [B,S,vocab]``."""

    def __init__(self, shape: BertShape) -> None:
        super().__init__()
        self.shape = shape
        self.bert = Bert(shape)
        self.cls = MLMHead(shape, self.bert.embeddings.word_embeddings)
        self.apply(_init_weights)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        x = self.bert.embeddings(input_ids)
        # Additive key mask: 0 where attended, a large negative where padded.
        bias = (1.0 - attention_mask[:, None, None, :].to(x.dtype)) * -10000.0
        return self.cls.predictions(self.bert.encoder(x, bias))


def _init_weights(module: nn.Module) -> None:
    """BERT's initialisation: N(0, 0.02) weights, zero biases, unit LayerNorm."""
    if isinstance(module, (nn.Linear, nn.Embedding)):
        nn.init.normal_(module.weight, std=0.02)
    if isinstance(module, nn.Linear) and module.bias is not None:
        nn.init.zeros_(module.bias)
    if isinstance(module, nn.LayerNorm):
        nn.init.ones_(module.weight)
        nn.init.zeros_(module.bias)
