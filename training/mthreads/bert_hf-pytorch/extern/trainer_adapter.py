"""Moore Threads' bert_hf adaptation through chipperf's adapter hooks
(chipperf_runtime/training/driver/adapter.py).

What FlagPerf's mthreads bert_hf adapter does (FlagOpen/FlagPerf@1b5a0303
training/mthreads/bert_hf-pytorch/extern/trainer_adapter.py): ``create_grad_scaler`` makes
torch_musa's GradScaler when the config's ``amp`` is set; ``train_one_step`` runs the step
itself: the masked-LM loss of ``model(input_ids=..., labels=...)`` (under MUSA autocast and
with the scaled backward and scaler step when there is a scaler; plainly otherwise), the
optimizer stepping every ``gradient_accumulation_steps`` (1 in FlagPerf's bert_hf config).

Here ``create_grad_scaler`` makes torch_musa's GradScaler when the config's ``dtype`` is fp16
(FlagPerf's ``amp``; the text loop's fp16 is autocast with a loss scaler), else none, and
``train_one_step`` is written for chipperf's arguments: the batch is chipperf's
(``batch.inputs`` for the model, ``batch.labels`` with -100 where no token is scored), the loss
is the same cross entropy over the labelled positions that the Hugging Face model computes
from ``labels`` (chipperf's ``token_loss``), under autocast by the config's ``dtype``, and the
optimizer steps every step (chipperf's loop has no gradient accumulation; FlagPerf's bert_hf
accumulates 1 step, the same). The loop zeroes the gradients before and steps the lr schedule
after it, as FlagPerf's trainer does around it.
"""

from __future__ import annotations

from typing import Any

import torch
import torch_musa  # Moore Threads' PyTorch plug-in (the vendor image has it)

from chipperf_runtime.training.driver.torchstep import backward_and_optimizer_step
from chipperf_runtime.training.hftext.train import token_loss

HOOKS = ["create_grad_scaler", "train_one_step"]
NOT_CARRIED: dict[str, str] = {}
AUTOCAST = {"bf16": torch.bfloat16, "fp16": torch.float16}


def create_grad_scaler(config: Any) -> Any:
    """torch_musa's GradScaler for fp16 (FlagPerf's: when its amp is set), else none."""
    return torch_musa.amp.GradScaler() if config.dtype == "fp16" else None


def train_one_step(model: torch.nn.Module, batch: Any, optimizer: torch.optim.Optimizer,
                   step: int, scaler: Any, config: Any) -> torch.Tensor:
    """Forward (autocast by dtype), the masked-LM loss, backward and optimizer step."""
    with torch.autocast(device_type=batch.labels.device.type, dtype=AUTOCAST.get(config.dtype),
                        enabled=config.dtype in AUTOCAST):
        loss = token_loss(model(**batch.inputs).logits, batch.labels)
    backward_and_optimizer_step(loss, optimizer, scaler)
    return loss
