"""GLM (THUDM's General Language Model, arXiv 2103.10360) as FlagPerf's glm case trains it:
GLM-Large scoring multiple-choice cloze candidates (``GLMForMultiTokenCloze``).

No library in the images has GLM (transformers has ChatGLM's and GLM-4's decoders, not
GLM-1's blank-infilling encoder), so it is built here from torch's own pieces. What makes it
GLM rather than GPT-2 or BERT, each as THUDM/GLM (and FlagPerf's copy of it) does it:

- 2-D positions: every token adds two learnt embeddings, its position (for a blank's span
  tokens: the blank's position in the text) and its position inside the span (0 in the
  text), each table ``max_sequence_length + 1`` rows;
- the attention mask of blank infilling: tokens before ``sep`` (part A, the text with its
  blanks) see all of part A; tokens from ``sep`` on (part B, the spans) see part A and the
  span tokens before them;
- pre-LayerNorm blocks (``nn.TransformerEncoderLayer(norm_first=True)``: LayerNorm,
  self-attention, residual, LayerNorm, 4 x hidden MLP, residual; Megatron's layout and
  parameter count), GELU's tanh form, a final LayerNorm, logits against the word embeddings.

The cloze head scores a candidate by the sum of its tokens' log-probabilities at their span
positions (``logit_mask``), one sequence per candidate; a sample's candidates are scored
side by side and the loss is the cross entropy over them.

GLM's released weights (THUDM/GLM's Megatron state dict, e.g. FlagPerf's
``blocklm-large-blank/200000/mp_rank_00_model_states.pt``) load by name (``glm_name``):
torch's ``in_proj`` is GLM's ``query_key_value`` (query, key and value stacked in that order),
``norm1``/``norm2`` its input and post-attention LayerNorms, ``linear1``/``linear2`` its MLP.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Mapping

import torch
import torch.nn.functional as F
from torch import nn

NOT_A_CHOICE = -1e9    # the score of a padding candidate (FlagPerf's evaluation: -1e9)


@dataclass(frozen=True)
class GLMConfig:
    vocab_size: int = 30592           # BERT's uncased WordPiece + GLM's span tokens, padded
    hidden_size: int = 1024
    num_layers: int = 24
    num_attention_heads: int = 16
    max_sequence_length: int = 512
    dropout: float = 0.1              # GLM's hidden and attention dropout (both 0.1)
    layernorm_epsilon: float = 1e-5
    init_std: float = 0.02


def blank_infilling_mask(sep: torch.Tensor, length: int) -> torch.Tensor:
    """[batch, length, length] bool, True where a query may NOT attend: a key is visible when
    it is at or before the query, or in part A (before the row's ``sep``)."""
    pos = torch.arange(length, device=sep.device)
    visible = (pos.view(1, 1, -1) <= pos.view(1, -1, 1)) | (pos.view(1, 1, -1) < sep.view(-1, 1, 1))
    return ~visible


class GLMModel(nn.Module):
    """Token ids [b, s], positions [b, 2, s] (position, position in span), ``sep`` [b] ->
    logits [b, s, vocab]."""

    def __init__(self, config: GLMConfig) -> None:
        super().__init__()
        self.config = config
        h, rows = config.hidden_size, config.max_sequence_length + 1
        self.word_embeddings = nn.Embedding(config.vocab_size, h)
        self.position_embeddings = nn.Embedding(rows, h)
        self.block_position_embeddings = nn.Embedding(rows, h)
        self.embedding_dropout = nn.Dropout(config.dropout)
        gelu = functools.partial(F.gelu, approximate="tanh")
        self.layers = nn.ModuleList(
            nn.TransformerEncoderLayer(h, config.num_attention_heads, 4 * h, config.dropout,
                                       activation=gelu, layer_norm_eps=config.layernorm_epsilon,
                                       batch_first=True, norm_first=True)
            for _ in range(config.num_layers))
        self.final_layernorm = nn.LayerNorm(h, eps=config.layernorm_epsilon)
        for table in (self.word_embeddings, self.position_embeddings, self.block_position_embeddings):
            nn.init.normal_(table.weight, std=config.init_std)

    def forward(self, input_ids: torch.Tensor, position_ids: torch.Tensor,
                sep: torch.Tensor) -> torch.Tensor:
        hidden = (self.word_embeddings(input_ids) + self.position_embeddings(position_ids[:, 0])
                  + self.block_position_embeddings(position_ids[:, 1]))
        hidden = self.embedding_dropout(hidden)
        mask = blank_infilling_mask(sep, input_ids.shape[1])
        mask = mask.repeat_interleave(self.config.num_attention_heads, dim=0)
        for layer in self.layers:
            hidden = layer(hidden, src_mask=mask)
        return F.linear(self.final_layernorm(hidden), self.word_embeddings.weight)


class GLMForMultiTokenCloze(nn.Module):
    """[batch, choices, ...] candidates -> ``.logits`` [batch, choices]: each candidate's summed
    log-probability of its target tokens at the ``logit_mask`` positions; a padding candidate
    (``choice_mask`` 0) scores ``NOT_A_CHOICE``."""

    def __init__(self, config: GLMConfig) -> None:
        super().__init__()
        self.config = config
        self.glm = GLMModel(config)

    def get_input_embeddings(self) -> nn.Embedding:
        return self.glm.word_embeddings

    def forward(self, input_ids: torch.Tensor, position_ids: torch.Tensor, sep: torch.Tensor,
                target_ids: torch.Tensor, logit_mask: torch.Tensor,
                choice_mask: torch.Tensor) -> SimpleNamespace:
        batch, choices, length = input_ids.shape
        logits = self.glm(input_ids.reshape(-1, length), position_ids.reshape(-1, 2, length),
                          sep.reshape(-1)).float()
        targets = target_ids.reshape(-1, length, 1)
        picked = logits.gather(-1, targets).squeeze(-1) - torch.logsumexp(logits, dim=-1)
        scores = (picked * logit_mask.reshape(-1, length)).sum(dim=-1).view(batch, choices)
        return SimpleNamespace(logits=scores.masked_fill(choice_mask == 0, NOT_A_CHOICE))


# this module's parameter names -> THUDM/GLM's (first match wins)
GLM_NAMES = (
    (r"^glm\.word_embeddings\.", "word_embeddings."),
    (r"^glm\.layers\.(\d+)\.self_attn\.in_proj_(weight|bias)$",
     r"transformer.layers.\1.attention.query_key_value.\2"),
    (r"^glm\.layers\.(\d+)\.self_attn\.out_proj\.", r"transformer.layers.\1.attention.dense."),
    (r"^glm\.layers\.(\d+)\.norm1\.", r"transformer.layers.\1.input_layernorm."),
    (r"^glm\.layers\.(\d+)\.norm2\.", r"transformer.layers.\1.post_attention_layernorm."),
    (r"^glm\.layers\.(\d+)\.linear1\.", r"transformer.layers.\1.mlp.dense_h_to_4h."),
    (r"^glm\.layers\.(\d+)\.linear2\.", r"transformer.layers.\1.mlp.dense_4h_to_h."),
    (r"^glm\.", "transformer."),          # the position tables and the final LayerNorm
)
POSITION_TABLES = ("glm.position_embeddings.weight", "glm.block_position_embeddings.weight")


def glm_name(name: str) -> str:
    """THUDM/GLM's name of this module's parameter ``name``."""
    for pattern, replacement in GLM_NAMES:
        renamed, count = re.subn(pattern, replacement, name)
        if count:
            return renamed
    return name


def shorter_table(given: torch.Tensor, own: torch.Tensor) -> bool:
    return given.shape[0] < own.shape[0] and given.shape[1:] == own.shape[1:]


def load_glm_state(net: GLMForMultiTokenCloze, state: Mapping[str, torch.Tensor]) -> list[str]:
    """GLM's state dict (its names) into ``net``; the problems (a missing, unexpected or
    misshapen tensor), every one, and nothing loaded when there are any. A position table
    with fewer rows fills the first rows (GLM's ``max_sequence_length + 1`` extension, as
    FlagPerf's trainer does)."""
    own = net.state_dict()
    loaded, problems = {}, []
    for name, tensor in own.items():
        given = state.get(glm_name(name))
        if given is None:
            problems.append(f"{glm_name(name)} is missing")
        elif name in POSITION_TABLES and shorter_table(given, tensor):
            loaded[name] = torch.cat([given.to(tensor.dtype), tensor[given.shape[0]:]])
        elif given.shape != tensor.shape:
            problems.append(f"{glm_name(name)} has shape {tuple(given.shape)}, the model "
                            f"{tuple(tensor.shape)}")
        else:
            loaded[name] = given
    known = {glm_name(n) for n in own}
    problems += [f"{k} is not a tensor of this model" for k in sorted(set(state) - known)]
    if not problems:
        net.load_state_dict(loaded, strict=True)
    return problems
