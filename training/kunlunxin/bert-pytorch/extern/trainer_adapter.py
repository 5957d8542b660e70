"""Kunlunxin's bert adaptation through chipperf's adapter hooks
(chipperf_runtime/training/driver/adapter.py).

What FlagPerf's kunlunxin bert adapter does (FlagOpen/FlagPerf@1b5a0303
training/kunlunxin/bert-pytorch/extern/trainer_adapter.py): ``convert_model`` and
``model_to_fp16`` hand the network back as it is; ``create_optimizer`` makes torch_xmlir's
``FusedLAMB`` over two groups (weight decay ``weight_decay_rate`` for every parameter but the
biases and the LayerNorm ones, which get none) at ``learning_rate`` with betas
``(opt_lamb_beta_1, opt_lamb_beta_2)``; ``model_to_ddp`` wraps the network in PyTorch's
``DistributedDataParallel`` on the rank's device; ``backward`` runs ``loss.backward()`` unscaled
(the trainer's grad scaler is passed and not used), waits for the XPU
(``torch_xmlir.xpu.xpu_synchronize``), and every ``gradient_accumulation_steps`` calls its
``update_model_params``: ``optimizer.step()`` then ``optimizer.zero_grad()``.

Here the same five hooks, with chipperf's arguments; FlagPerf's ``update_model_params`` is the
helper ``_update_model_params`` that ``backward`` calls (in chipperf's loop ``backward`` replaces
the whole step that hook is part of). The parameter names are chipperf's bert's: the rate is
``learning_rate``, the decay ``weight_decay`` (FlagPerf's ``weight_decay_rate``: 0.01 in both)
and the betas ``adam_beta1``/``adam_beta2`` (FlagPerf's ``opt_lamb_beta_1``/``_2``: 0.9/0.999 in
both). It imports torch_xmlir (Kunlunxin's PyTorch plug-in): in an image without it the case
stops before training naming this file.
"""

from __future__ import annotations

import os
from typing import Any

import torch
import torch_xmlir  # Kunlunxin's PyTorch plug-in (the vendor image has it)
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch_xmlir.optimizer import FusedLAMB

from chipperf_runtime.training.driver.adapterkit import decay_groups

HOOKS = ["convert_model", "create_optimizer", "model_to_fp16", "model_to_ddp", "backward"]
NOT_CARRIED = {
    "gradient_accumulation_steps": "FlagPerf's R300 configs accumulate 56 micro-"
        "batches per optimizer step; chipperf's text loop takes the same samples per step at "
        "once (the plan's global_batch_size is train_batch_size x gradient_accumulation_steps "
        "x world size), so the optimizer steps on every backward",
}


def convert_model(model: nn.Module, config: Any) -> nn.Module:
    """The network unchanged (FlagPerf's)."""
    return model


def create_optimizer(model: nn.Module, config: Any) -> torch.optim.Optimizer:
    """torch_xmlir's FusedLAMB: weight decay except on biases and LayerNorm parameters."""
    return FusedLAMB(decay_groups(model, config.weight_decay), lr=config.learning_rate,
                     betas=(config.adam_beta1, config.adam_beta2))


def model_to_fp16(model: nn.Module, config: Any) -> nn.Module:
    """The network unchanged: its weights stay fp32 (FlagPerf's); the loop autocasts."""
    return model


def model_to_ddp(model: nn.Module, config: Any) -> nn.Module:
    """PyTorch's DistributedDataParallel on this rank's device (FlagPerf's)."""
    on_host = next(model.parameters()).device.type == "cpu"
    return DistributedDataParallel(
        model, device_ids=None if on_host else [int(os.environ.get("LOCAL_RANK", "0"))])


def backward(step: int, loss: torch.Tensor, optimizer: torch.optim.Optimizer,
             scaler: Any = None) -> None:
    """The unscaled backward, the XPU's synchronisation, then the optimizer's step (FlagPerf's:
    its grad scaler is not used)."""
    loss.backward()
    torch_xmlir.xpu.xpu_synchronize()
    _update_model_params(optimizer)


def _update_model_params(optimizer: torch.optim.Optimizer) -> None:
    optimizer.step()
    optimizer.zero_grad()
