"""The detection loop: timed compute regions, COCO mAP (of boxes, and of masks for instance
segmentation) after every eval_every_epochs, early stop when every target is reached, and a
non-finite loss ending the case at its step (the epoch loop itself: ``driver.epochs``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
import torch.distributed as tdist
from torch import nn

from chipperf_runtime.training.detection.cocomap import Detection, coco_map, coco_results
from chipperf_runtime.training.driver import Config, Driver, Metric
from chipperf_runtime.training.driver.epochs import Steps, run_epochs
from chipperf_runtime.training.driver.torchstep import autocast, backward_and_step, finite_loss

METRIC_NAMES = {"bbox": "mAP", "segm": "mask_mAP"}    # COCOeval's iouType -> metric name


@dataclass(frozen=True)
class Goal:
    """The mAP targets, per COCOeval iouType ("bbox", and "segm" for masks): converged when
    every one is reached (FlagPerf's mask_rcnn: box and mask mAP both)."""

    targets: Mapping[str, float]

    def metrics(self, maps: Mapping[str, float]) -> list[Metric]:
        return [Metric(METRIC_NAMES[kind], maps.get(kind, float("nan")), target)
                for kind, target in self.targets.items()]

    def headline(self, maps: Mapping[str, float]) -> Metric:
        """The first metric short of its target, else the last: reached() is all reached."""
        metrics = self.metrics(maps)
        return next((m for m in metrics if not m.reached()), metrics[-1])

    def reached(self, maps: Mapping[str, float]) -> bool:
        return self.headline(maps).reached()


@dataclass
class Loop:
    """What the loop needs besides the driver (built by ``detection.case.build_loop``)."""

    model: nn.Module                   # DDP-wrapped when distributed
    net: nn.Module                     # the detector itself (evaluation)
    optimizer: torch.optim.Optimizer
    scheduler: torch.optim.lr_scheduler.LRScheduler
    train_loader: torch.utils.data.DataLoader
    val_loader: torch.utils.data.DataLoader
    val_annotations: Path
    device: torch.device
    dtype: str
    scaler: Any = None                 # torch.amp.GradScaler for fp16
    clip_grad_norm: float | None = None
    iou_types: tuple[str, ...] = ("bbox",)   # what evaluate() scores (COCOeval iouTypes)


@dataclass
class Progress(Steps):
    maps: dict[str, float] = field(default_factory=dict)   # iouType -> last mAP
    history: list[dict[str, float]] = field(default_factory=list)


def lr_lambda(cfg: Config, steps_per_epoch: int) -> Callable[[int], float]:
    """Per-step lr factor: linear warmup from warmup_factor over warmup_steps, then x lr_gamma
    at each epoch of lr_steps (torchvision's detection recipe)."""
    warmup = min(cfg.warmup_steps, max(0, steps_per_epoch - 1))
    milestones = [e * steps_per_epoch for e in cfg.lr_steps]

    def factor(step: int) -> float:
        decay = cfg.lr_gamma ** sum(step >= m for m in milestones)
        if step < warmup:
            ramp = step / warmup
            return decay * (cfg.warmup_factor * (1 - ramp) + ramp)
        return decay
    return factor


def to_device(loop: Loop, images: list[torch.Tensor], targets: list[dict[str, torch.Tensor]]):
    return ([i.to(loop.device, non_blocking=True) for i in images],
            [{k: v.to(loop.device, non_blocking=True) for k, v in t.items()} for t in targets])


def train_step(loop: Loop, images: list[torch.Tensor], targets: list[dict[str, torch.Tensor]],
               step: int) -> float:
    """forward (the detector's summed losses) + backward + optimizer step; the loss is
    checked before anything is updated with it."""
    loop.optimizer.zero_grad(set_to_none=True)
    with autocast(loop.device, loop.dtype):
        loss = sum(loop.model(images, targets).values())
    value = finite_loss(loss, step)
    backward_and_step(loss, loop.optimizer, loop.scheduler, loop.model.parameters(),
                      scaler=loop.scaler, clip_grad_norm=loop.clip_grad_norm)
    return value


def gathered(results: list[Detection], image_ids: list[int]) -> tuple[list[Detection], list[int]]:
    """Every rank's detections and image ids (the rank's own when not distributed)."""
    if not (tdist.is_available() and tdist.is_initialized()):
        return results, image_ids
    parts: list[Any] = [None] * tdist.get_world_size()
    tdist.all_gather_object(parts, (results, image_ids))
    return [r for part in parts for r in part[0]], [i for part in parts for i in part[1]]


@torch.no_grad()
def evaluate(loop: Loop) -> dict[str, float]:
    """COCO mAP of each of loop.iou_types on the whole val split (each rank detects on a
    disjoint shard)."""
    loop.net.eval()
    results: list[Detection] = []
    image_ids: list[int] = []
    for images, targets in loop.val_loader:
        images, _ = to_device(loop, images, [])
        with autocast(loop.device, loop.dtype):
            outputs = loop.net(images)
        ids = [int(t["image_id"]) for t in targets]
        results += coco_results(ids, outputs)
        image_ids += ids
    loop.net.train()
    results, image_ids = gathered(results, image_ids)
    return {kind: coco_map(loop.val_annotations, results, image_ids, kind)
            for kind in loop.iou_types}


@dataclass
class Detecting:
    """The epoch task of a detector: the loss is checked at every step, before the update."""

    loop: Loop
    goal: Goal
    progress: Progress

    def batches(self) -> Iterator[tuple[list[torch.Tensor], list[dict[str, torch.Tensor]]]]:
        return (to_device(self.loop, images, targets)
                for images, targets in self.loop.train_loader)

    def train(self, batch: tuple[list[torch.Tensor], list[dict[str, torch.Tensor]]],
              step: int) -> tuple[int, Callable[[], float]]:
        images, targets = batch
        loss = train_step(self.loop, images, targets, step)
        return len(images), lambda: loss

    def lr(self) -> float:
        return float(self.loop.scheduler.get_last_lr()[0])

    def evaluate(self) -> tuple[Metric, dict[str, Any]]:
        self.progress.maps = evaluate(self.loop)
        self.progress.history.append(self.progress.maps)
        return self.goal.headline(self.progress.maps), {"maps": self.progress.maps}

    def reached(self) -> bool:
        return self.goal.reached(self.progress.maps)


def run(driver: Driver, loop: Loop, goal: Goal, max_epochs: int, eval_every: int,
        max_steps: int | None, on_epoch: Callable[[int], None]) -> Progress:
    """Train until every target mAP is reached, max_epochs, or max_steps; in performance mode
    (driver.run_mode) for its warm-up + timed steps, without evaluation."""
    progress = Progress()
    run_epochs(driver, Detecting(loop, goal, progress), progress, max_epochs=max_epochs,
               eval_every=eval_every, max_steps=max_steps, on_epoch=on_epoch)
    return progress
