"""Megatron's sequence parallelism beside tensor parallelism (``sequence_parallel = True``),
with torch.distributed.tensor.parallel's styles.

Between the tensor-parallel regions the residual stream of a decoder layer is split over the
tensor-parallel group by sequence: each rank holds ``seq / tp`` tokens, and the RMSNorms (the
only per-token work there: these models have no dropout, ``attention_dropout`` 0) run on that
part only (``SequenceParallel``; their weights stay whole, their gradients summed over the
group by DTensor). Entering attention or the MLP the sequence is all-gathered
(``PrepareModuleInput``: Shard(1) -> Replicate); leaving it the output projection's partial
sums are reduce-scattered over the sequence (``RowwiseParallel(output_layouts=Shard(1))``)
where plain TP all-reduces. A mixture-of-experts block (its experts split by
``llmtrain.experts``, which all-reduces their output) keeps its own all-reduce and takes this
rank's part of the sequence after it.

At the model's edges: the first decoder layer takes its rank's part of the embeddings
(backward: the gradient all-gathered, so every rank's embedding gradient is whole), and the
lm_head all-gathers the final norm's output (backward: each rank keeps its part, the loss
being computed whole on every rank of the group).
"""

from __future__ import annotations

from typing import Any

from torch import nn
from torch.distributed.device_mesh import DeviceMesh
from torch.distributed.tensor import Replicate, Shard
from torch.distributed.tensor.parallel import (
    PrepareModuleInput,
    PrepareModuleOutput,
    RowwiseParallel,
    SequenceParallel,
    parallelize_module,
)

SEQUENCE = Shard(1)     # [batch, seq, hidden]


def sequence_parallel_plan(experts: bool) -> dict[str, Any]:
    """The entries of a decoder layer's TP plan that sequence parallelism adds or replaces."""
    plan: dict[str, Any] = {
        "input_layernorm": SequenceParallel(use_local_output=True),
        "post_attention_layernorm": SequenceParallel(use_local_output=True),
        "self_attn": PrepareModuleInput(input_kwarg_layouts={"hidden_states": SEQUENCE},
                                        desired_input_kwarg_layouts={"hidden_states": Replicate()},
                                        use_local_output=True),
        "self_attn.o_proj": RowwiseParallel(output_layouts=SEQUENCE),
        "mlp": PrepareModuleInput(input_layouts=(SEQUENCE,), desired_input_layouts=(Replicate(),),
                                  use_local_output=True)}
    if not experts:
        plan["mlp.down_proj"] = RowwiseParallel(output_layouts=SEQUENCE)
    return plan


def split_expert_output(mlp: nn.Module, tp: DeviceMesh) -> None:
    """A mixture-of-experts block's (all-reduced, whole) output -> this rank's part."""
    parallelize_module(mlp, tp, PrepareModuleOutput(output_layouts=(Replicate(),),
                                                    desired_output_layouts=(SEQUENCE,),
                                                    use_local_output=True))


def split_model_edges(model: Any, layers: list[nn.Module], tp: DeviceMesh) -> None:
    """The sequence split at the model's (or this pipeline stage's) edges: entering the first
    decoder layer after the embeddings, the final norm, and the lm_head's all-gather."""
    trunk = model.model
    if trunk.embed_tokens is not None and layers:
        parallelize_module(layers[0], tp, PrepareModuleInput(
            input_layouts=(Replicate(),), desired_input_layouts=(SEQUENCE,),
            use_local_output=True))
    if trunk.norm is not None:
        parallelize_module(trunk.norm, tp, SequenceParallel(use_local_output=True))
    if getattr(model, "lm_head", None) is not None:
        parallelize_module(model.lm_head, tp, PrepareModuleInput(
            input_layouts=(SEQUENCE,), desired_input_layouts=(Replicate(),),
            use_local_output=True))
