"""Kunlunxin's glm adaptation through chipperf's adapter hooks
(chipperf_runtime/training/driver/adapter.py).

What FlagPerf's kunlunxin glm folder does (FlagOpen/FlagPerf@1b5a0303
training/kunlunxin/glm-pytorch/extern/): ``convert_model`` rebuilds GLM's transformer from its
``extern/layers`` and loads the model's weights into it. Those layers differ from FlagPerf's
nvidia glm ones (``git diff`` of the two folders) in three ways: the MLP's GELU is
``torch.nn.functional.gelu``, the exact (erf) form, where GLM's model uses the tanh form
(``gelu_impl``); the layer norms are the model's own, not apex's fused one; activation
checkpointing is torch_xmlir's. ``model_to_fp16`` hands the network back as it is (its R300
configs: ``fp16 = False``); ``model_to_ddp`` is FlagPerf's own DDP wrapper; ``backward`` skips
the step when the loss is not finite, else runs the backward, clips the gradients' norm to
``clip_grad`` (1.0), steps the optimizer (every ``gradient_accumulation_steps``: 1) and the lr
schedule, and then frees the XPU's cached memory (``torch_xmlir.xpu.empty_cache()``).

Here: ``convert_model`` gives each of chipperf's GLM blocks an MLP with the exact GELU (the same
two linear layers and dropout, so the weights and their names stay); chipperf's GLM already uses
torch's own layer norm. ``model_to_fp16`` as FlagPerf's. ``backward`` as FlagPerf's (through the
loop's grad scaler when a run is fp16, which FlagPerf's R300 configs are not), its
``backward_step`` (backward and clipping) part of the hook.
"""

from __future__ import annotations

import math
import os
from typing import Any

import torch
import torch.nn.functional as F
import torch_xmlir  # Kunlunxin's PyTorch plug-in (the vendor image has it)
from torch import nn

from chipperf_runtime.training.driver.torchstep import clip_and_step, scaled_backward

HOOKS = ["convert_model", "model_to_fp16", "backward"]
NOT_CARRIED = {
    "model_to_ddp": "FlagPerf's own DistributedDataParallel wrapper (its driver's, the same in "
        "its nvidia folder); chipperf's glm loop wraps in torch's DistributedDataParallel",
    "checkpoint_activations": "torch_xmlir's activation checkpointing in the rebuilt "
        "transformer; chipperf's glm has no activation checkpointing (it keeps every "
        "activation)",
    "training on past a NaN loss": "FlagPerf skips the step and trains on; the hook skips it too, "
        "but chipperf's loop then ends the run (a loss that is not finite is a diverged run)",
}
CLIP_GRAD = 1.0   # FlagPerf's glm clip_grad (training/benchmarks/glm/pytorch/config/_base.py)


class ExactGeluMLP(nn.Module):
    """GLM's MLP (the block's own layers and dropout) with the exact GELU."""

    def __init__(self, mlp: Any) -> None:
        super().__init__()
        self.dense_h_to_4h: nn.Module = mlp.dense_h_to_4h
        self.dense_4h_to_h: nn.Module = mlp.dense_4h_to_h
        self.dropout: nn.Module = mlp.dropout

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        return self.dropout(self.dense_4h_to_h(F.gelu(self.dense_h_to_4h(hidden))))


def convert_model(model: nn.Module, config: Any) -> nn.Module:
    """Each block's MLP with the exact GELU in place of the tanh form (kunlunxin's layers)."""
    blocks = [m for m in model.modules() if hasattr(m, "mlp") and hasattr(m.mlp, "dense_h_to_4h")]
    if not blocks:
        raise ValueError("kunlunxin glm adapter: the network has no GLM block with an MLP "
                         "(dense_h_to_4h): is this chipperf's GLM?")
    if os.environ.get("RANK", "0") == "0":
        print(f"kunlunxin glm adapter: convert_model: {len(blocks)} MLPs with the exact GELU",
              flush=True)
    for block in blocks:
        block.mlp = ExactGeluMLP(block.mlp)
    return model


def model_to_fp16(model: nn.Module, config: Any) -> nn.Module:
    """The network unchanged (FlagPerf's)."""
    return model


def backward(step: int, loss: torch.Tensor, optimizer: torch.optim.Optimizer,
             scaler: Any = None) -> None:
    """Skip a non-finite loss; else backward, clipping to 1.0 and the optimizer's step; then
    free the XPU's cached memory (FlagPerf's)."""
    if math.isfinite(float(loss.detach())):
        params = [p for group in optimizer.param_groups for p in group["params"]]
        scaled_backward(loss, scaler)
        clip_and_step(optimizer, params, scaler, CLIP_GRAD)
    elif os.environ.get("RANK", "0") == "0":
        print("kunlunxin glm adapter: the loss is not finite: the step is skipped", flush=True)
    torch_xmlir.xpu.empty_cache()
