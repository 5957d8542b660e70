"""GLM's multiple-choice cloze (FlagPerf's glm on SuperGLUE ReCoRD): a sample is a passage
and query with a blank and its candidate fillers, one sequence per candidate
(``hftext.record``); the model scores each candidate (``GLMForMultiTokenCloze``), the loss is
the cross entropy over a sample's candidates (the first is the correct one when training),
and the metric is FlagPerf's: the share of evaluation samples whose best-scored candidate is
one of their correct ones (its ``em_evaluate``). Work is counted in samples.

The starting weights are GLM's released ones when ``from_checkpoint`` is set
(``init_checkpoint``, relative to the data dir: a THUDM/GLM Megatron state dict, read by
``hftext.megatron_weights``; ``models.glm.load_glm_state`` loads it: the model has GLM's
own names).

The FLOPs of a sample depend on its candidates: ``seq_len`` is the pair (sequence width, mean
candidates per training sample); the forward FLOPs are counted on one candidate sequence and
a training sample costs 3 x that x the mean candidates.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import torch
from torch import nn

from chipperf_runtime.models.glm import load_glm_state
from chipperf_runtime.training.driver import Config, DataError, DistEnv, split_batch
from chipperf_runtime.training.hftext import record
from chipperf_runtime.training.hftext.megatron_weights import load_checkpoint
from chipperf_runtime.training.hftext.tasks import Inputs, Scorer, Tensors, TokenTask

INPUTS = ("input_ids", "position_ids", "sep", "target_ids", "logit_mask", "choice_mask")


def cloze_score(net: nn.Module, batch: Tensors) -> tuple[torch.Tensor, int]:
    """(samples whose best-scored candidate is a correct one, samples)."""
    assert batch.scored is not None, "an evaluation batch carries its answers"
    best = net(**batch.inputs).logits.argmax(dim=-1, keepdim=True)
    return batch.scored.gather(1, best).sum(), int(best.shape[0])


@dataclass(frozen=True)
class MultipleChoiceCloze(TokenTask):
    metric: str = "accuracy"
    work_unit: str = "samples"

    def open(self, data_dir: Path, arch: Any, cfg: Config, prepare: str) -> record.RecordData:
        return record.open_dataset(data_dir, cfg.train_data, cfg.eval_data, arch.vocab_size,
                                   arch.max_sequence_length, prepare)

    def seq_len(self, data: record.RecordData, cfg: Config) -> tuple[int, float]:
        return data.train.width, round(data.train.mean_choices(), 3)

    def check(self, data: record.RecordData, cfg: Config, dist: DistEnv) -> None:
        split_batch(cfg.global_batch_size, dist.world_size)
        if len(data.train) < cfg.global_batch_size:
            raise DataError(f"the train split has {len(data.train)} samples, fewer than one "
                            f"global batch ({cfg.global_batch_size})")

    def train(self, data: record.RecordData, cfg: Config, dist: DistEnv,
              epoch: int) -> Iterator[record.ClozeBatch]:
        order = np.random.default_rng([cfg.seed, epoch]).permutation(len(data.train))
        local = cfg.global_batch_size // dist.world_size
        for start in range(0, len(order) - cfg.global_batch_size + 1, cfg.global_batch_size):
            yield data.train.batch(order[start + dist.rank * local: start + (dist.rank + 1) * local])

    def eval(self, data: record.RecordData, cfg: Config, dist: DistEnv) -> list[record.ClozeBatch]:
        mine = np.arange(dist.rank, self.eval_size(data, cfg), dist.world_size)
        local = cfg.global_batch_size // dist.world_size
        return [data.eval.batch(mine[i:i + local]) for i in range(0, len(mine), local)]

    def eval_size(self, data: record.RecordData, cfg: Config) -> int:
        return min(len(data.eval), cfg.eval_samples or len(data.eval))

    def tensors(self, batch: record.ClozeBatch, device: torch.device) -> Tensors:
        def tensor(a: np.ndarray) -> torch.Tensor:
            return torch.from_numpy(np.ascontiguousarray(a)).to(device, non_blocking=True)
        inputs = {name: tensor(getattr(batch, name)) for name in INPUTS}
        labels = torch.zeros(batch.input_ids.shape[0], dtype=torch.long, device=device)
        answers = None if batch.answers is None else tensor(batch.answers)
        return Tensors(inputs, labels, answers)

    def example(self, seq_len: Any, device: torch.device) -> Inputs:
        """One sample of one candidate of the sequence width, its span at the end."""
        width = int(seq_len[0] if isinstance(seq_len, tuple) else seq_len)
        zeros = torch.zeros(1, 1, width, dtype=torch.long, device=device)
        sep = torch.full((1, 1), width - 1, dtype=torch.long, device=device)
        return {"input_ids": zeros, "position_ids": zeros.unsqueeze(2).expand(1, 1, 2, width),
                "sep": sep, "target_ids": zeros, "logit_mask": torch.ones_like(zeros),
                "choice_mask": torch.ones(1, 1, dtype=torch.long, device=device)}

    def work(self, batch: Tensors) -> int:
        return int(batch.labels.shape[0])

    def train_flops(self, forward: int, seq_len: Any) -> float:
        return 3.0 * forward * float(seq_len[1])     # per sample, at the mean candidates

    def scorer(self, data: Any) -> Scorer:
        return cloze_score

    def initialise(self, net: nn.Module, data: record.RecordData, cfg: Config) -> str:
        if not cfg.from_checkpoint:
            return "random"
        file = data.root / cfg.init_checkpoint
        load_checkpoint(net, file, "GLM's weights (FlagPerf's blocklm-large-blank)", load_glm_state)
        return str(file)
