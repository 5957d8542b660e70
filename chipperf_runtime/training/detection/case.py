"""The detection case's main, shared by retinanet, faster_rcnn and mask_rcnn.

A case's ``run_pretraining.py`` names its architecture (a key of ``detection.models.ARCHS``)
and its presets; the COCO data (with masks where the architecture predicts them), DDP, SGD
with warmup and step decay, the loop, COCO mAP and FINISHED are the same for all.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, Mapping

import torch
import torch.distributed as tdist
from torch import nn
from torch.nn.parallel import DistributedDataParallel

from chipperf_runtime.device.torch import TorchDevice
from chipperf_runtime.models.tvision import use_operator_fallbacks
from chipperf_runtime.training.detection.coco import CocoSplit, read_coco
from chipperf_runtime.training.detection.data import AUGMENTS, loaders
from chipperf_runtime.training.detection.models import (
    ARCHS,
    IOU_TYPES,
    preset_of,
    train_flops_per_sample,
)
from chipperf_runtime.training.detection.train import Goal, Loop, lr_lambda, run
from chipperf_runtime.training.driver import (
    Config,
    ConfigError,
    DataError,
    DistEnv,
    Driver,
    split_batch,
)
from chipperf_runtime.training.driver.dist import rank_threads
from chipperf_runtime.training.driver.torchdist import all_reduce_sum, init_distributed

DTYPES = ("fp32", "bf16", "fp16")
OPTIMIZERS = ("sgd", "adamw")


def check_config(cfg: Config, train: CocoSplit) -> None:
    """Every problem of the config against the data, before anything is built."""
    problems = []
    if cfg.dtype not in DTYPES:
        problems.append(f"dtype {cfg.dtype!r} is not supported: use one of {DTYPES}")
    if cfg.optimizer not in OPTIMIZERS:
        problems.append(f"optimizer {cfg.optimizer!r} is not supported: use one of {OPTIMIZERS}")
    if cfg.train_augment not in AUGMENTS:
        problems.append(f"train_augment {cfg.train_augment!r} is not supported: use one of {AUGMENTS}")
    if not 0 < cfg.min_size <= cfg.max_size:
        problems.append(f"min_size {cfg.min_size} and max_size {cfg.max_size}: need 0 < min_size <= max_size")
    if problems:
        raise ConfigError("; ".join(problems))
    if cfg.num_classes is not None and cfg.num_classes < train.num_classes:
        raise DataError(f"num_classes = {cfg.num_classes} but {train.annotation_file} has category "
                        f"id {max(train.category_ids)}: num_classes must be at least {train.num_classes}")


def goal_of(cfg: Config, arch: str) -> Goal:
    """box mAP (target_map), and mask mAP (target_mask_map) where the architecture has masks."""
    targets = {"bbox": cfg.target_map}
    if "segm" in IOU_TYPES[arch]:
        targets["segm"] = cfg.target_mask_map
    return Goal(targets)


def optimizer_of(cfg: Config, model: nn.Module, lr: float) -> torch.optim.Optimizer:
    """SGD with momentum or AdamW over the trained parameters; the backbone's at lr x
    backbone_lr_factor."""
    named = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    groups = [{"params": [p for n, p in named if "backbone" not in n]},
              {"params": [p for n, p in named if "backbone" in n],
               "lr": lr * cfg.backbone_lr_factor}]
    if cfg.optimizer == "adamw":
        return torch.optim.AdamW(groups, lr=lr, weight_decay=cfg.weight_decay)
    return torch.optim.SGD(groups, lr=lr, momentum=cfg.momentum, weight_decay=cfg.weight_decay)


def build_loop(cfg: Config, dist: DistEnv, rank_device: TorchDevice, net: nn.Module,
               train: CocoSplit, val: CocoSplit, iou_types: tuple[str, ...]) -> tuple[Loop, Any]:
    device = rank_device.device
    net = net.to(device)
    model = DistributedDataParallel(net) if dist.distributed else net
    lr = cfg.base_lr * cfg.global_batch_size / cfg.lr_reference_batch
    opt = optimizer_of(cfg, model, lr)
    train_loader, val_loader, sampler = loaders(cfg, dist, train, val, rank_device.pin_memory,
                                                masks="segm" in iou_types)
    scheduler = torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda(cfg, len(train_loader)))
    scaler = torch.amp.GradScaler(rank_device.autocast_type) \
        if cfg.dtype == "fp16" and rank_device.is_accelerator else None
    loop = Loop(model, net, opt, scheduler, train_loader, val_loader, val.annotation_file, device,
                cfg.dtype, scaler, cfg.clip_grad_norm, iou_types)
    return loop, sampler


def main(model_name: str, case_dir: Path, arch: str, presets: Mapping[str, Mapping[str, Any]],
         argv: list[str] | None = None) -> None:
    driver = Driver.start(model_name, case_dir, argv)
    cfg, dist = driver.config, driver.dist
    iou_types = IOU_TYPES[arch]
    train_split, val_split = read_coco(driver.args.data_dir, masks="segm" in iou_types)
    check_config(cfg, train_split)
    goal = goal_of(cfg, arch)
    preset = preset_of(cfg, presets)
    split_batch(cfg.global_batch_size, dist.world_size)
    split_batch(cfg.global_eval_batch_size, dist.world_size)
    torch.set_num_threads(threads := rank_threads(dist, cfg.cpu_threads))
    # explicit: torchvision's own nms / roi_align where its compiled ops load, else chipperf's
    operators = use_operator_fallbacks()
    device = init_distributed(dist)
    driver.set_sync(device.synchronize)
    torch.backends.cudnn.benchmark = bool(cfg.cudnn_benchmark)  # read by cuDNN builds only
    torch.manual_seed(cfg.seed)
    random.seed(cfg.seed + dist.rank)
    classes = cfg.num_classes or train_split.num_classes
    net = ARCHS[arch](preset, classes, cfg.min_size, cfg.max_size).to(device.device)
    flops = train_flops_per_sample(net, cfg.min_size, device.device)
    loop, sampler = build_loop(cfg, dist, device, net, train_split, val_split, iou_types)
    driver.init_end(**device.describe(), threads=threads, classes=classes,
                    train_images=len(train_split.samples), val_images=len(val_split.samples),
                    parameters=sum(p.numel() for p in net.parameters()),
                    train_flops_per_sample=flops, operator_implementations=operators)
    progress = run(driver, loop, goal, cfg.max_epochs, cfg.eval_every_epochs,
                   cfg.max_steps, sampler.set_epoch)
    work_done = int(all_reduce_sum([float(progress.samples)], device.device)[0])
    driver.finish(work_done=work_done, work_unit="samples",
                  metric=goal.headline(progress.maps),
                  flops_per_unit=flops, dtype=cfg.dtype,
                  peak_memory_bytes=device.max_memory_allocated())
    del loop, sampler, net       # DDP's reducer before the process group (see imagecls/case.py)
    if tdist.is_initialized():
        tdist.destroy_process_group()
