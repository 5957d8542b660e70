"""Building an LLM case's network: transformers' model from its config on the meta device,
parallelised (``llmtrain.parallel``), then materialised shard by shard on the rank's device.

Initialisation does not depend on the layout: every parameter's full tensor is drawn from
its own seeded generator (normal(0, initializer_range) for matrices, ones for the RMSNorm
weights, as transformers initialises them) and each rank keeps its shard, so one process
and any TP x PP x EP x FSDP layout start from the same weights.
"""

from __future__ import annotations

from typing import Any, Callable

import torch
from torch import nn
from torch.distributed.tensor import DTensor, distribute_tensor

from chipperf_runtime.training.llmtrain.experts import ParallelExperts


def build_on_meta(model_class: Callable[..., nn.Module], config: Any) -> nn.Module:
    with torch.device("meta"):
        return model_class(config)


def count_parameters(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


def parameter_indices(model: nn.Module) -> dict[str, int]:
    """Each parameter's position in the whole model (its generator's seed)."""
    return {name: index for index, (name, _) in enumerate(model.named_parameters())}


def materialize(model: Any, device: torch.device, seed: int, std: float,
                indices: dict[str, int]) -> None:
    """Allocate the (sharded) parameters on ``device`` and fill them (see module doc), then
    rebuild the buffers transformers computes at construction (rotary frequencies). Tied
    embeddings (``tie_word_embeddings``: one process only, see llmtrain.case) stay tied.
    ``indices``: ``parameter_indices`` of the whole model (a pipeline stage holds part of it,
    under the same names)."""
    model.to_empty(device=device)
    if getattr(model.config, "tie_word_embeddings", False):
        model.tie_weights()          # to_empty gave lm_head its own tensor: share the embedding's
    experts = _expert_owners(model)
    with torch.no_grad():
        for name, param in model.named_parameters():
            index, owner = indices[name], experts.get(name)
            shape = owner[0].full_shape(owner[1]) if owner else param.shape  # a DTensor's is global
            full = _initial(shape, seed, index, std, device, param.dtype)
            set_shard(param, owner[0].take(owner[1], full) if owner else full)
    rotary = model.model.rotary_emb
    model.model.rotary_emb = type(rotary)(config=model.config).to(device)


def _expert_owners(model: nn.Module) -> dict[str, tuple[ParallelExperts, str]]:
    """The experts' tensor-parallel slices: parameter name -> (its module, its own name)."""
    return {f"{name}.{pname}": (module, pname)
            for name, module in model.named_modules() if isinstance(module, ParallelExperts)
            for pname, _ in module.named_parameters(recurse=False)}


def _initial(shape: torch.Size, seed: int, index: int, std: float, device: torch.device,
             dtype: torch.dtype) -> torch.Tensor:
    if len(shape) == 1:
        return torch.ones(shape, device=device, dtype=dtype)
    generator = torch.Generator(device=device).manual_seed(seed * 100_003 + index)
    return torch.empty(shape, device=device, dtype=dtype).normal_(0.0, std, generator=generator)


def set_shard(param: torch.Tensor, full: torch.Tensor) -> None:
    if isinstance(param, DTensor):
        shard = distribute_tensor(full, param.device_mesh, param.placements, src_data_rank=None)
        param.to_local().copy_(shard.to_local())
    else:
        param.copy_(full)
