"""What a text case trains on: the data format it reads (``textlm``), how a batch becomes the
model's inputs and labels, and what its metric and unit of work are.

``MaskedLM``: ``bert-mlm-shards-v1`` rows (``textlm.mlm``), BERT masking, metric MLM accuracy,
work in sequences. ``CausalLM``: 1-D token streams cut into windows (``textlm.tokens``),
next-token prediction, metric next-token accuracy, work in tokens. Labels of -100 are ignored
by the loss and the accuracy alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Mapping, Protocol

import numpy as np
import torch
from driver import Config, DistEnv, split_batch
from textlm import mlm, tokens

IGNORE = -100
Inputs = dict[str, torch.Tensor]


@dataclass(frozen=True)
class Tensors:
    """One batch on the device: the model's keyword inputs and the labels of its logits."""

    inputs: Inputs
    labels: torch.Tensor


def on_device(arrays: Mapping[str, np.ndarray], labels: np.ndarray,
              device: torch.device) -> Tensors:
    def tensor(a: np.ndarray) -> torch.Tensor:
        return torch.from_numpy(np.ascontiguousarray(a, dtype=np.int64)).to(device, non_blocking=True)
    return Tensors({k: tensor(v) for k, v in arrays.items()}, tensor(labels))


def positions(arch: Any) -> int:
    """The model's position limit (none for relative positions, e.g. T5)."""
    return int(getattr(arch, "max_position_embeddings", None) or 2**31)


class Task(Protocol):
    metric: str                  # the EVALUATE / FINISHED metric name
    work_unit: str               # "samples" or "tokens"

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


@dataclass(frozen=True)
class MaskedLM:
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
class CausalLM:
    """Next-token prediction on token streams cut into ``seq_len + 1`` windows."""

    dataset: str                  # the format's name in error messages
    metric: str = "lm_accuracy"
    work_unit: str = "tokens"

    def open(self, data_dir: Path, arch: Any, cfg: Config, prepare: str) -> tokens.TokenDataset:
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
