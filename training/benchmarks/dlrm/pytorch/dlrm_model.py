"""DLRM (Naumov et al. 2019, "Deep Learning Recommendation Model for Personalization and
Recommendation Systems", arXiv:1906.00091) with the shapes of NVIDIA DeepLearningExamples'
DLRM, the code FlagPerf's dlrm runs: a bottom MLP over the 13 numerical features
(512-256-128, ReLU), one 128-wide embedding table per categorical feature (``nn.EmbeddingBag``
with sparse gradients, one index per bag), the dot interaction (the pairwise dot products of
the 27 vectors, diagonal excluded, after the bottom MLP's output, zero-padded to a multiple of
8: 480), and a top MLP 1024-1024-512-256-1 (ReLU, the last linear); the loss is the binary
cross-entropy of the click logit.

torchrec would give the embeddings, but its kernels (fbgemm_gpu) do not load beside torch
2.13 (README), so the case is plain torch.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import torch
import torch.nn.functional as F
from torch import Tensor, nn

PRESETS: dict[str, dict[str, Any]] = {
    "full": dict(embedding_dim=128, bottom_mlp_sizes=[512, 256, 128],
                 top_mlp_sizes=[1024, 1024, 512, 256, 1]),
    "tiny": dict(embedding_dim=8, bottom_mlp_sizes=[16, 8], top_mlp_sizes=[32, 16, 1]),
}
# Criteo Terabyte at frequency limit 15 (DLE's default "small" preprocessing): the tables'
# rows, in feature order (README: source). A run reads its own from feature_spec.yaml.
CRITEO_FL15 = [7912889, 33823, 17139, 7339, 20046, 4, 7105, 1382, 63, 5554114, 582469, 245828,
               11, 2209, 10667, 104, 4, 968, 15, 8165896, 2675940, 7156453, 302516, 12022, 97, 35]
NUMERICAL = 13


def mlp(sizes: Sequence[int], last_relu: bool) -> nn.Sequential:
    layers: list[nn.Module] = []
    for i, (a, b) in enumerate(zip(sizes, sizes[1:])):
        layers.append(nn.Linear(a, b))
        if last_relu or i < len(sizes) - 2:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


def interactions(tables: int, dim: int) -> int:
    """The dot interaction's width: bottom output + pairwise products, padded to 8."""
    raw = (tables + 1) * tables // 2 + dim
    return -(-raw // 8) * 8


class DLRM(nn.Module):
    """forward(numerical [B, 13], categorical [B, 26], click [B]) -> BCE (batch mean)."""

    def __init__(self, p: Mapping[str, Any], cardinalities: Sequence[int]) -> None:
        super().__init__()
        dim = p["embedding_dim"]
        self.bottom_mlp = mlp([NUMERICAL, *p["bottom_mlp_sizes"]], last_relu=True)
        self.embeddings = nn.ModuleList(nn.EmbeddingBag(rows, dim, mode="sum", sparse=True)
                                        for rows in cardinalities)
        width = interactions(len(cardinalities), dim)
        self.top_mlp = mlp([width, *p["top_mlp_sizes"]], last_relu=False)
        pairs = torch.tril_indices(len(cardinalities) + 1, len(cardinalities) + 1, offset=-1)
        self.register_buffer("pairs", pairs, persistent=False)
        self.padding = width - pairs.shape[1] - dim

    def logits(self, numerical: Tensor, categorical: Tensor) -> Tensor:
        dense = self.bottom_mlp(numerical)
        vectors = [dense] + [table(categorical[:, i:i + 1]) for i, table in enumerate(self.embeddings)]
        stacked = torch.stack(vectors, dim=1)
        dots = torch.bmm(stacked, stacked.transpose(1, 2))[:, self.pairs[0], self.pairs[1]]
        features = torch.cat([dense, dots, dense.new_zeros(dense.shape[0], self.padding)], dim=1)
        return self.top_mlp(features).squeeze(1)

    def forward(self, numerical: Tensor, categorical: Tensor, click: Tensor) -> Tensor:
        return F.binary_cross_entropy_with_logits(self.logits(numerical, categorical).float(), click)


def dlrm(preset: Mapping[str, Any], cardinalities: Sequence[int]) -> DLRM:
    return DLRM(preset, cardinalities)


def forward_flops(p: Mapping[str, Any], tables: int) -> float:
    """2 x multiply-adds per sample: both MLPs and the interaction's dot products (the
    embedding lookups are memory reads, no FLOPs)."""
    dim = p["embedding_dim"]
    bottom = [NUMERICAL, *p["bottom_mlp_sizes"]]
    top = [interactions(tables, dim), *p["top_mlp_sizes"]]
    macs = sum(a * b for a, b in zip(bottom, bottom[1:])) + sum(a * b for a, b in zip(top, top[1:]))
    return 2.0 * (macs + (tables + 1) * (tables + 1) * dim)
