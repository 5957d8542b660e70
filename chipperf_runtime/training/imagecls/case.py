"""The image-classification case's main, shared by every PyTorch vision case.

A case's ``run_pretraining.py`` hands ``main`` an ``ImageModel`` (how to build its network
for the config and the data's class count, and its forward FLOPs per image); the rest, the
image folders, DDP, the optimizer, the loop and FINISHED, is the same for every model.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import torch
import torch.distributed as tdist
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import BatchSampler, DataLoader, DistributedSampler, Subset

from chipperf_runtime.device.torch import TorchDevice
from chipperf_runtime.training.driver import (
    Config,
    ConfigError,
    DataError,
    DistEnv,
    Driver,
    Metric,
    split_batch,
)
from chipperf_runtime.training.driver.adapter import Adapter
from chipperf_runtime.training.driver.dist import rank_threads
from chipperf_runtime.training.driver.torchdist import all_reduce_sum, init_distributed
from chipperf_runtime.training.driver.torchknobs import compile_for, fused_optimizer
from chipperf_runtime.training.driver.torchxla import step_boundary, xla_record
from chipperf_runtime.training.imagecls.data import ImageFolder, Split, read_splits
from chipperf_runtime.training.imagecls.predecoded import (
    Batches,
    DeviceBatches,
    DeviceTransform,
    Layout,
    Store,
    open_store,
)
from chipperf_runtime.training.imagecls.synthetic import SYNTHETIC_CLASSES, check_data_mode, synthetic_batches
from chipperf_runtime.training.imagecls.train import Loop, run

DTYPES = ("fp32", "bf16", "fp16")
OPTIMIZERS = ("sgd", "adamw")
NO_ADAPTER = Adapter()


@dataclass(frozen=True)
class ImageModel:
    """What varies between the vision cases: the network and its forward FLOPs per image."""

    build: Callable[[Config, int], nn.Module]            # (config, classes) -> logits model
    forward_flops: Callable[[Config, int, nn.Module], int]   # (config, classes, net) -> FLOPs


def configure_threads(cfg: Config, dist: DistEnv) -> int:
    """cpu_threads when set, else OMP_NUM_THREADS when set (torchrun sets 1 for nproc > 1),
    else the usable cores shared among this node's ranks."""
    threads = rank_threads(dist, cfg.cpu_threads)
    torch.set_num_threads(threads)
    return threads


def check_config(cfg: Config, classes: int) -> None:
    if cfg.dtype not in DTYPES:
        raise ConfigError(f"dtype {cfg.dtype!r} is not supported: use one of {DTYPES}")
    if cfg.optimizer not in OPTIMIZERS:
        raise ConfigError(f"optimizer {cfg.optimizer!r} is not supported: use one of {OPTIMIZERS}")
    if cfg.num_classes is not None and cfg.num_classes != classes:
        raise DataError(f"num_classes = {cfg.num_classes} but the data dir has {classes} "
                        "class folders in train/")


@dataclass(frozen=True)
class Input:
    """What a run trains on: its data mode (``imagecls.synthetic.DATA_MODES``), the class
    count, and the image folders (``"real"``) or their decoded store (``"predecoded"``)."""

    mode: str
    classes: int
    train: Split = Split((), ())
    val: Split = Split((), ())
    store: Store | None = None

    @property
    def images(self) -> tuple[int, int]:
        """(train, val) image counts."""
        if self.store is not None:
            return self.store.train_images, self.store.val_images
        return len(self.train.samples), len(self.val.samples)


def read_input(cfg: Config, data_dir: Path) -> Input:
    """The run's input; synthetic reads no data dir."""
    mode = check_data_mode(cfg)
    if mode == "synthetic":
        return Input(mode, cfg.num_classes or SYNTHETIC_CLASSES)
    if mode == "predecoded":
        store = open_store(data_dir, Layout(cfg.image_size, cfg.train_augment, cfg.val_crop_ratio))
        return Input(mode, len(store.classes), store=store)
    train, val = read_splits(data_dir)
    return Input(mode, len(train.classes), train, val)


def train_sampler(cfg: Config, dist: DistEnv, train_set: Any, per_rank: int) -> DistributedSampler:
    """This rank's shuffled, drop_last shard of train; ``DataError`` when train/ holds less
    than one global batch."""
    sampler: DistributedSampler = DistributedSampler(
        train_set, dist.world_size, dist.rank, shuffle=True, seed=cfg.seed, drop_last=True)
    if len(sampler) < per_rank:
        raise DataError(f"train/ has {len(train_set)} images: too few for one global batch "
                        f"of {cfg.global_batch_size}")
    return sampler


def loader_options(num_workers: int, pin_memory: bool) -> dict[str, Any]:
    """The DataLoader options of every image loader a case builds (and the input benchmark's)."""
    return {"num_workers": num_workers, "pin_memory": pin_memory,
            "persistent_workers": num_workers > 0}


def loaders(cfg: Config, dist: DistEnv, train: Split, val: Split, pin_memory: bool
            ) -> tuple[DataLoader, DataLoader, DistributedSampler]:
    """Train (sharded, shuffled, drop_last) and val (disjoint rank::world shards) loaders."""
    per_rank = split_batch(cfg.global_batch_size, dist.world_size)
    train_set = ImageFolder(train, cfg.image_size, cfg.train_augment)
    val_set = Subset(ImageFolder(val, cfg.image_size, None, cfg.val_crop_ratio),
                     range(dist.rank, len(val.samples), dist.world_size))
    sampler = train_sampler(cfg, dist, train_set, per_rank)
    common = loader_options(cfg.num_workers, pin_memory)
    return (DataLoader(train_set, per_rank, sampler=sampler, drop_last=True, **common),
            DataLoader(val_set, per_rank, shuffle=False, **common), sampler)


def predecoded_loaders(cfg: Config, dist: DistEnv, rank_device: TorchDevice, store: Store
                       ) -> tuple[DeviceBatches, DeviceBatches, DistributedSampler]:
    """As ``loaders``, from the decoded store: whole uint8 batches read by index lists, then
    cropped, flipped and normalised on the device."""
    per_rank = split_batch(cfg.global_batch_size, dist.world_size)
    train_set, val_set = Batches(store, "train"), Batches(store, "val")
    sampler = train_sampler(cfg, dist, train_set, per_rank)
    val_shard = range(dist.rank, len(val_set), dist.world_size)
    common = loader_options(cfg.num_workers, rank_device.pin_memory)
    device = rank_device.device
    random_crop = cfg.train_augment == "random_resized_crop_flip"
    train_loader = DataLoader(train_set, batch_size=None,
                              sampler=BatchSampler(sampler, per_rank, drop_last=True), **common)
    val_loader = DataLoader(val_set, batch_size=None,
                            sampler=BatchSampler(val_shard, per_rank, drop_last=False), **common)
    return (DeviceBatches(train_loader, device, DeviceTransform(cfg.image_size, random_crop, device,
                                                                cfg.seed + dist.rank)),
            DeviceBatches(val_loader, device, DeviceTransform(cfg.image_size, False, device, 0)),
            sampler)


def lr_lambda(cfg: Config, steps_per_epoch: int) -> Callable[[int], float]:
    """Per-step lr factor: linear warmup over warmup_epochs, cosine to 0 at max_epochs."""
    warmup = max(0, round(cfg.warmup_epochs * steps_per_epoch))
    total = max(warmup + 1, cfg.max_epochs * steps_per_epoch)

    def factor(step: int) -> float:
        if step < warmup:
            return (step + 1) / warmup
        progress = min(1.0, (step - warmup) / (total - warmup))
        return 0.5 * (1.0 + math.cos(math.pi * progress))
    return factor


def optimizer(cfg: Config, model: nn.Module, fused: bool = False) -> torch.optim.Optimizer:
    """SGD (momentum, optional Nesterov) or AdamW; lr scales linearly with the batch.
    ``fused``: the optimizer's fused kernels (``torchknobs.fused_optimizer``)."""
    lr = cfg.base_lr * cfg.global_batch_size / cfg.lr_reference_batch
    if cfg.optimizer == "adamw":
        return torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=cfg.weight_decay,
                                 fused=fused or None)
    return torch.optim.SGD(model.parameters(), lr=lr, momentum=cfg.momentum,
                           weight_decay=cfg.weight_decay, nesterov=cfg.nesterov,
                           fused=fused or None)


def input_loaders(cfg: Config, dist: DistEnv, rank_device: TorchDevice, data: Input
                  ) -> tuple[Any, Any, Callable[[int], None]]:
    """(train, val, set_epoch): the image folders' loaders, the decoded store's, or
    (data_mode = "synthetic") one device-resident random batch and no val."""
    if data.mode == "synthetic":
        batches = synthetic_batches(cfg, split_batch(cfg.global_batch_size, dist.world_size),
                                    data.classes, rank_device.device, cfg.seed + dist.rank)
        return batches, (), lambda epoch: None
    if data.store is not None:
        train_batches, val_batches, sampler = predecoded_loaders(cfg, dist, rank_device, data.store)
        return train_batches, val_batches, sampler.set_epoch
    train_loader, val_loader, sampler = loaders(cfg, dist, data.train, data.val,
                                                rank_device.pin_memory)
    return train_loader, val_loader, sampler.set_epoch


def build_loop(cfg: Config, dist: DistEnv, rank_device: TorchDevice, net: nn.Module,
               data: Input, adapter: Adapter = NO_ADAPTER) -> tuple[Loop, Callable[[int], None]]:
    device = rank_device.device
    net = net.to(device)
    if cfg.channels_last:
        net = net.to(memory_format=torch.channels_last)  # type: ignore[call-overload]
    # the vendor's trainer adapter's hooks (training.driver.adapter), each at its named point
    model = adapter.step("model_to_ddp", lambda: DistributedDataParallel(net), net, cfg) \
        if dist.distributed else net
    opt = adapter.step("create_optimizer",
                       lambda: optimizer(cfg, model, fused_optimizer(rank_device)), model, cfg)
    train_loader, val_loader, set_epoch = input_loaders(cfg, dist, rank_device, data)
    scheduler = torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda(cfg, len(train_loader)))
    scaler = adapter.step("create_grad_scaler", lambda: grad_scaler(cfg, rank_device), cfg)
    loop = Loop(model, opt, scheduler, nn.CrossEntropyLoss(label_smoothing=cfg.label_smoothing),
                train_loader, val_loader, device, cfg.dtype, cfg.channels_last, scaler,
                cfg.clip_grad_norm, adapter.bound("backward"), adapter.bound("train_step", cfg),
                boundary=step_boundary(rank_device))
    return loop, set_epoch


def grad_scaler(cfg: Config, rank_device: TorchDevice) -> Any:
    """fp16 on an accelerator: torch.amp.GradScaler; else none."""
    return torch.amp.GradScaler(rank_device.autocast_type) \
        if cfg.dtype == "fp16" and rank_device.is_accelerator else None


def main(model_name: str, case_dir: Path, image_model: ImageModel,
         argv: list[str] | None = None) -> None:
    driver = Driver.start(model_name, case_dir, argv)
    cfg, dist = driver.config, driver.dist
    data = read_input(cfg, driver.args.data_dir)
    classes = data.classes
    check_config(cfg, classes)
    split_batch(cfg.global_batch_size, dist.world_size)
    threads = configure_threads(cfg, dist)
    device = init_distributed(dist)
    if device.is_xla and dist.distributed:
        raise ConfigError(f"WORLD_SIZE={dist.world_size} on an XLA device: chipperf's torch_xla "
                          "path runs one process (nnodes=1, nproc=1)")
    driver.set_sync(device.synchronize)
    torch.backends.cudnn.benchmark = bool(cfg.cudnn_benchmark)  # read by cuDNN builds only
    torch.manual_seed(cfg.seed)
    random.seed(cfg.seed + dist.rank)
    net = image_model.build(cfg, classes)
    forward = image_model.forward_flops(cfg, classes, net)
    net = driver.adapter.prepared(net, cfg)      # convert_model, model_to_fp16
    compile_for(driver, [net], device)
    driver.executed(fused_optimizer=fused_optimizer(device), channels_last=bool(cfg.channels_last))
    loop, set_epoch = build_loop(cfg, dist, device, net, data, driver.adapter)
    driver.executed(optimizer=type(loop.optimizer).__name__)
    train_images, val_images = data.images
    xla = {"xla": xla_record(device)} if device.is_xla else {}
    driver.init_end(**device.describe(), threads=threads, classes=classes, data_mode=data.mode,
                    train_images=train_images, val_images=val_images,
                    parameters=sum(p.numel() for p in net.parameters()),
                    forward_flops_per_sample=forward, **xla)
    progress = run(driver, loop, cfg.target_accuracy, cfg.max_epochs, cfg.eval_every_epochs,
                   cfg.max_steps, set_epoch)
    work_done = int(all_reduce_sum([float(progress.samples)], device.device)[0])
    if device.is_xla:
        driver.executed(xla=xla_record(device))
    driver.finish(work_done=work_done, work_unit="samples",
                  metric=Metric("top1", progress.accuracy, cfg.target_accuracy),
                  flops_per_unit=3 * forward, dtype=cfg.dtype,
                  peak_memory_bytes=device.max_memory_allocated())
    # DDP's reducer goes before the process group (see hftext/case.py: as the group's last
    # owner it would join gloo's worker thread holding the GIL, which can deadlock)
    del loop, set_epoch, net
    if tdist.is_initialized():
        tdist.destroy_process_group()
