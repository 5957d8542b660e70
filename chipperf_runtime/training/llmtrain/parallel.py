"""The parallel layout of the LLM cases: a (pipeline, data, expert, tensor) device mesh,
tensor parallelism with DTensor (torch.distributed.tensor.parallel), the experts of a
mixture-of-experts layer split over the expert- and tensor-parallel groups
(``llmtrain.experts``), FSDP2 (torch.distributed.fsdp.fully_shard) over the data-parallel ranks,
and pipeline stages (``llmtrain.pipeline``).

``world = pipeline_parallel x data_parallel x tensor_parallel``. Ranks are laid out pipeline
outermost, tensor innermost: the tensor-parallel ranks of a group are consecutive (one node
holds a whole group when ``tensor_parallel`` divides the processes per node), so TP traffic
stays inside a node. Expert parallelism borrows data-parallel ranks (``expert_parallel``
divides ``data_parallel``, DeepSpeed-MoE's and torchtitan's arrangement): the data-parallel
dimension is ``dp_rep x ep``; dense weights are FSDP-sharded over all of it, the experts over
``dp_rep`` only (each expert-parallel rank holds different experts).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import torch
from torch import nn
from torch.distributed.device_mesh import DeviceMesh, init_device_mesh
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard
from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module

from chipperf_runtime.training.llmtrain.arch import expert_width, experts
from chipperf_runtime.training.llmtrain.experts import shard_experts

# the pipeline schedules of torch.distributed.pipelining by config name -> virtual stages per rank
SCHEDULES = {"gpipe": 1, "1f1b": 1, "interleaved_1f1b": 2}


@dataclass(frozen=True)
class Layout:
    """Parallel degrees of one run (data_parallel is what the world leaves)."""

    world_size: int
    tensor_parallel: int = 1
    pipeline_parallel: int = 1
    expert_parallel: int = 1
    pipeline_schedule: str = "1f1b"

    @property
    def data_parallel(self) -> int:
        return self.world_size // (self.tensor_parallel * self.pipeline_parallel)

    @property
    def stages_per_rank(self) -> int:
        return SCHEDULES.get(self.pipeline_schedule, 1) if self.pipeline_parallel > 1 else 1

    @property
    def stages(self) -> int:
        return self.pipeline_parallel * self.stages_per_rank

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "world_size": self.world_size, "data_parallel": self.data_parallel,
            "tensor_parallel": self.tensor_parallel, "pipeline_parallel": self.pipeline_parallel,
            "expert_parallel": self.expert_parallel}
        if self.pipeline_parallel > 1:
            out["pipeline_schedule"] = self.pipeline_schedule
        return out


def layout_problems(layout: Layout, nproc_per_node: int, values: Mapping[str, Any]) -> list[str]:
    """Why this layout cannot run the model of these config values on this world (every
    reason)."""
    tp, pp = layout.tensor_parallel, layout.pipeline_parallel
    if tp < 1 or pp < 1 or layout.world_size % (tp * pp):
        shown = f"tensor_parallel {tp}" + (f" x pipeline_parallel {pp}" if pp != 1 else "")
        return [f"{shown} does not divide the world size "
                f"{layout.world_size}: choose degrees whose product divides "
                f"{layout.world_size} (data parallel is the world over that product)"]
    problems = []
    if nproc_per_node % tp:
        problems.append(f"tensor_parallel {tp} does not divide the {nproc_per_node} processes "
                        "per node: a tensor-parallel group must sit inside one node")
    heads, kv_heads = values["num_attention_heads"], values["num_key_value_heads"]
    if heads % tp or kv_heads % tp:
        problems.append(f"tensor_parallel {tp} must divide the {heads} attention heads and the "
                        f"{kv_heads} key/value heads")
    if expert_width(values) % tp:
        problems.append(f"tensor_parallel {tp} must divide the MLP width "
                        f"{expert_width(values)}")
    return problems + _pipeline_problems(layout, values) + _expert_problems(layout, values)


def _pipeline_problems(layout: Layout, values: Mapping[str, Any]) -> list[str]:
    if layout.pipeline_schedule not in SCHEDULES:
        return [f"pipeline_schedule {layout.pipeline_schedule!r} is not one of "
                f"{', '.join(SCHEDULES)}"]
    if layout.pipeline_parallel == 1:
        return []
    layers, stages = values["num_hidden_layers"], layout.stages
    problems = []
    if layers % stages:
        per = f" ({layout.stages_per_rank} per rank, {layout.pipeline_schedule})" \
            if layout.stages_per_rank > 1 else ""
        problems.append(f"pipeline_parallel {layout.pipeline_parallel}: {stages} pipeline "
                        f"stages{per} do not divide the {layers} decoder layers: each stage "
                        "holds an equal contiguous slice")
    if experts(values)[0] > 1:
        problems.append("pipeline_parallel must be 1 for a mixture-of-experts model: its "
                        "load-balancing loss spans every layer's router (use expert_parallel)")
    return problems


def _expert_problems(layout: Layout, values: Mapping[str, Any]) -> list[str]:
    ep, routed = layout.expert_parallel, experts(values)[0]
    if ep == 1:
        return []
    if ep < 1 or routed <= 1:
        return [f"expert_parallel {ep} needs a mixture-of-experts model (this one has "
                f"{routed} expert per layer): use 1"]
    problems = []
    if routed % ep:
        problems.append(f"expert_parallel {ep} does not divide the {routed} experts per "
                        "layer: each expert-parallel rank holds an equal share")
    if layout.data_parallel % ep:
        problems.append(f"expert_parallel {ep} does not divide the data-parallel degree "
                        f"{layout.data_parallel} (world {layout.world_size} / tensor_parallel "
                        f"{layout.tensor_parallel} / pipeline_parallel "
                        f"{layout.pipeline_parallel}): expert parallelism uses data-parallel "
                        "ranks")
    return problems


@dataclass(frozen=True)
class Mesh:
    """The ("pp", "dp_rep", "ep", "tp") device mesh and its flattened "dp" = ("dp_rep", "ep")
    (kept here: torch deprecates slicing a flattened dimension back out of the root mesh)."""

    root: DeviceMesh
    dp: DeviceMesh

    def __getitem__(self, name: str) -> DeviceMesh:
        return self.dp if name == "dp" else self.root[name]


def make_mesh(device_type: str, layout: Layout) -> Mesh:
    ep = layout.expert_parallel
    root = init_device_mesh(device_type, (layout.pipeline_parallel, layout.data_parallel // ep,
                                          ep, layout.tensor_parallel),
                            mesh_dim_names=("pp", "dp_rep", "ep", "tp"))
    return Mesh(root, root["dp_rep", "ep"]._flatten("dp"))


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


def apply_parallelism(model: nn.Module, layers: list[nn.Module], mesh: Mesh,
                      layout: Layout, dtype: torch.dtype,
                      reshard_after_forward: bool = True) -> nn.Module:
    """TP (and EP) inside each decoder layer on mesh["tp"] (and mesh["ep"]), then FSDP2 over
    mesh["dp"]: each decoder layer its own unit (its experts one over mesh["dp_rep"]), the rest
    of ``model`` (embeddings, final norm, lm_head: those this stage holds) the root's."""
    policy = MixedPrecisionPolicy(param_dtype=dtype, reduce_dtype=torch.float32)
    for layer in layers:
        mlp: Any = layer.mlp
        moe = hasattr(mlp, "experts")
        if layout.tensor_parallel > 1:
            parallelize_module(layer, mesh["tp"], tensor_parallel_plan(layer, moe))
        if moe and (layout.tensor_parallel > 1 or layout.expert_parallel > 1):
            shard_experts(mlp, mlp.experts, mesh["tp"], mesh["ep"])
        if moe and layout.expert_parallel > 1:
            fully_shard(mlp.experts, mesh=mesh["dp_rep"], mp_policy=policy,
                        reshard_after_forward=reshard_after_forward)
        fully_shard(layer, mesh=mesh["dp"], mp_policy=policy,
                    reshard_after_forward=reshard_after_forward)
    fully_shard(model, mesh=mesh["dp"], mp_policy=policy, reshard_after_forward=False)
    return model


def mesh_rank(mesh: Mesh | None, dim: str) -> int:
    """This process's rank along one mesh dimension (0 without a mesh)."""
    return 0 if mesh is None else mesh[dim].get_local_rank()
