"""What a text case trains on: the data format it reads (``textlm``), how a batch becomes the
model's inputs and labels, and what its metric and unit of work are.

``MaskedLM``: ``bert-mlm-shards-v1`` rows (``textlm.mlm``), BERT masking, metric MLM accuracy,
work in sequences. ``CausalLM``: 1-D token streams cut into windows (``textlm.tokens``),
next-token prediction, metric next-token accuracy, work in tokens. ``SpanCorruption``: T5's
objective on the masked-LM rows (``hftext.spans``), metric target-token accuracy, work in
sequences. Labels of -100 are ignored by the loss and the accuracy alike. (Summarisation,
``hftext.seq2seq``, has the same interface.)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Protocol

import numpy as np
import torch
from torch import nn

from chipperf_runtime.training.driver import Config, DataError, DistEnv, split_batch
from chipperf_runtime.training.hftext import flagperf_gpt2, spans
from chipperf_runtime.training.textlm import mlm, tokens

IGNORE = -100
Inputs = dict[str, torch.Tensor]


@dataclass(frozen=True)
class Tensors:
    """One batch on the device: the model's keyword inputs, the labels of its logits, and the
    positions the accuracy scores (None: every labelled one)."""

    inputs: Inputs
    labels: torch.Tensor
    scored: torch.Tensor | None = None


# (network, batch) -> (score summed over the batch, items scored), each summed over the ranks;
# the metric is their ratio
Scorer = Callable[[nn.Module, Tensors], tuple[Any, Any]]


def on_device(arrays: Mapping[str, np.ndarray], labels: np.ndarray,
              device: torch.device) -> Tensors:
    def tensor(a: np.ndarray) -> torch.Tensor:
        return torch.from_numpy(np.ascontiguousarray(a, dtype=np.int64)).to(device, non_blocking=True)
    return Tensors({k: tensor(v) for k, v in arrays.items()}, tensor(labels))


def positions(arch: Any) -> int:
    """The model's position limit (none for relative positions, e.g. T5)."""
    return int(getattr(arch, "max_position_embeddings", None) or 2**31)


class Task(Protocol):
    @property
    def metric(self) -> str: ...         # the EVALUATE / FINISHED metric name
    @property
    def work_unit(self) -> str: ...      # "samples" or "tokens"

    def open(self, data_dir: Path, arch: Any, cfg: Config, prepare: str) -> Any: ...
    def seq_len(self, data: Any, cfg: Config) -> int: ...
    def check(self, data: Any, cfg: Config, dist: DistEnv) -> None: ...
    def train(self, data: Any, cfg: Config, dist: DistEnv, epoch: int) -> Iterator[Any]: ...
    def eval(self, data: Any, cfg: Config, dist: DistEnv) -> list[Any]: ...
    def eval_size(self, data: Any, cfg: Config) -> int: ...
    def tensors(self, batch: Any, device: torch.device) -> Tensors: ...
    def example(self, seq_len: int, device: torch.device) -> Inputs: ...
    def work(self, batch: Tensors) -> int: ...
    def train_flops(self, forward: int, seq_len: int) -> float: ...
    def scorer(self, data: Any) -> Scorer: ...      # the evaluation metric of one batch
    def initialise(self, net: nn.Module, data: Any, cfg: Config) -> str: ...  # the weights' origin


def token_correct(logits: torch.Tensor, labels: torch.Tensor,
                  scored: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """(correct top-1 predictions, scored positions: ``scored``, else every labelled one), as
    device tensors (no sync)."""
    chosen = labels != IGNORE if scored is None else scored
    return ((logits.argmax(dim=-1) == labels) & chosen).sum(), chosen.sum()


def token_score(net: nn.Module, batch: Tensors) -> tuple[torch.Tensor, torch.Tensor]:
    """``token_correct`` of ``net``'s logits on ``batch``."""
    return token_correct(net(**batch.inputs).logits, batch.labels, batch.scored)


class TokenTask:
    """What the token-prediction tasks share: top-1 accuracy, random initial weights."""

    def scorer(self, data: Any) -> Scorer:
        return token_score

    def initialise(self, net: nn.Module, data: Any, cfg: Config) -> str:
        return "random"


@dataclass(frozen=True)
class MaskedLM(TokenTask):
    """BERT-style masked LM on ``bert-mlm-shards-v1`` (``token_types``: the model takes
    segment ids, as BERT does and DistilBERT does not)."""

    token_types: bool
    metric: str = "mlm_accuracy"
    work_unit: str = "samples"

    def open(self, data_dir: Path, arch: Any, cfg: Config, prepare: str) -> mlm.MLMDataset:
        return mlm.open_dataset(data_dir, arch.vocab_size, positions(arch), prepare)

    def seq_len(self, data: mlm.MLMDataset, cfg: Config) -> int:
        return data.seq_len

    def check(self, data: mlm.MLMDataset, cfg: Config, dist: DistEnv) -> None:
        split_batch(cfg.global_batch_size, dist.world_size)
        mlm.require_one_batch(data, cfg.global_batch_size)

    def train(self, data: mlm.MLMDataset, cfg: Config, dist: DistEnv,
              epoch: int) -> Iterator[mlm.Batch]:
        return mlm.train_batches(data, cfg.global_batch_size, dist.rank, dist.world_size,
                                 cfg.seed, epoch)

    def eval(self, data: mlm.MLMDataset, cfg: Config, dist: DistEnv) -> list[mlm.Batch]:
        local = cfg.global_batch_size // dist.world_size
        return mlm.eval_batches(data, local, dist.rank, dist.world_size, cfg.mask_seed,
                                cfg.eval_samples)

    def eval_size(self, data: mlm.MLMDataset, cfg: Config) -> int:
        return mlm.eval_rows(data, cfg.eval_samples)

    def tensors(self, batch: mlm.Batch, device: torch.device) -> Tensors:
        arrays = {"input_ids": batch.input_ids, "attention_mask": batch.attention_mask}
        if self.token_types:
            arrays["token_type_ids"] = batch.token_type_ids
        return on_device(arrays, batch.labels, device)

    def example(self, seq_len: int, device: torch.device) -> Inputs:
        ids = torch.zeros(1, seq_len, dtype=torch.long, device=device)
        return {"input_ids": ids}

    def work(self, batch: Tensors) -> int:
        return int(batch.labels.shape[0])

    def train_flops(self, forward: int, seq_len: int) -> float:
        return 3.0 * forward              # per sequence


@dataclass(frozen=True)
class CausalLM(TokenTask):
    """Next-token prediction on token streams cut into ``seq_len + 1`` windows."""

    dataset: str                  # the format's name in error messages
    metric: str = "lm_accuracy"
    work_unit: str = "tokens"
    causal_attention: bool = True  # every attention product under a causal mask (FINISHED)

    def open(self, data_dir: Path, arch: Any, cfg: Config, prepare: str) -> tokens.TokenDataset:
        """Token shards (``textlm.tokens``), or FlagPerf's gpt2 folder (a Megatron dataset)."""
        if flagperf_gpt2.is_flagperf_layout(data_dir):
            return flagperf_gpt2.open_dataset(data_dir, cfg.seq_len, arch.vocab_size)
        return tokens.open_dataset(data_dir, cfg.seq_len, arch.vocab_size, prepare,
                                   name=self.dataset)

    def seq_len(self, data: tokens.TokenDataset, cfg: Config) -> int:
        return int(cfg.seq_len)

    def check(self, data: tokens.TokenDataset, cfg: Config, dist: DistEnv) -> None:
        local = split_batch(cfg.global_batch_size, dist.world_size)
        tokens.check_batching(data, cfg.global_batch_size, local, dist.world_size)

    def train(self, data: tokens.TokenDataset, cfg: Config, dist: DistEnv,
              epoch: int) -> Iterator[np.ndarray]:
        local = cfg.global_batch_size // dist.world_size
        return tokens.train_micro_batches(data, cfg.global_batch_size, local, dist.rank,
                                          dist.world_size, cfg.seed, epoch)

    def eval(self, data: tokens.TokenDataset, cfg: Config, dist: DistEnv) -> list[np.ndarray]:
        local = cfg.global_batch_size // dist.world_size
        return tokens.eval_batches(data, local, dist.rank, dist.world_size, cfg.eval_samples)

    def eval_size(self, data: tokens.TokenDataset, cfg: Config) -> int:
        return min(len(data.eval), cfg.eval_samples or len(data.eval))

    def tensors(self, batch: np.ndarray, device: torch.device) -> Tensors:
        return on_device({"input_ids": batch[:, :-1]}, batch[:, 1:], device)

    def example(self, seq_len: int, device: torch.device) -> Inputs:
        return {"input_ids": torch.zeros(1, seq_len, dtype=torch.long, device=device)}

    def work(self, batch: Tensors) -> int:
        return int(batch.labels.numel())

    def train_flops(self, forward: int, seq_len: int) -> float:
        return 3.0 * forward / seq_len    # per token, at seq_len


@dataclass(frozen=True)
class SpanCorruption(TokenTask):
    """T5's span corruption (``hftext.spans``) on the masked-LM layout's rows: the encoder reads
    the corrupted row, the decoder predicts the dropped spans after their sentinels (ids after
    the data's vocabulary, so the model's vocabulary must hold both). The loss covers every
    target token; the accuracy only the dropped tokens (sentinels and the end token are
    predictable from their place)."""

    density: float = 0.15
    mean_span: float = 3.0
    metric: str = "span_accuracy"
    work_unit: str = "samples"

    def open(self, data_dir: Path, arch: Any, cfg: Config, prepare: str) -> mlm.MLMDataset:
        data = mlm.open_dataset(data_dir, arch.vocab_size, positions(arch), prepare)
        most = spans.target_length(data.seq_len, self.density, self.mean_span)
        if len(data.vocab) + most > arch.vocab_size:
            raise DataError(f"vocab.txt's {len(data.vocab)} tokens and up to {most} sentinels "
                            f"exceed the model's vocab_size {arch.vocab_size}: choose a "
                            "model_size whose vocabulary holds them")
        return data

    def seq_len(self, data: mlm.MLMDataset, cfg: Config) -> int:
        return data.seq_len

    def check(self, data: mlm.MLMDataset, cfg: Config, dist: DistEnv) -> None:
        split_batch(cfg.global_batch_size, dist.world_size)
        mlm.require_one_batch(data, cfg.global_batch_size)

    def corrupt(self, rows: np.ndarray, data: mlm.MLMDataset,
                rng: np.random.Generator) -> spans.SpanBatch:
        specials = tuple(data.special(t) for t in ("[PAD]", "[CLS]", "[SEP]"))
        return spans.span_batch(rows, specials, data.special("[PAD]"), data.special("[SEP]"),
                                len(data.vocab), self.density, self.mean_span, rng)

    def train(self, data: mlm.MLMDataset, cfg: Config, dist: DistEnv,
              epoch: int) -> Iterator[spans.SpanBatch]:
        """This rank's share of each global batch of one epoch, corrupted anew."""
        order = np.random.default_rng([cfg.seed, epoch]).permutation(len(data.train))
        local, rng = cfg.global_batch_size // dist.world_size, \
            np.random.default_rng([cfg.seed, epoch, dist.rank, 3])
        for start in range(0, len(order) - cfg.global_batch_size + 1, cfg.global_batch_size):
            mine = order[start + dist.rank * local: start + (dist.rank + 1) * local]
            yield self.corrupt(data.train.rows(mine), data, rng)

    def eval(self, data: mlm.MLMDataset, cfg: Config, dist: DistEnv) -> list[spans.SpanBatch]:
        """This rank's strided share of the eval rows, corrupted once from ``mask_seed``."""
        n = self.eval_size(data, cfg)
        local = cfg.global_batch_size // dist.world_size
        batch = self.corrupt(data.eval.rows(np.arange(n)), data,
                             np.random.default_rng([cfg.mask_seed, 2]))
        mine = np.arange(dist.rank, n, dist.world_size)
        return [batch.take(mine[i:i + local]) for i in range(0, len(mine), local)]

    def eval_size(self, data: mlm.MLMDataset, cfg: Config) -> int:
        return mlm.eval_rows(data, cfg.eval_samples)

    def tensors(self, batch: spans.SpanBatch, device: torch.device) -> Tensors:
        decoder = np.zeros_like(batch.labels)          # T5 starts decoding from pad (0)
        decoder[:, 1:] = np.where(batch.labels[:, :-1] == IGNORE, 0, batch.labels[:, :-1])
        arrays = {"input_ids": batch.input_ids, "attention_mask": batch.attention_mask,
                  "decoder_input_ids": decoder}
        on = on_device(arrays, batch.labels, device)
        spans_only = torch.from_numpy(batch.scored).to(device, non_blocking=True)
        return Tensors(on.inputs, on.labels, spans_only)

    def example(self, seq_len: int, device: torch.device) -> Inputs:
        target = spans.target_length(seq_len, self.density, self.mean_span)
        return {"input_ids": torch.zeros(1, seq_len, dtype=torch.long, device=device),
                "decoder_input_ids": torch.zeros(1, target, dtype=torch.long, device=device)}

    def work(self, batch: Tensors) -> int:
        return int(batch.labels.shape[0])

    def train_flops(self, forward: int, seq_len: int) -> float:
        return 3.0 * forward              # per sequence (and its longest target)
