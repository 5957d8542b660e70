"""The detection loop: timed compute regions, COCO mAP (of boxes, and of masks for instance
segmentation) after every eval_every_epochs, early stop when every target is reached, and a
non-finite loss ending the case at its step."""

from __future__ import annotations

import contextlib
import itertools
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

import torch
import torch.distributed as tdist
from torch import nn

from chipperf_runtime.training.detection.cocomap import Detection, coco_map, coco_results
from chipperf_runtime.training.driver import Config, Diverged, Driver, Metric

AUTOCAST = {"bf16": torch.bfloat16, "fp16": torch.float16}
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
class Progress:
    epoch: int = 0
    step: int = 0
    samples: int = 0                   # trained on this rank
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


def autocast(loop: Loop) -> contextlib.AbstractContextManager:
    if loop.dtype not in AUTOCAST:
        return contextlib.nullcontext()
    return torch.autocast(device_type=loop.device.type, dtype=AUTOCAST[loop.dtype])


def to_device(loop: Loop, images: list[torch.Tensor], targets: list[dict[str, torch.Tensor]]):
    return ([i.to(loop.device, non_blocking=True) for i in images],
            [{k: v.to(loop.device, non_blocking=True) for k, v in t.items()} for t in targets])


def checked(loss: torch.Tensor, step: int) -> float:
    """The loss as a number; a non-finite one ends the case (``Diverged``) naming the step."""
    value = float(loss.item())
    if not math.isfinite(value):
        raise Diverged(f"training diverged: loss is {value} at step {step}")
    return value


def train_step(loop: Loop, images: list[torch.Tensor], targets: list[dict[str, torch.Tensor]],
               step: int) -> float:
    """forward (the detector's summed losses) + backward + optimizer step; the loss is
    checked before anything is updated with it."""
    loop.optimizer.zero_grad(set_to_none=True)
    with autocast(loop):
        loss = sum(loop.model(images, targets).values())
    value = checked(loss, step)
    if loop.scaler is not None:
        loop.scaler.scale(loss).backward()
        clip(loop, unscale=True)
        loop.scaler.step(loop.optimizer)
        loop.scaler.update()
    else:
        loss.backward()
        clip(loop)
        loop.optimizer.step()
    loop.scheduler.step()
    return value


def clip(loop: Loop, unscale: bool = False) -> None:
    if loop.clip_grad_norm is None:
        return
    if unscale:
        loop.scaler.unscale_(loop.optimizer)
    nn.utils.clip_grad_norm_(loop.model.parameters(), loop.clip_grad_norm)


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
        with autocast(loop):
            outputs = loop.net(images)
        ids = [int(t["image_id"]) for t in targets]
        results += coco_results(ids, outputs)
        image_ids += ids
    loop.net.train()
    results, image_ids = gathered(results, image_ids)
    return {kind: coco_map(loop.val_annotations, results, image_ids, kind)
            for kind in loop.iou_types}


def train_epoch(driver: Driver, loop: Loop, progress: Progress, max_steps: int | None) -> None:
    """One pass over this rank's shard of train, or up to max_steps optimizer steps."""
    every = driver.log.step_every
    for images, targets in loop.train_loader:
        images, targets = to_device(loop, images, targets)
        with driver.compute():
            loss = train_step(loop, images, targets, progress.step + 1)
        progress.step += 1
        progress.samples += len(images)
        if progress.step % every == 0:
            driver.step_end(progress.step, work=progress.samples, epoch=progress.epoch, loss=loss,
                            lr=loop.scheduler.get_last_lr()[0])
        if driver.step_done(progress.step, progress.samples):
            return
        if max_steps is not None and progress.step >= max_steps:
            return


def run(driver: Driver, loop: Loop, goal: Goal, max_epochs: int, eval_every: int,
        max_steps: int | None, on_epoch: Callable[[int], None]) -> Progress:
    """Train until every target mAP is reached, max_epochs, or max_steps; in performance mode
    (driver.run_mode) for its warm-up + timed steps, without evaluation."""
    progress = Progress()
    performance = driver.run_mode.performance
    max_steps = driver.stop_after(max_steps)
    driver.train_start(global_batch_size=driver.config.global_batch_size, work_unit="samples")
    epochs = itertools.count(1) if performance else range(1, max_epochs + 1)  # steps decide
    for epoch in epochs:
        progress.epoch = epoch
        on_epoch(epoch)
        driver.epoch_begin(epoch)
        train_epoch(driver, loop, progress, max_steps)
        out_of_steps = max_steps is not None and progress.step >= max_steps
        if not performance and (epoch % eval_every == 0 or epoch == max_epochs or out_of_steps):
            with driver.evaluation():
                progress.maps = evaluate(loop)
            progress.history.append(progress.maps)
            driver.evaluate(epoch, goal.headline(progress.maps), step=progress.step,
                            maps=progress.maps)
        driver.epoch_end(epoch, step=progress.step)
        if out_of_steps or goal.reached(progress.maps):
            break
    driver.train_end(epochs=progress.epoch, steps=progress.step)
    return progress
