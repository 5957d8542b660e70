"""GLM (THUDM's General Language Model, arXiv 2103.10360) as FlagPerf's glm case trains it:
GLM-Large scoring multiple-choice cloze candidates (``GLMForMultiTokenCloze``).

No library in the images has GLM (transformers has ChatGLM's and GLM-4's decoders, not
GLM-1's blank-infilling encoder), so it is written here, once, in torch, with THUDM/GLM's
module names (its ``GLMModel``, ``GLMTransformer``, ``GLMTransformerLayer``, ``SelfAttention``,
``GLMMLP``; FlagPerf's copy in its ``training/benchmarks/glm/pytorch/model/``), so that GLM's
released weights load by name. What makes it GLM rather than GPT-2 or BERT:

- 2-D positions: every token adds two learnt embeddings, its position (for a blank's span
  tokens: the blank's position in the text) and its position inside the span (0 in the
  text), each table ``max_sequence_length + 1`` rows;
- the attention mask of blank infilling: tokens before ``sep`` (part A, the text with its
  blanks) see all of part A; tokens from ``sep`` on (part B, the spans) see part A and the
  span tokens before them; one [b, 1, s, s] mask for every head, through torch's
  ``scaled_dot_product_attention``;
- Megatron's pre-LayerNorm blocks (LayerNorm, self-attention with query, key and value in
  one projection, residual, LayerNorm, 4 x hidden MLP, residual), GELU's tanh form (GLM's
  ``gelu_impl``), a final LayerNorm, logits against the word embeddings; GLM's
  initialisation (normal 0.02, the output projections 0.02 / sqrt(2 x layers)).

The cloze head scores a candidate by the sum of its tokens' log-probabilities at their span
positions (``logit_mask``), one sequence per candidate; a sample's candidates are scored
side by side and the loss is the cross entropy over them.

GLM's released weights (THUDM/GLM's Megatron state dict, e.g. FlagPerf's
``blocklm-large-blank/200000/mp_rank_00_model_states.pt``) carry the same names less this
module's ``glm.`` prefix (``glm_name``).
"""

from __future__ import annotations

import math
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
    """[batch, length, length] bool, True where a query may attend (SDPA's sense): a key at or
    before the query, or in part A (before the row's ``sep``)."""
    pos = torch.arange(length, device=sep.device)
    return (pos.view(1, 1, -1) <= pos.view(1, -1, 1)) | (pos.view(1, 1, -1) < sep.view(-1, 1, 1))


def linear(fan_in: int, fan_out: int, std: float) -> nn.Linear:
    layer = nn.Linear(fan_in, fan_out)
    nn.init.normal_(layer.weight, std=std)
    nn.init.zeros_(layer.bias)
    return layer


class SelfAttention(nn.Module):
    def __init__(self, config: GLMConfig) -> None:
        super().__init__()
        h, self.heads = config.hidden_size, config.num_attention_heads
        self.query_key_value = linear(h, 3 * h, config.init_std)
        self.dense = linear(h, h, config.init_std / math.sqrt(2 * config.num_layers))
        self.attention_dropout, self.output_dropout = config.dropout, nn.Dropout(config.dropout)

    def forward(self, hidden: torch.Tensor, visible: torch.Tensor) -> torch.Tensor:
        b, s, h = hidden.shape
        q, k, v = self.query_key_value(hidden).view(b, s, 3, self.heads, -1).permute(2, 0, 3, 1, 4)
        out = F.scaled_dot_product_attention(
            q, k, v, attn_mask=visible, dropout_p=self.attention_dropout if self.training else 0.0)
        return self.output_dropout(self.dense(out.transpose(1, 2).reshape(b, s, h)))


class GLMMLP(nn.Module):
    def __init__(self, config: GLMConfig) -> None:
        super().__init__()
        h = config.hidden_size
        self.dense_h_to_4h = linear(h, 4 * h, config.init_std)
        self.dense_4h_to_h = linear(4 * h, h, config.init_std / math.sqrt(2 * config.num_layers))
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        return self.dropout(self.dense_4h_to_h(F.gelu(self.dense_h_to_4h(hidden), approximate="tanh")))


class GLMTransformerLayer(nn.Module):
    def __init__(self, config: GLMConfig) -> None:
        super().__init__()
        h, eps = config.hidden_size, config.layernorm_epsilon
        self.input_layernorm = nn.LayerNorm(h, eps=eps)
        self.attention = SelfAttention(config)
        self.post_attention_layernorm = nn.LayerNorm(h, eps=eps)
        self.mlp = GLMMLP(config)

    def forward(self, hidden: torch.Tensor, visible: torch.Tensor) -> torch.Tensor:
        hidden = hidden + self.attention(self.input_layernorm(hidden), visible)
        return hidden + self.mlp(self.post_attention_layernorm(hidden))


class GLMTransformer(nn.Module):
    """Embedded tokens [b, s, h], positions [b, 2, s], ``sep`` [b] -> final hidden states."""

    def __init__(self, config: GLMConfig) -> None:
        super().__init__()
        h, rows = config.hidden_size, config.max_sequence_length + 1
        self.position_embeddings = nn.Embedding(rows, h)
        self.block_position_embeddings = nn.Embedding(rows, h)
        for table in (self.position_embeddings, self.block_position_embeddings):
            nn.init.normal_(table.weight, std=config.init_std)
        self.embedding_dropout = nn.Dropout(config.dropout)
        self.layers = nn.ModuleList(GLMTransformerLayer(config) for _ in range(config.num_layers))
        self.final_layernorm = nn.LayerNorm(h, eps=config.layernorm_epsilon)

    def forward(self, hidden: torch.Tensor, position_ids: torch.Tensor,
                sep: torch.Tensor) -> torch.Tensor:
        hidden = (hidden + self.position_embeddings(position_ids[:, 0])
                  + self.block_position_embeddings(position_ids[:, 1]))
        hidden = self.embedding_dropout(hidden)
        visible = blank_infilling_mask(sep, hidden.shape[1]).unsqueeze(1)   # every head alike
        for layer in self.layers:
            hidden = layer(hidden, visible)
        return self.final_layernorm(hidden)


class GLMModel(nn.Module):
    """Token ids [b, s], positions [b, 2, s] (position, position in span), ``sep`` [b] ->
    logits [b, s, vocab]."""

    def __init__(self, config: GLMConfig) -> None:
        super().__init__()
        self.config = config
        self.word_embeddings = nn.Embedding(config.vocab_size, config.hidden_size)
        nn.init.normal_(self.word_embeddings.weight, std=config.init_std)
        self.transformer = GLMTransformer(config)

    def forward(self, input_ids: torch.Tensor, position_ids: torch.Tensor,
                sep: torch.Tensor) -> torch.Tensor:
        hidden = self.transformer(self.word_embeddings(input_ids), position_ids, sep)
        return F.linear(hidden, self.word_embeddings.weight)


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


POSITION_TABLES = ("glm.transformer.position_embeddings.weight",
                   "glm.transformer.block_position_embeddings.weight")


def glm_name(name: str) -> str:
    """THUDM/GLM's name of this module's parameter ``name``."""
    return name.removeprefix("glm.")


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


def swap_layer_norms(model: nn.Module, norm_class: type[nn.Module]) -> int:
    """Each ``torch.nn.LayerNorm`` of ``model`` replaced by ``norm_class(shape, eps=...,
    elementwise_affine=...)`` holding the same weight and bias (a vendor's fused layer norm:
    FlagPerf's dcu, metax, iluvatar and nvidia glm folders rebuild GLM around apex's
    FusedLayerNorm); the number replaced."""
    swapped = 0
    for parent in list(model.modules()):
        for name, child in list(parent.named_children()):
            if type(child) is nn.LayerNorm:
                setattr(parent, name, _same_norm(child, norm_class))
                swapped += 1
    return swapped


def _same_norm(norm: nn.LayerNorm, norm_class: type[nn.Module]) -> nn.Module:
    fused = norm_class(norm.normalized_shape, eps=norm.eps,
                       elementwise_affine=norm.elementwise_affine)
    if norm.elementwise_affine:
        fused.load_state_dict(norm.state_dict())
        fused.to(device=norm.weight.device, dtype=norm.weight.dtype)
    return fused
