"""The parallel layout of the LLM cases: a (data, tensor) device mesh, tensor parallelism
with DTensor (torch.distributed.tensor.parallel), the same split of every expert of a
mixture-of-experts layer (``llmtrain.experts``), and FSDP2 (torch.distributed.fsdp.fully_shard)
over the data-parallel ranks.

``world = data_parallel x tensor_parallel``; the tensor-parallel ranks of one group are
consecutive (one node holds a whole group when ``tensor_parallel`` divides the processes per
node), so TP traffic stays inside a node and FSDP's traffic crosses nodes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
import torch.distributed as tdist
from torch import nn
from torch.distributed.device_mesh import DeviceMesh, init_device_mesh
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard
from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module

from chipperf_runtime.training.llmtrain.experts import shard_experts


@dataclass(frozen=True)
class Layout:
    """Parallel degrees of one run (data_parallel is what the world leaves)."""

    world_size: int
    tensor_parallel: int

    @property
    def data_parallel(self) -> int:
        return self.world_size // self.tensor_parallel

    def describe(self) -> dict[str, Any]:
        return {"world_size": self.world_size, "data_parallel": self.data_parallel,
                "tensor_parallel": self.tensor_parallel}


def layout_problems(layout: Layout, nproc_per_node: int, heads: int, kv_heads: int,
                    width: int) -> list[str]:
    """Why this layout cannot run this model on this world (every reason)."""
    tp, problems = layout.tensor_parallel, []
    if tp < 1 or layout.world_size % tp:
        return [f"tensor_parallel {tp} does not divide the world size {layout.world_size}: "
                f"use a divisor of {layout.world_size} (data parallel is world / tensor_parallel)"]
    if nproc_per_node % tp:
        problems.append(f"tensor_parallel {tp} does not divide the {nproc_per_node} processes "
                        "per node: a tensor-parallel group must sit inside one node")
    if heads % tp or kv_heads % tp:
        problems.append(f"tensor_parallel {tp} must divide the {heads} attention heads and the "
                        f"{kv_heads} key/value heads")
    if width % tp:
        problems.append(f"tensor_parallel {tp} must divide the MLP width {width}")
    return problems


def make_mesh(device_type: str, layout: Layout) -> DeviceMesh:
    return init_device_mesh(device_type, (layout.data_parallel, layout.tensor_parallel),
                            mesh_dim_names=("dp", "tp"))


def tensor_parallel_plan(layer: nn.Module, experts: bool) -> dict[str, Any]:
    """Megatron's split of a decoder layer: Q/K/V (and the SwiGLU gate/up) by columns, the
    attention output (and down) by rows; one all-reduce after each. MoE layers keep their
    router replicated and split every expert the same way (``llmtrain.experts``)."""
    plan: dict[str, Any] = {f"self_attn.{n}": ColwiseParallel() for n in ("q_proj", "k_proj", "v_proj")}
    plan["self_attn.o_proj"] = RowwiseParallel()
    if not experts:
        plan.update({"mlp.gate_proj": ColwiseParallel(), "mlp.up_proj": ColwiseParallel(),
                     "mlp.down_proj": RowwiseParallel()})
    return plan


def apply_parallelism(model: Any, mesh: DeviceMesh, layout: Layout, dtype: torch.dtype,
                      reshard_after_forward: bool = True) -> nn.Module:
    """TP (and EP) inside each decoder layer on mesh["tp"], then FSDP2 over mesh["dp"]: each
    decoder layer its own unit, the embeddings, final norm and lm_head the root's."""
    tp_mesh, dp_mesh = mesh["tp"], mesh["dp"]
    layers = model.model.layers
    for layer in layers:
        moe = hasattr(layer.mlp, "experts")
        if layout.tensor_parallel > 1:
            parallelize_module(layer, tp_mesh, tensor_parallel_plan(layer, moe))
        if moe and layout.tensor_parallel > 1:
            shard_experts(layer.mlp, layer.mlp.experts, tp_mesh)
    policy = MixedPrecisionPolicy(param_dtype=dtype, reduce_dtype=torch.float32)
    for layer in layers:
        fully_shard(layer, mesh=dp_mesh, mp_policy=policy,
                    reshard_after_forward=reshard_after_forward)
    fully_shard(model, mesh=dp_mesh, mp_policy=policy, reshard_after_forward=False)
    return model


def tp_rank(mesh: DeviceMesh) -> int:
    return mesh["tp"].get_local_rank()


def dp_rank(mesh: DeviceMesh) -> int:
    return mesh["dp"].get_local_rank()


def barrier() -> None:
    if tdist.is_initialized():
        tdist.barrier()
