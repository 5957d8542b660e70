"""metax's glm adaptation through chipperf's adapter hooks (chipperf_runtime/training/driver/adapter.py).

What FlagPerf's metax glm folder does (FlagOpen/FlagPerf@1b5a0303 training/metax/glm-pytorch/extern/):
its ``convert_model`` rebuilds GLM's transformer from ``extern/layers`` so that every layer
norm is apex's FusedLayerNorm (``layers/layernorm.py``) and loads the model's weights into it.
Here ``convert_model`` swaps each ``torch.nn.LayerNorm`` of chipperf's GLM (two per block and
the final one) for ``layers.layernorm.LayerNorm`` holding the same weight, bias and eps
(``chipperf_runtime.models.glm.swap_layer_norms``, which dcu's glm adapter uses too).

FlagPerf's adapter's other functions are not vendor steps: that adapter, its converter and its
layers are those of FlagPerf's nvidia glm folder (``git diff`` of the two folders at 1b5a0303
shows only layernorm.py's line ending); NOT_CARRIED says, for the plan and run.json,
what they did and what chipperf's glm case does instead.
"""

from __future__ import annotations

from typing import Any

import torch
from layers.layernorm import LayerNorm

from chipperf_runtime.models.glm import swap_layer_norms

HOOKS = ["convert_model"]
NOT_CARRIED = {
    "model_to_fp16": "FlagPerf's GLM fp16 (model.half() in FP16_Module, for FP16_Optimizer's "
                     "fp32 master weights), the same in its nvidia folder, so FlagPerf's GLM "
                     "recipe, not a metax step; chipperf's glm loop (hftext) trains in the "
                     "config's dtype by autocast over fp32 weights (bf16 by default; fp16 with "
                     "torch.amp's GradScaler, not FP16_Module's fp16 copy of the weights)",
    "model_to_ddp": "FlagPerf's own DistributedDataParallel wrapper, the same in its nvidia "
                    "folder; chipperf's glm loop wraps in torch's DistributedDataParallel",
    "backward": "FP16_Optimizer's master-gradient step with a NaN-loss skip and gradient "
                "clipping, the same in its nvidia folder, so FlagPerf's GLM recipe, not a metax "
                "step; chipperf's glm loop runs the backward (through its GradScaler for fp16), "
                "clipping by grad_clip_norm, optimizer step",
}


def convert_model(model: torch.nn.Module, config: Any) -> torch.nn.Module:
    """``model`` with apex's fused layer norm in place of each torch LayerNorm."""
    swap_layer_norms(model, LayerNorm)
    return model
