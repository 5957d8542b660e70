"""wav2vec2 / PyTorch: wav2vec 2.0 BASE (transformers' Wav2Vec2ForPreTraining, built from its
config) pretrained self-supervised (contrastive + diversity loss over masked feature frames)
to a contrastive-accuracy target, DDP under torchrun: FlagPerf's wav2vec2.

Data: fairseq manifests over 16 kHz audio (``w2v_data``; LibriSpeech as FlagPerf reads it,
or the CI set of ``prepare_data.py``). The loop is ``textlm.loop``'s; AdamW, its warmup and
decay and the thread count are the transformers text cases' (``hftext.case``). See README.md.
"""

from __future__ import annotations

from chipperf_runtime.models.tvision import prepare_torchvision

prepare_torchvision()  # first, explicitly: torchvision (transformers imports it) beside a CPU torch

from functools import partial
from pathlib import Path
from typing import Any, Iterable, Mapping

import torch
import torch.distributed as tdist
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader
from w2v_batches import Batch, Masking, TrainPlan, eval_batches, eval_count
from w2v_data import Subset, open_subset
from w2v_model import PRESETS, forward_flops, frames, samples_for, w2v_model
from w2v_train import Gumbel, Loop

from chipperf_runtime.device.torch import TorchDevice
from chipperf_runtime.training.driver import Config, DataError, DistEnv, Driver, run_case, split_batch
from chipperf_runtime.training.driver.torchdist import init_distributed
from chipperf_runtime.training.driver.torchknobs import compile_for, fused_optimizer
from chipperf_runtime.training.hftext.case import LR_DECAYS, configure_threads, lr_factor, optimizer_for
from chipperf_runtime.training.textlm.checks import (
    count_problems,
    dtype_problems,
    raise_problems,
    size_problems,
)
from chipperf_runtime.training.textlm.finish import run_and_finish
from chipperf_runtime.training.textlm.loop import Goal

CASE_DIR = Path(__file__).resolve().parent
PREPARE = "training/benchmarks/wav2vec2/pytorch/prepare_data.py"
DTYPES = ("fp32", "bf16")
METRIC = "contrastive_accuracy"


def check_config(cfg: Config) -> Mapping[str, Any]:
    """The preset of ``model_size``; every configuration problem in one ConfigError."""
    problems = size_problems(cfg, PRESETS, "target_accuracy") + dtype_problems(cfg, DTYPES)
    problems += count_problems(cfg, ("global_batch_size", "max_steps", "eval_every_steps"))
    if cfg.lr_decay not in LR_DECAYS:
        problems.append(f"lr_decay {cfg.lr_decay!r} is unknown: use one of {', '.join(LR_DECAYS)}")
    if cfg.num_workers < 0:
        problems.append(f"num_workers = {cfg.num_workers} must be 0 or more")
    if not problems:
        problems += crop_problems(cfg, PRESETS[cfg.model_size])
    raise_problems(problems)
    return PRESETS[cfg.model_size]


def crop_problems(cfg: Config, preset: Mapping[str, Any]) -> list[str]:
    """A crop must make frames enough for one mask span and a negative."""
    made, span = frames(preset, cfg.crop_samples), preset["mask_time_length"]
    if made > span:
        return []
    return [f"crop_samples = {cfg.crop_samples} makes {made} feature frame(s); model_size "
            f"{cfg.model_size!r} masks spans of {span}: use a longer crop"]


def masking_of(preset: Mapping[str, Any]) -> Masking:
    return Masking(preset["mask_time_prob"], preset["mask_time_length"],
                   preset["num_negatives"], partial(frames, preset))


def keep(batch: Batch) -> Batch:
    return batch


def train_epochs(cfg: Config, dist: DistEnv, train: Subset, masking: Masking):  # type: ignore[no-untyped-def]
    """epoch -> this rank's batches, read by ``num_workers`` DataLoader processes."""
    def epoch_batches(epoch: int) -> Iterable[Batch]:
        plan = TrainPlan(train, cfg.crop_samples, masking, cfg.global_batch_size, dist.rank,
                         dist.world_size, cfg.seed, epoch)
        return DataLoader(plan, batch_size=None, collate_fn=keep,  # type: ignore[arg-type]
                          num_workers=cfg.num_workers)
    return epoch_batches


def open_data(cfg: Config, dist: DistEnv, preset: Mapping[str, Any],
              data_dir: Path) -> tuple[Subset, Subset]:
    """The train subset's utterances of a crop or more, the eval subset's of two mask spans'
    frames or more."""
    train = open_subset(data_dir, cfg.train_subset, cfg.crop_samples, PREPARE)
    shortest = samples_for(preset, 2 * preset["mask_time_length"])
    valid = open_subset(data_dir, cfg.valid_subset, shortest, PREPARE)
    split_batch(cfg.global_batch_size, dist.world_size)
    if len(train.utterances) < cfg.global_batch_size:
        raise DataError(f"train subset '{train.name}' has {len(train.utterances)} utterances "
                        f"of at least {cfg.crop_samples} samples, fewer than one global batch "
                        f"({cfg.global_batch_size})")
    return train, valid


def build_loop(cfg: Config, dist: DistEnv, device: TorchDevice, preset: Mapping[str, Any],
               net: torch.nn.Module, data: tuple[Subset, Subset]) -> Loop:
    train, valid = data
    masking = masking_of(preset)
    # layerdrop skips whole layers at random: DDP must not wait for their gradients
    wrapped = DistributedDataParallel(net, find_unused_parameters=preset["layerdrop"] > 0) \
        if dist.distributed else net
    optimizer = optimizer_for(wrapped, cfg, fused=fused_optimizer(device))
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_factor(cfg))
    evals = list(eval_batches(valid, cfg.eval_samples, dist.rank, dist.world_size, masking,
                              cfg.mask_seed))
    return Loop(model=wrapped, optimizer=optimizer, scheduler=scheduler, device=device.device,
                dtype=cfg.dtype, grad_clip_norm=float(cfg.grad_clip_norm),
                gumbel=Gumbel(cfg.gumbel_temp_max, cfg.gumbel_temp_min, cfg.gumbel_temp_decay),
                train_epoch=train_epochs(cfg, dist, train, masking), eval_set=evals,
                world=dist.world_size)


def main(argv: list[str] | None = None) -> None:
    driver = Driver.start("wav2vec2", CASE_DIR, argv)
    cfg, dist = driver.config, driver.dist
    preset = check_config(cfg)
    data = open_data(cfg, dist, preset, driver.args.data_dir)
    threads = configure_threads(cfg, dist)
    device = init_distributed(dist)
    driver.set_sync(device.synchronize)
    torch.manual_seed(cfg.seed)
    net = w2v_model(preset).to(device.device)
    forward = forward_flops(preset, cfg.crop_samples)
    compile_for(driver, [net], device)   # the knob of hftext/base.py, as the text cases
    driver.executed(fused_optimizer=fused_optimizer(device))
    loop = build_loop(cfg, dist, device, preset, net, data)
    goal = Goal(METRIC, float(cfg.target_accuracy[cfg.model_size]))
    driver.init_end(**device.describe(), threads=threads, architecture=dict(preset),
                    parameters=sum(p.numel() for p in net.parameters()),
                    crop_samples=cfg.crop_samples, frames=frames(preset, cfg.crop_samples),
                    train_utterances=len(data[0].utterances), train_too_short=data[0].too_short,
                    eval_size=eval_count(data[1], cfg.eval_samples),
                    forward_flops_per_sample=forward)
    run_and_finish(driver, loop, device, goal, "samples", 3.0 * forward)
    # as hftext.case: DDP's reducer goes before the process group (see the note there)
    del loop, net
    if tdist.is_initialized():
        tdist.destroy_process_group()


if __name__ == "__main__":
    run_case(main, quick_exit=True)
