"""fairseq's ``transformer_wmt_en_de_big_t2t`` (FlagPerf's transformer case) from torch's own
``nn.Transformer``.

No library in the images has this network: transformers' MarianMT, FSMT and BART are
post-LayerNorm, and the t2t variant normalises before each block and once after each stack.
``nn.Transformer(norm_first=True)`` is exactly that (its encoder and decoder stacks end in a
LayerNorm), so chipperf adds only what fairseq puts around it: one embedding table shared by
source, target and the output projection (``share_all_embeddings``), scaled by sqrt(d_model),
fairseq's sinusoidal positions (counted from ``pad + 1``, none learnt), dropout after the sum.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import torch
from torch import nn


@dataclass(frozen=True)
class TransformerConfig:
    vocab_size: int                   # the joined dictionary's symbols (shared by both languages)
    d_model: int = 1024
    heads: int = 16
    ffn: int = 4096
    encoder_layers: int = 6
    decoder_layers: int = 6
    dropout: float = 0.1
    max_positions: int = 1024
    pad_token_id: int = 1             # fairseq's dictionary: <s> 0, <pad> 1, </s> 2, <unk> 3
    eos_token_id: int = 2


def sinusoids(count: int, dim: int, pad: int) -> torch.Tensor:
    """fairseq's SinusoidalPositionalEmbedding table: row ``pad + 1 + i`` is position i
    (sin half, then cos half), row ``pad`` zero."""
    half = dim // 2
    rate = torch.exp(torch.arange(half, dtype=torch.float) * -(math.log(10000.0) / (half - 1)))
    angles = torch.arange(count + pad + 1, dtype=torch.float).unsqueeze(1) * rate.unsqueeze(0)
    table = torch.cat([torch.sin(angles), torch.cos(angles)], dim=1)
    table[pad] = 0
    return table


class TransformerMT(nn.Module):
    """Encoder-decoder over one shared vocabulary; ``forward`` returns ``.logits`` [batch,
    target, vocab] like a transformers model, so the text cases' loop trains it."""

    positions: torch.Tensor

    def __init__(self, config: TransformerConfig) -> None:
        super().__init__()
        self.config = config
        self.embed = nn.Embedding(config.vocab_size, config.d_model, padding_idx=config.pad_token_id)
        nn.init.normal_(self.embed.weight, std=config.d_model ** -0.5)
        with torch.no_grad():
            self.embed.weight[config.pad_token_id].zero_()
        self.register_buffer("positions", sinusoids(config.max_positions, config.d_model,
                                                    config.pad_token_id), persistent=False)
        self.dropout = nn.Dropout(config.dropout)
        self.core = nn.Transformer(config.d_model, config.heads, config.encoder_layers,
                                   config.decoder_layers, config.ffn, config.dropout,
                                   batch_first=True, norm_first=True)

    def embed_tokens(self, ids: torch.Tensor) -> torch.Tensor:
        pad = self.config.pad_token_id
        real = ids.ne(pad)
        places = torch.where(real, torch.cumsum(real, dim=1) + pad, pad)
        x = self.embed(ids) * math.sqrt(self.config.d_model) + self.positions[places]
        return self.dropout(x)

    def encode(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        return self.core.encoder(self.embed_tokens(input_ids),
                                 src_key_padding_mask=attention_mask.eq(0))

    def decode(self, memory: torch.Tensor, attention_mask: torch.Tensor,
               decoder_input_ids: torch.Tensor) -> torch.Tensor:
        width = decoder_input_ids.shape[1]
        causal = nn.Transformer.generate_square_subsequent_mask(width, device=memory.device,
                                                                dtype=memory.dtype)
        out = self.core.decoder(self.embed_tokens(decoder_input_ids), memory, tgt_mask=causal,
                                tgt_is_causal=True, memory_key_padding_mask=attention_mask.eq(0))
        return out @ self.embed.weight.t()

    def forward(self, input_ids: torch.Tensor, decoder_input_ids: torch.Tensor,
                attention_mask: torch.Tensor | None = None) -> Any:
        mask = attention_mask if attention_mask is not None else torch.ones_like(input_ids)
        return SimpleNamespace(logits=self.decode(self.encode(input_ids, mask), mask,
                                                  decoder_input_ids))

    @torch.no_grad()
    def greedy(self, input_ids: torch.Tensor, attention_mask: torch.Tensor,
               max_length: int) -> torch.Tensor:
        """Greedy translations [batch, <= max_length], starting from </s> as fairseq's decoder
        does; a row ends at its first </s> (kept), padding after it."""
        eos, pad = self.config.eos_token_id, self.config.pad_token_id
        memory = self.encode(input_ids, attention_mask)
        out = torch.full((input_ids.shape[0], 1), eos, dtype=torch.long, device=input_ids.device)
        done = torch.zeros(input_ids.shape[0], dtype=torch.bool, device=input_ids.device)
        for _ in range(max_length):
            step = self.decode(memory, attention_mask, out)[:, -1].argmax(-1)
            step = torch.where(done, torch.full_like(step, pad), step)
            out = torch.cat([out, step.unsqueeze(1)], dim=1)
            done |= step.eq(eos)
            if bool(done.all()):
                break
        return out[:, 1:]
