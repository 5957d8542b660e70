"""dlrm / PyTorch: DLRM (DLE's shapes, ``dlrm_model``; plain torch, README: why not torchrec)
trained on Criteo click logs in DLE's split-binary layout to FlagPerf's AUC target, DDP under
torchrun: FlagPerf's dlrm. The loop, DDP and FINISHED are ``lossloop.case``'s; the optimiser
is DLE's plain SGD (sparse embedding gradients)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

import torch
from dlrm_data import CriteoData, open_criteo
from dlrm_model import DLRM, PRESETS, dlrm, forward_flops
from torch import nn

from chipperf_runtime.training.driver import Config, run_case
from chipperf_runtime.training.driver.torchdist import all_reduce_sum
from chipperf_runtime.training.lossloop.case import LossCase, main
from chipperf_runtime.training.lossloop.data import CaseData
from chipperf_runtime.training.lossloop.train import Batch, Loop, autocast

CASE_DIR = Path(__file__).resolve().parent
AUC_BINS = 10000


def open_data(data_dir: Path, cfg: Config, preset: Mapping[str, Any]) -> CriteoData:
    return open_criteo(data_dir, cfg.train_split, cfg.eval_split)


def build(preset: Mapping[str, Any], data: CaseData) -> DLRM:
    assert isinstance(data, CriteoData)
    return dlrm(preset, data.cardinalities)


def flops(preset: Mapping[str, Any], data: CaseData) -> float:
    assert isinstance(data, CriteoData)
    return forward_flops(preset, len(data.cardinalities))


def sgd(model: nn.Module, cfg: Config, fused: bool) -> torch.optim.Optimizer:
    """DLE's optimiser: plain SGD on every parameter (the embeddings' gradients sparse)."""
    return torch.optim.SGD(model.parameters(), lr=cfg.learning_rate)


def auc_from_histograms(positive: Sequence[float], negative: Sequence[float]) -> float:
    """ROC AUC of scores binned in [0, 1]: the chance a positive outscores a negative, ties
    (the same bin) counting half."""
    below, area = 0.0, 0.0
    for pos, neg in zip(positive, negative):
        area += pos * (below + neg / 2)
        below += neg
    total = sum(positive) * sum(negative)
    return area / total if total else float("nan")


def auc(net: nn.Module, batches: Sequence[Batch], loop: Loop) -> float:
    """AUC of the click probability over every rank's eval share, from per-rank histograms of
    ``AUC_BINS`` bins summed over the ranks (exact up to the bin width)."""
    counts = torch.zeros(2, AUC_BINS, dtype=torch.float64, device=loop.device)
    for numerical, categorical, click in batches:
        with autocast(loop):
            prob = torch.sigmoid(net.logits(numerical, categorical).float())  # type: ignore[operator]
        bins = (prob * AUC_BINS).long().clamp(max=AUC_BINS - 1)
        counts[0].index_add_(0, bins, click.double())
        counts[1].index_add_(0, bins, 1.0 - click.double())
    summed = all_reduce_sum(counts.flatten().tolist(), loop.device)
    return auc_from_histograms(summed[:AUC_BINS], summed[AUC_BINS:])


CASE = LossCase(presets=PRESETS, build=build, open_data=open_data, forward_flops=flops,
                metric="auc", higher_is_better=True, evaluate=auc, shuffle=False, optimizer=sgd)

if __name__ == "__main__":
    run_case(lambda: main("dlrm", CASE_DIR, CASE), quick_exit=True)
