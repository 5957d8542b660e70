"""The loss-loop case's main: a case's ``run_pretraining.py`` hands ``main`` a ``LossCase``
(its presets, model, data, metric and FLOPs); the config checks, DDP, AdamW with warmup and
decay (``hftext.case``'s), the loop (``textlm.loop``) and FINISHED are the same for every
such case."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

import torch
import torch.distributed as tdist
from torch import nn
from torch.nn.parallel import DistributedDataParallel

from chipperf_runtime.device.torch import TorchDevice
from chipperf_runtime.training.driver import Config, DistEnv, Driver, split_batch
from chipperf_runtime.training.driver.adapter import Adapter
from chipperf_runtime.training.driver.torchdist import init_distributed
from chipperf_runtime.training.hftext.case import (
    LR_DECAYS,
    NO_ADAPTER,
    configure_threads,
    lr_factor,
    optimizer_for,
)
from chipperf_runtime.training.lossloop.data import CaseData, eval_batches, require_batches, train_loader
from chipperf_runtime.training.lossloop.train import Evaluate, Loop, mean_loss
from chipperf_runtime.training.textlm.checks import (
    count_problems,
    dtype_problems,
    raise_problems,
    size_problems,
)
from chipperf_runtime.training.textlm.finish import run_and_finish
from chipperf_runtime.training.textlm.loop import Goal

DTYPES = ("fp32", "bf16")
Preset = Mapping[str, Any]


@dataclass(frozen=True)
class LossCase:
    """What differs between the loss-loop cases."""

    presets: Mapping[str, Preset]
    build: Callable[[Preset, CaseData], nn.Module]       # forward(*batch) -> mean loss
    open_data: Callable[[Path, Config, Preset], CaseData]
    forward_flops: Callable[[Preset, CaseData], float]   # per training sample
    metric: str = "val_loss"
    higher_is_better: bool = False
    evaluate: Evaluate = mean_loss
    # (config, the opened data) -> the evaluation, for one that needs them (moflow's NUV
    # reads the training set and the sampling temperature); replaces ``evaluate``
    evaluator: Callable[[Config, CaseData], Evaluate] | None = None
    find_unused: bool = False                            # DDP: parameters a step may skip
    shuffle: bool = True                                 # False: train in the files' order
    # (model, config, on an accelerator) -> the optimizer; default AdamW (hftext.case)
    optimizer: Callable[[nn.Module, Config, bool], torch.optim.Optimizer] = optimizer_for


def check_config(cfg: Config, case: LossCase) -> Preset:
    """The preset of ``model_size``; every configuration problem in one ConfigError."""
    problems = target_problems(cfg, case) + dtype_problems(cfg, DTYPES)
    problems += count_problems(cfg, ("global_batch_size", "max_steps", "eval_every_steps"))
    if cfg.lr_decay not in LR_DECAYS:
        problems.append(f"lr_decay {cfg.lr_decay!r} is unknown: use one of {', '.join(LR_DECAYS)}")
    if cfg.num_workers < 0:
        problems.append(f"num_workers = {cfg.num_workers} must be 0 or more")
    raise_problems(problems)
    return case.presets[cfg.model_size]


def target_problems(cfg: Config, case: LossCase) -> list[str]:
    """``model_size`` must name a preset with a target, unless the run is in performance mode
    (a model size with no established target trains for throughput only: moflow's full size)."""
    if cfg.model_size not in case.presets or cfg.model_size in cfg.target:
        return size_problems(cfg, case.presets, "target")
    if cfg.run_mode == "performance":
        return []
    return [f"target has no value for model_size {cfg.model_size!r}: no convergence target is "
            f"established for it; set run_mode = 'performance' (with perf_warmup_steps and "
            f"timed_steps) for a throughput run"]


def build_loop(cfg: Config, dist: DistEnv, device: TorchDevice, case: LossCase,
               net: nn.Module, data: CaseData, adapter: Adapter = NO_ADAPTER) -> Loop:
    wrapped = DistributedDataParallel(net, find_unused_parameters=case.find_unused) \
        if dist.distributed else net
    optimizer = case.optimizer(wrapped, cfg, device.is_accelerator)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_factor(cfg))
    per_rank = split_batch(cfg.global_batch_size, dist.world_size)
    return Loop(model=wrapped, optimizer=optimizer, scheduler=scheduler, device=device.device,
                dtype=cfg.dtype, grad_clip_norm=float(cfg.grad_clip_norm),
                train_epoch=lambda epoch: train_loader(data, cfg.global_batch_size, dist,
                                                       cfg.seed, epoch, cfg.num_workers,
                                                       case.shuffle),
                eval_set=eval_batches(data, per_rank, cfg.eval_samples, dist),
                evaluator=case.evaluator(cfg, data) if case.evaluator else case.evaluate,
                # the vendor's trainer adapter's hooks (training.driver.adapter)
                scaler=adapter.step("create_grad_scaler", lambda: None, cfg),
                calculate_loss=adapter.bound("calculate_loss", cfg))


def main(model_name: str, case_dir: Path, case: LossCase, argv: list[str] | None = None) -> None:
    driver = Driver.start(model_name, case_dir, argv)
    cfg, dist = driver.config, driver.dist
    preset = check_config(cfg, case)
    split_batch(cfg.global_batch_size, dist.world_size)
    data = case.open_data(driver.args.data_dir, cfg, preset)
    require_batches(data, cfg.global_batch_size, str(driver.args.data_dir))
    threads = configure_threads(cfg, dist)
    device = init_distributed(dist)
    driver.set_sync(device.synchronize)
    torch.manual_seed(cfg.seed)
    net = case.build(preset, data).to(device.device)
    forward = case.forward_flops(preset, data)
    loop = build_loop(cfg, dist, device, case, net, data, driver.adapter)
    goal = Goal(case.metric, float(cfg.target.get(cfg.model_size, "nan")), case.higher_is_better)
    driver.init_end(**device.describe(), threads=threads, architecture=dict(preset),
                    parameters=sum(p.numel() for p in net.parameters()),
                    forward_flops_per_sample=forward, **data.describe())
    run_and_finish(driver, loop, device, goal, "samples", 3.0 * forward)
    # as hftext.case: DDP's reducer goes before the process group (see the note there)
    del loop, net
    if tdist.is_initialized():
        tdist.destroy_process_group()
