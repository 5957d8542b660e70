"""The parallel layout of the LLM cases: a (pipeline, data, expert, context, tensor) device
mesh, tensor parallelism with DTensor (torch.distributed.tensor.parallel) and Megatron's
sequence parallelism beside it (``llmtrain.sequence``), context parallelism
(``llmtrain.context``), the experts of a
mixture-of-experts layer split over the expert- and tensor-parallel groups
(``llmtrain.experts``), FSDP2 (torch.distributed.fsdp.fully_shard) over the data-parallel ranks,
and pipeline stages (``llmtrain.pipeline``).

``world = pipeline_parallel x data_parallel x context_parallel x tensor_parallel``. Ranks are
laid out pipeline outermost, tensor innermost: the tensor-parallel ranks of a group are consecutive (one node
holds a whole group when ``tensor_parallel`` divides the processes per node), so TP traffic
stays inside a node. Expert parallelism borrows data-parallel ranks (``expert_parallel``
divides ``data_parallel``, DeepSpeed-MoE's and torchtitan's arrangement): the data-parallel
dimension is ``dp_rep x ep``; dense weights are FSDP-sharded over all of it, the experts over
``dp_rep`` only (each expert-parallel rank holds different experts). The context-parallel
ranks of a data-parallel rank read the same samples, each a part of every sequence; FSDP2
shards and averages over them as over data-parallel ranks (``dp_rep x ep x cp``, the experts
``dp_rep x cp``).
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
from chipperf_runtime.training.llmtrain.seqsplit import sequence_split_problems
from chipperf_runtime.training.llmtrain.sequence import (
    sequence_parallel_plan,
    split_expert_output,
    split_model_edges,
)

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
    context_parallel: int = 1
    sequence_parallel: bool = False

    @property
    def data_parallel(self) -> int:
        return self.world_size // (self.tensor_parallel * self.pipeline_parallel *
                                   self.context_parallel)

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
            "expert_parallel": self.expert_parallel, "context_parallel": self.context_parallel,
            "sequence_parallel": self.sequence_parallel}
        if self.pipeline_parallel > 1:
            out["pipeline_schedule"] = self.pipeline_schedule
        return out


def layout_problems(layout: Layout, nproc_per_node: int, values: Mapping[str, Any]) -> list[str]:
    """Why this layout cannot run the model of these config values on this world (every
    reason)."""
    tp, pp, cp = layout.tensor_parallel, layout.pipeline_parallel, layout.context_parallel
    if tp < 1 or pp < 1 or cp < 1 or layout.world_size % (tp * pp * cp):
        shown = f"tensor_parallel {tp}" + (f" x pipeline_parallel {pp}" if pp != 1 else "") + \
            (f" x context_parallel {cp}" if cp != 1 else "")
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
                        f"{layout.pipeline_parallel}{_context_part(layout)}): expert "
                        "parallelism uses data-parallel ranks")
    return problems


def _context_part(layout: Layout) -> str:
    cp = layout.context_parallel
    return f" / context_parallel {cp}" if cp > 1 else ""


def sequence_problems(layout: Layout, seq_len: int, attention: str) -> list[str]:
    """Context and sequence parallelism against the sequence length (``llmtrain.seqsplit``,
    also checked at plan time) and the case's attention (every reason)."""
    cp = layout.context_parallel
    problems = sequence_split_problems(seq_len, cp, layout.tensor_parallel,
                                       layout.sequence_parallel)
    if cp > 1 and attention != "sdpa":
        problems.append(f"context_parallel {cp}: this case attends with {attention!r}, which "
                        "has no context-parallel form (llmtrain/context.py replaces sdpa): use 1")
    return problems


@dataclass(frozen=True)
class Mesh:
    """The ("pp", "dp_rep", "ep", "cp", "tp") device mesh and its flattened parts (kept here:
    torch deprecates slicing a flattened dimension back out of the root mesh): "dp" =
    ("dp_rep", "ep"), the ranks that read different samples; "fsdp" = ("dp_rep", "ep", "cp"),
    what FSDP2 shards dense weights over; "fsdp_experts" = ("dp_rep", "cp"), the experts'."""

    root: DeviceMesh
    flat: Mapping[str, DeviceMesh]

    def __getitem__(self, name: str) -> DeviceMesh:
        return self.flat[name] if name in self.flat else self.root[name]


def make_mesh(device_type: str, layout: Layout) -> Mesh:
    ep, cp = layout.expert_parallel, layout.context_parallel
    root = init_device_mesh(device_type, (layout.pipeline_parallel, layout.data_parallel // ep,
                                          ep, cp, layout.tensor_parallel),
                            mesh_dim_names=("pp", "dp_rep", "ep", "cp", "tp"))
    dp = root["dp_rep", "ep"]._flatten("dp")
    if cp == 1:
        return Mesh(root, {"dp": dp, "fsdp": dp, "fsdp_experts": root["dp_rep"]})
    return Mesh(root, {"dp": dp, "fsdp": root["dp_rep", "ep", "cp"]._flatten("fsdp"),
                       "fsdp_experts": root["dp_rep", "cp"]._flatten("fsdp_experts")})


def tensor_parallel_plan(experts: bool) -> dict[str, Any]:
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
    """TP (with sequence parallelism when asked) and EP inside each decoder layer on
    mesh["tp"] and mesh["ep"], then FSDP2 over mesh["fsdp"] (data x context parallel): each
    decoder layer its own unit (its experts one over mesh["fsdp_experts"]), the rest of
    ``model`` (embeddings, final norm, lm_head: those this stage holds) the root's."""
    policy = MixedPrecisionPolicy(param_dtype=dtype, reduce_dtype=torch.float32)
    for layer in layers:
        mlp: Any = layer.mlp
        moe = hasattr(mlp, "experts")
        if layout.tensor_parallel > 1:
            parallelize_module(layer, mesh["tp"], layer_plan(moe, layout.sequence_parallel))
        if moe and (layout.tensor_parallel > 1 or layout.expert_parallel > 1):
            shard_experts(mlp, mlp.experts, mesh["tp"], mesh["ep"])
        if moe and layout.sequence_parallel:
            split_expert_output(mlp, mesh["tp"])
        if moe and layout.expert_parallel > 1:
            fully_shard(mlp.experts, mesh=mesh["fsdp_experts"], mp_policy=policy,
                        reshard_after_forward=reshard_after_forward)
        fully_shard(layer, mesh=mesh["fsdp"], mp_policy=policy,
                    reshard_after_forward=reshard_after_forward)
    if layout.sequence_parallel:
        split_model_edges(model, layers, mesh["tp"])
    fully_shard(model, mesh=mesh["fsdp"], mp_policy=policy, reshard_after_forward=False)
    return model


def layer_plan(experts: bool, sequence_parallel: bool) -> dict[str, Any]:
    plan = tensor_parallel_plan(experts)
    if sequence_parallel:
        plan.update(sequence_parallel_plan(experts))
    return plan


def mesh_rank(mesh: Mesh | None, dim: str) -> int:
    """This process's rank along one mesh dimension (0 without a mesh)."""
    return 0 if mesh is None else mesh[dim].get_local_rank()
