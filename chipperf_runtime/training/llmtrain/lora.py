"""LoRA fine-tuning for the LLM cases (llama2_7b_finetune): peft's LoRA layers injected into
transformers' model on the meta device, the base frozen, the adapters initialised as peft
does (A Kaiming-uniform, B zero: the adapted model starts as the base), seeded by the
parameter's place in the model so that every layout starts from the same adapters.

The knobs (a case's ``_base.py``): ``lora_rank`` (r), ``lora_alpha`` (the update is scaled by
alpha / r), ``lora_dropout`` and ``lora_target_modules`` (Llama module names; keys of
``arch.lora_widths``).
"""

from __future__ import annotations

import math
from typing import Any

import torch
from torch import nn
from torch.distributed.tensor import DTensor

from chipperf_runtime.training.driver import Config
from chipperf_runtime.training.driver.config import BASE, BASE_FILE, OVERRIDE, VENDOR
from chipperf_runtime.training.llmtrain import arch
from chipperf_runtime.training.llmtrain.model import set_shard

# where a knob's value came from (``Config.source``), for the messages
SET_BY = {BASE: f"the case's config/{BASE_FILE}", VENDOR: "the vendor config", OVERRIDE: "--set"}


def lora_problems(cfg: Config, values: dict[str, Any]) -> list[str]:
    """Every bad LoRA knob, each naming the knob, its value and what it must be."""
    problems = []
    rank = cfg.lora_rank
    if isinstance(rank, bool) or not isinstance(rank, int) or rank < 1:
        problems.append(f"lora_rank = {rank!r} ({SET_BY.get(cfg.source('lora_rank'))}): the "
                        "LoRA rank must be a whole number >= 1 (FlagPerf's recipe: 8)")
    if not isinstance(cfg.lora_alpha, (int, float)) or cfg.lora_alpha <= 0:
        problems.append(f"lora_alpha = {cfg.lora_alpha!r} must be a number > 0")
    if not isinstance(cfg.lora_dropout, (int, float)) or not 0 <= cfg.lora_dropout < 1:
        problems.append(f"lora_dropout = {cfg.lora_dropout!r} must be in [0, 1)")
    known = arch.lora_widths(values)
    targets = cfg.lora_target_modules
    if not isinstance(targets, tuple) or not targets or any(t not in known for t in targets):
        shown = list(targets) if isinstance(targets, tuple) else targets
        problems.append(f"lora_target_modules = {shown!r} must be a non-empty list of "
                        f"{', '.join(known)}")
    return problems


def add_lora(model: nn.Module, cfg: Config) -> nn.Module:
    """Inject the adapters (on whatever device the model is, the meta device here) and freeze
    everything else."""
    from peft import LoraConfig, inject_adapter_in_model

    config = LoraConfig(r=cfg.lora_rank, lora_alpha=cfg.lora_alpha,
                        lora_dropout=cfg.lora_dropout,
                        target_modules=list(cfg.lora_target_modules), bias="none",
                        task_type="CAUSAL_LM")
    model = inject_adapter_in_model(config, model)
    for name, param in model.named_parameters():
        param.requires_grad_(is_adapter(name))
    return model


def is_adapter(name: str) -> bool:
    return ".lora_A." in name or ".lora_B." in name


def init_adapters(model: nn.Module, seed: int, indices: dict[str, int]) -> None:
    """After ``model.materialize``: A as ``nn.Linear`` (Kaiming-uniform, a = sqrt(5)), B
    zero, each A from its own seeded generator (``indices``: the parameter's place in the
    whole model), shard by shard when FSDP holds them."""
    with torch.no_grad():
        for name, param in model.named_parameters():
            if not is_adapter(name):
                continue
            full = torch.zeros(param.shape, dtype=param.dtype, device=_local(param).device)
            if ".lora_A." in name:
                generator = torch.Generator(device=full.device).manual_seed(
                    seed * 100_003 + indices[name])
                nn.init.kaiming_uniform_(full, a=math.sqrt(5), generator=generator)
            set_shard(param, full)


def _local(param: torch.Tensor) -> torch.Tensor:
    return param.to_local() if isinstance(param, DTensor) else param
