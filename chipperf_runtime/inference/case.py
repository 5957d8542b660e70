"""What a case says about itself: its model, its data and which outputs are scored."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Protocol, Sequence

import torch
from torch import nn


@dataclass(frozen=True)
class Batch:
    """Model inputs (host tensors, float32 or int64) and the targets scored against."""

    inputs: tuple[torch.Tensor, ...]
    targets: torch.Tensor


class Dataset(Protocol):
    def __len__(self) -> int: ...

    def batch(self, indices: Sequence[int]) -> Batch:
        """Read and pre-process these items on the host (decode, resize, tokenise ...)."""

    def describe(self) -> dict: ...


def top1(scored_rows: torch.Tensor) -> torch.Tensor:
    """The default decision: the top-1 class of every row (item, token, query)."""
    return scored_rows.argmax(dim=-1)


def equal(decisions: torch.Tensor, reference: torch.Tensor) -> torch.Tensor:
    """The default agreement: the same decision (class, in/out)."""
    return decisions == reference


@dataclass(frozen=True)
class Case:
    """One inference case. The runner does everything else (engines, scenarios, accuracy)."""

    model: str
    input_names: tuple[str, ...]
    # (configuration, data dir, item cap) -> data set
    load_data: Callable[[Mapping[str, Any], str, "int | None"], Dataset]
    # (configuration, data set) -> model with fresh weights (the runner seeds torch first)
    build_model: Callable[[Mapping[str, Any], Any], nn.Module]
    # (logits, targets) -> (scored logit rows [N, C], their labels [N])
    scored: Callable[[torch.Tensor, torch.Tensor], "tuple[torch.Tensor, torch.Tensor]"]
    # checkpoint keys the model does not use and that may be ignored (prefixes)
    ignorable_keys: tuple[str, ...] = ()
    # engine output -> the decisions a user reads (host-side post-processing of every query,
    # and what is compared with the reference's and the labels): top-1 class by default;
    # a mask case decides in/out per pixel, an image case the 8-bit value per channel
    decide: Callable[[torch.Tensor], torch.Tensor] = top1
    # the metric without a checkpoint: share of decisions that agree with the fp32 reference's
    agreement_metric: str = "top1_agreement"
    # (decisions, reference decisions) -> which agree (the same by default; an image case
    # may accept a level or two of 8-bit difference)
    agree: Callable[[torch.Tensor, torch.Tensor], torch.Tensor] = equal
    # False: the data has no labels, so the metric is the agreement even with a checkpoint
    labelled: bool = True
    # (configuration) -> the timed host-side post-processing of every query when it is more
    # than ``decide`` (a detector's NMS at the configured thresholds); None: ``decide``
    postprocess: Callable[[Mapping[str, Any]], Callable[[torch.Tensor], torch.Tensor]] | None = None
    # (EVALUATE record, engine, fp32 reference, data, items, configuration, device) -> the
    # record with the case's own metric (a detector's COCO mAP); None: the runner's metric
    evaluation: Callable[..., dict] | None = None
