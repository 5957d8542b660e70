"""Pipeline parallelism for the LLM cases with torch.distributed.pipelining.

A pipeline stage is a contiguous, equal slice of the decoder layers of transformers' causal
LM (the embeddings on the first stage, the final norm and lm_head on the last), kept under the
full model's parameter names so that initialisation does not depend on the layout. Each rank
of the "pp" mesh dimension holds one stage (GPipe, 1F1B) or two (interleaved 1F1B: stage
``rank + v * pp``). One optimizer step's micro-batches (the gradient accumulation) go through
the schedule together; the cross entropy is computed on the last stage and broadcast over the
pipeline group. Evaluation is forward-only: activations sent stage to stage with send/recv.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import torch
import torch.distributed as tdist
import torch.nn.functional as F
from torch import nn
from torch.distributed.pipelining import PipelineStage, Schedule1F1B, ScheduleGPipe, ScheduleInterleaved1F1B

from chipperf_runtime.training.llmtrain.context import ContextShard
from chipperf_runtime.training.llmtrain.parallel import Layout, Mesh


@dataclass(frozen=True)
class SequenceSplit:
    """How the hidden states a stage receives relate to the whole sequence: context-parallel
    part (``llmtrain.context``) and, between stages, split ``tensor`` ways by sequence
    parallelism (``llmtrain.sequence``)."""

    context: ContextShard | None = None
    tensor: int = 1

    def positions(self, length: int, tokens: bool, device: torch.device) -> torch.Tensor:
        """[1, n] positions of this rank's tokens, from the length of a stage's input (token
        ids when ``tokens``, else hidden states)."""
        local = length if tokens else length * self.tensor
        if self.context is None:
            return torch.arange(local, device=device).unsqueeze(0)
        return self.context.positions(local * self.context.size, device).unsqueeze(0)


class Trunk(nn.Module):
    """The part of ``model.model`` a stage holds (absent parts are None)."""

    def __init__(self, full: Any, layers: range, first: bool, last: bool):
        super().__init__()
        self.embed_tokens = full.embed_tokens if first else None
        self.layers = nn.ModuleDict({str(i): full.layers[i] for i in layers})
        self.norm = full.norm if last else None
        self.rotary_emb = full.rotary_emb


class Stage(nn.Module):
    """One pipeline stage of a transformers ``*ForCausalLM``: token ids (first stage) or hidden
    states in, hidden states or logits (last stage) out."""

    def __init__(self, full: Any, layers: range, first: bool, last: bool,
                 split: SequenceSplit = SequenceSplit()):
        super().__init__()
        self.config, self.split = full.config, split
        self.model = Trunk(full.model, layers, first, last)
        self.lm_head = full.lm_head if last else None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        trunk = self.model
        if trunk.embed_tokens is not None:
            x = trunk.embed_tokens(x)
        positions = self.split.positions(x.shape[1], trunk.embed_tokens is not None, x.device)
        rotary = trunk.rotary_emb(x, positions)
        for layer in trunk.layers.values():    # causal attention: sdpa with no mask
            x = layer(x, attention_mask=None, position_embeddings=rotary, position_ids=positions)
        if trunk.norm is not None:
            x = trunk.norm(x)
        return self.lm_head(x) if self.lm_head is not None else x


def stage_indices(layout: Layout, pp_rank: int) -> list[int]:
    """The stages this rank holds (looped for interleaved schedules)."""
    return [pp_rank + v * layout.pipeline_parallel for v in range(layout.stages_per_rank)]


def split_stages(model: Any, layout: Layout, pp_rank: int,
                 context: ContextShard | None = None) -> list[Stage]:
    """This rank's stages of the (meta-built) model."""
    layers, stages = model.config.num_hidden_layers, layout.stages
    per = layers // stages
    split = SequenceSplit(context, layout.tensor_parallel if layout.sequence_parallel else 1)
    return [Stage(model, range(s * per, (s + 1) * per), s == 0, s == stages - 1, split)
            for s in stage_indices(layout, pp_rank)]


def cross_entropy(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]).float(), targets.reshape(-1))


@dataclass
class Pipeline:
    """This rank's stages and the schedule that runs one optimizer step's micro-batches."""

    modules: list[Stage]
    schedule: Any
    group: tdist.ProcessGroup
    layout: Layout
    rank: int                      # pipeline rank
    activation_dtype: torch.dtype

    @property
    def last(self) -> bool:
        return self.rank == self.layout.pipeline_parallel - 1

    def train_step(self, inputs: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        """Forward and backward of every micro-batch (gradients scaled by their count); the
        mean cross entropy, on every rank of the pipeline."""
        losses: list[torch.Tensor] = []
        self.schedule.step(inputs if self.rank == 0 else None, target=targets, losses=losses)
        mean = torch.stack(losses).mean().detach() if self.last else torch.zeros((), device=inputs.device)
        return self.broadcast(mean)

    def broadcast(self, value: torch.Tensor) -> torch.Tensor:
        value = value.to(torch.float32).contiguous()
        tdist.broadcast(value, group=self.group, group_src=self.layout.pipeline_parallel - 1)
        return value

    @torch.no_grad()
    def eval_loss(self, inputs: torch.Tensor, targets: torch.Tensor, hidden: int) -> torch.Tensor | None:
        """Forward only, stage after stage; the cross entropy on the last stage's rank (None on
        the others)."""
        pp, x = self.layout.pipeline_parallel, inputs
        mine = dict(zip(stage_indices(self.layout, self.rank), self.modules))
        for stage in range(self.layout.stages):
            if stage not in mine:
                continue
            if stage > 0:
                shape = (inputs.shape[0], inputs.shape[1] // self.modules[0].split.tensor, hidden)
                x = torch.empty(shape, dtype=self.activation_dtype, device=inputs.device)
                tdist.recv(x, group=self.group, group_src=(stage - 1) % pp)
            x = mine[stage](x)
            if stage < self.layout.stages - 1:
                tdist.send(x.to(self.activation_dtype).contiguous(), group=self.group,
                           group_dst=(stage + 1) % pp)
        return cross_entropy(x, targets) if self.last else None


SCHEDULE_CLASSES: dict[str, Callable[..., Any]] = {
    "gpipe": ScheduleGPipe, "1f1b": Schedule1F1B, "interleaved_1f1b": ScheduleInterleaved1F1B}


def make_pipeline(stages: list[Stage], mesh: Mesh, layout: Layout, microbatches: int,
                  device: torch.device, activation_dtype: torch.dtype) -> Pipeline:
    """PipelineStages of this rank's (parallelised, materialised) stages and the schedule."""
    group, rank = mesh["pp"].get_group(), mesh["pp"].get_local_rank()
    pipes = [PipelineStage(module, index, layout.stages, device, group=group)
             for module, index in zip(stages, stage_indices(layout, rank))]
    schedule_class = SCHEDULE_CLASSES[layout.pipeline_schedule]
    schedule = schedule_class(pipes if layout.stages_per_rank > 1 else pipes[0],
                              n_microbatches=microbatches, loss_fn=cross_entropy)
    return Pipeline(stages, schedule, group, layout, rank, activation_dtype)
