"""Iluvatar's bert adaptation through chipperf's adapter hooks
(chipperf_runtime/training/driver/adapter.py).

What FlagPerf's iluvatar bert adapter does (FlagOpen/FlagPerf@1b5a0303
training/iluvatar/bert-pytorch/extern/trainer_adapter.py), on the path its BI-V100 configs take
(``fp16 = True``, ``bypass_amp = False``, ``distributed_lamb = False``,
``allreduce_post_accumulation = False``, ``ddp_type = "apex"``, ``opt_level = "O2"``):
``create_optimizer`` makes apex's ``FusedLAMB`` over two groups (weight decay
``weight_decay_rate`` except for the biases and LayerNorm parameters) at ``learning_rate`` with
betas ``(opt_lamb_beta_1, opt_lamb_beta_2)``; ``model_to_fp16`` runs apex amp's O2
(``amp.initialize``: fp16 weights with fp32 master copies, dynamic loss scaling from
``INIT_LOSS_SCALE``, default 2**20); ``model_to_ddp`` wraps the network in apex's
``DistributedDataParallel`` (one all-reduce after the backward, gradients pre-divided by the
world size); ``backward`` runs the backward through amp's scaled loss and, every
``gradient_accumulation_steps``, its ``update_model_params``: ``optimizer.step()`` (skipped by
amp on an overflow) and ``optimizer.zero_grad()``. FlagPerf's BI configs also make the
trainer's ``GradScaler(init_scale=INIT_LOSS_SCALE or 2**20, growth_interval=2000)``.

Here: ``create_optimizer`` and ``model_to_ddp`` as FlagPerf's; the fp16 loss scaling is
``create_grad_scaler``, torch.amp's ``GradScaler`` with the configs' initial scale and growth
interval, and ``backward`` scales the loss through it and steps through it (skipping the step
on an overflow and adjusting the scale, as amp does); fp32 and bf16 get no scaler and a plain
backward and step. FlagPerf's ``update_model_params`` is the helper ``_update_model_params``
(chipperf's ``backward`` replaces the whole step it is part of). The parameter names are
chipperf's bert's (``learning_rate``, ``weight_decay``, ``adam_beta1``/``adam_beta2``: FlagPerf's
``weight_decay_rate`` 0.01 and LAMB betas 0.9/0.999, the same values). It imports apex: in an
image without it the case stops before training naming this file.
"""

from __future__ import annotations

import os
from typing import Any

import torch
from apex.optimizers import FusedLAMB
from apex.parallel import DistributedDataParallel
from torch import nn

from chipperf_runtime.device.torch import open_torch_device
from chipperf_runtime.training.driver.adapterkit import decay_groups

HOOKS = ["create_optimizer", "create_grad_scaler", "model_to_ddp", "backward"]
NOT_CARRIED = {
    "model_to_fp16": "apex amp O2 (fp16 weights, fp32 master copies) is made by "
        "amp.initialize(model, optimizer), which needs the optimizer; chipperf's loop calls "
        "model_to_fp16 before the optimizer exists, so fp16 here is the loop's fp16 autocast "
        "over fp32 weights (amp O1's arithmetic) with create_grad_scaler's dynamic loss scale",
    "distributed_lamb, allreduce_post_accumulation": "apex's DistributedFusedLAMB and the "
        "manual post-accumulation all-reduce (amp_C, apex_C): off in every FlagPerf iluvatar "
        "bert config",
    "gradient_accumulation_steps": "FlagPerf's BI-V100x1x8 config accumulates 4 "
        "micro-batches per optimizer step; chipperf's text loop takes the same samples per "
        "step at once (the plan's global_batch_size is train_batch_size x "
        "gradient_accumulation_steps x world size)",
}
INIT_SCALE = float(os.environ.get("INIT_LOSS_SCALE", 2 ** 20))   # FlagPerf's BI configs'
GROWTH_INTERVAL = 2000


def create_optimizer(model: nn.Module, config: Any) -> torch.optim.Optimizer:
    """apex's FusedLAMB: weight decay except on biases and LayerNorm parameters."""
    return FusedLAMB(decay_groups(model, config.weight_decay), lr=config.learning_rate,
                     betas=(config.adam_beta1, config.adam_beta2))


def create_grad_scaler(config: Any) -> Any:
    """fp16: a dynamic loss scaler from INIT_LOSS_SCALE (2**20), growing every 2000 clean
    steps; else none."""
    if config.dtype != "fp16":
        return None
    device = open_torch_device(int(os.environ.get("LOCAL_RANK", "0"))).autocast_type
    return torch.amp.GradScaler(device, init_scale=INIT_SCALE, growth_interval=GROWTH_INTERVAL)


def model_to_ddp(model: nn.Module, config: Any) -> nn.Module:
    """apex's DistributedDataParallel: one all-reduce after the backward, pre-divided by the
    world size (FlagPerf's ddp_type "apex")."""
    return DistributedDataParallel(model, message_size=250000000, delay_allreduce=True,
                                   gradient_predivide_factor=torch.distributed.get_world_size())


def backward(step: int, loss: torch.Tensor, optimizer: torch.optim.Optimizer,
             scaler: Any = None) -> None:
    """The backward through the loss scale when there is a scaler, then the step."""
    (loss if scaler is None else scaler.scale(loss)).backward()
    _update_model_params(optimizer, scaler)


def _update_model_params(optimizer: torch.optim.Optimizer, scaler: Any) -> None:
    """The optimizer's step (through the scaler: skipped on an overflow, the scale adjusted),
    then the gradients cleared."""
    if scaler is None:
        optimizer.step()
    else:
        scaler.step(optimizer)
        scaler.update()
    optimizer.zero_grad()
