"""DeepSpeed ZeRO for the text cases that offer it (``zero_stage``, t5_3b): the case's model,
AdamW and learning-rate schedule handed to a DeepSpeed engine that partitions the optimizer
state (stage 1), the gradients too (stage 2) or the parameters too (stage 3) over the ranks.

    engine = zero_engine(net, optimizer, scheduler, cfg, dist, device)   # stage >= 1
    loss = ...; engine.backward(loss); engine.step()     # clipping and the schedule inside

Stage 0 is the case's own DistributedDataParallel path and never imports DeepSpeed. DeepSpeed
must be importable in the image and its accelerator must be the vendor's device
(``DS_ACCELERATOR=cpu`` on the cpu vendor); otherwise the case stops before training saying so.
"""

from __future__ import annotations

import os
from typing import Any

import torch

from chipperf_runtime.device.torch import TorchDevice
from chipperf_runtime.training.driver import Config, ConfigError, DistEnv
from chipperf_runtime.training.driver.errors import DeviceUnavailable

STAGES = (0, 1, 2, 3)


def zero_problems(cfg: Config) -> list[str]:
    stage = cfg.get("zero_stage", 0)
    if stage not in STAGES or isinstance(stage, bool):
        return [f"zero_stage = {stage!r} must be 0 (DistributedDataParallel, no DeepSpeed), 1, "
                "2 or 3 (DeepSpeed ZeRO)"]
    if stage > 0 and cfg.get("dtype") == "fp16":
        return [f"dtype 'fp16' with zero_stage = {stage}: the ZeRO path runs fp32 or bf16 (its "
                "engine's fp16 loss scaling is not wired to the case's loop): use bf16, or "
                "zero_stage = 0 for fp16 with the loop's GradScaler"]
    return []


def zero_stage(cfg: Config) -> int:
    """The configured stage (0: no ZeRO); ConfigError for anything else."""
    problems = zero_problems(cfg)
    if problems:
        raise ConfigError(problems[0])
    return int(cfg.get("zero_stage", 0))


def deepspeed_config(cfg: Config, world_size: int) -> dict[str, Any]:
    """One micro-batch per optimizer step (no accumulation), as the case's own loop runs."""
    return {
        "train_batch_size": cfg.global_batch_size,
        "train_micro_batch_size_per_gpu": cfg.global_batch_size // world_size,
        "gradient_accumulation_steps": 1,
        "gradient_clipping": float(cfg.grad_clip_norm),
        "zero_optimization": {"stage": zero_stage(cfg), "overlap_comm": False,
                              "contiguous_gradients": True},
        "zero_allow_untested_optimizer": True,       # the case's own torch AdamW
        "bf16": {"enabled": cfg.dtype == "bf16"},
        "steps_per_print": 1 << 30,
        "wall_clock_breakdown": False,
    }


def import_deepspeed(stage: int) -> Any:
    try:
        import deepspeed
    except ImportError as exc:
        raise DeviceUnavailable(
            f"zero_stage = {stage} needs DeepSpeed, which this environment lacks ({exc}): "
            "install deepspeed in the image, or set zero_stage = 0") from exc
    return deepspeed


def join(deepspeed: Any, dist: DistEnv, device: TorchDevice) -> None:
    """DeepSpeed's communication over the case's process group (one rank: a group of one)."""
    accelerator = deepspeed.accelerator.get_accelerator()
    if accelerator.device_name() != device.type:
        raise DeviceUnavailable(
            f"vendor {device.vendor!r} names device {device.type!r} but DeepSpeed's "
            f"accelerator is {accelerator.device_name()!r}: set "
            f"DS_ACCELERATOR={device.type} in the vendor's image")
    for name, value in (("RANK", dist.rank), ("LOCAL_RANK", dist.local_rank),
                        ("WORLD_SIZE", dist.world_size), ("MASTER_ADDR", dist.master_addr),
                        ("MASTER_PORT", dist.master_port)):
        os.environ.setdefault(name, str(value))     # a plain `python run_pretraining.py` run
    deepspeed.init_distributed(dist_backend=device.backend, auto_mpi_discovery=False)


def zero_engine(net: torch.nn.Module, optimizer: torch.optim.Optimizer, scheduler: Any,
                cfg: Config, dist: DistEnv, device: TorchDevice) -> Any:
    """The DeepSpeed engine around ``net`` with ``optimizer`` and ``scheduler``."""
    stage = zero_stage(cfg)
    deepspeed = import_deepspeed(stage)
    join(deepspeed, dist, device)
    engine, _, _, _ = deepspeed.initialize(model=net, optimizer=optimizer,
                                           lr_scheduler=scheduler,
                                           config=deepspeed_config(cfg, dist.world_size))
    return engine


def zero_record(engine: Any) -> dict[str, Any]:
    """What ran: DeepSpeed's version, its ZeRO stage and the optimizer wrapper it built."""
    import deepspeed

    return {"version": deepspeed.__version__, "stage": engine.zero_optimization_stage(),
            "optimizer": type(engine.optimizer).__name__}
