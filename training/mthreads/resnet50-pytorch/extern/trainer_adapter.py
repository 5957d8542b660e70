"""Moore Threads' resnet50 adaptation through chipperf's adapter hooks
(chipperf_runtime/training/driver/adapter.py).

What FlagPerf's mthreads resnet50 adapter does (FlagOpen/FlagPerf@1b5a0303
training/mthreads/resnet50-pytorch/extern/trainer_adapter.py): ``convert_model`` puts the
network's weights in the channels-last memory format; ``create_grad_scaler`` makes
torch_musa's GradScaler when the config asks for mixed precision, else none; ``train_step``
runs the step itself: cross entropy, forward under MUSA autocast and the scaled backward and
scaler step when there is a scaler, a plain forward, backward and optimizer step otherwise.

Here the same three hooks, written for chipperf's arguments: the precision is chipperf's
``dtype`` (FlagPerf's ``amp`` flag: fp16 gets the scaler), and autocast follows ``dtype`` for
bf16 too (FlagPerf's adapter autocasts only with a scaler, for fp16; chipperf's mthreads configs
train in bf16, which FlagPerf's step would have run in fp32). The loss is the case's cross
entropy with its ``label_smoothing`` (FlagPerf's has none; chipperf's configs set 0.0 or the
recipe's value, so the step trains what the standard case trains). The loop zeroes the
gradients before and steps the lr schedule after the hook, as FlagPerf's trainer does around it.
"""

from __future__ import annotations

from typing import Any

import torch
import torch_musa  # Moore Threads' PyTorch plug-in (the vendor image has it)

from chipperf_runtime.training.driver.torchstep import backward_and_optimizer_step

HOOKS = ["convert_model", "create_grad_scaler", "train_step"]
AUTOCAST = {"fp16": torch.float16, "bf16": torch.bfloat16}


def convert_model(model: torch.nn.Module, config: Any) -> torch.nn.Module:
    """The network in channels-last memory format (FlagPerf's, for the S4000's convolutions)."""
    return model.to(memory_format=torch.channels_last)  # type: ignore[call-overload]


def create_grad_scaler(config: Any) -> Any:
    """torch_musa's GradScaler for fp16, else none."""
    return torch_musa.amp.GradScaler() if config.dtype == "fp16" else None


def train_step(model: torch.nn.Module, batch: tuple[torch.Tensor, torch.Tensor],
               optimizer: torch.optim.Optimizer, scaler: Any, config: Any) -> torch.Tensor:
    """Forward (autocast by dtype), cross entropy, backward and optimizer step; the loss."""
    images, labels = batch
    criterion = torch.nn.CrossEntropyLoss(label_smoothing=config.label_smoothing)
    with torch.autocast(device_type=images.device.type, dtype=AUTOCAST.get(config.dtype),
                        enabled=config.dtype in AUTOCAST):
        loss = criterion(model(images), labels)
    backward_and_optimizer_step(loss, optimizer, scaler)
    return loss
