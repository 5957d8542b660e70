"""FlagPerf's masked-LM data folders, as FlagPerf lays them out, for transformers encoders.

``TokenStreamMLM`` (FlagPerf's bert_hf)::

    <data_dir>/<datafilename>      1-D integer .npy: BERT-uncased WordPiece ids of OpenWebText
                                   (FlagPerf: openwebtext_bert_100M.npy), cut into rows of seq_len
    <data_dir>/<valdatafilename>   the same, held out (openwebtext_bert_10M.npy)
    <data_dir>/<weight_dir>/model.safetensors   the starting weights (``save_pretrained`` of
                                   bert-large-uncased; read when ``from_checkpoint``)

FlagPerf replaces ``mask_ratio`` of all positions (10 %) by ``[MASK]`` (id 103), trains with
the loss over every position (its labels are the unmasked rows) and scores the accuracy at the
masked positions; chipperf does the same, drawing the positions anew for every train batch
(FlagPerf draws them once for the whole file) and once from ``mask_seed`` for the eval rows.

``NpzMLM`` (FlagPerf's longformer)::

    <data_dir>/dataset/train_dataset.npz, eval_dataset.npz
        input_ids, attention_mask, special_tokens_mask: [rows, seq_len] (wikitext-2 in RoBERTa
        BPE, grouped into rows of 1024)

masked as transformers' ``DataCollatorForLanguageModeling`` does (``textlm.mlm.bert_mask`` on
the non-special tokens), loss and accuracy at the masked positions.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import torch
from torch import nn

from chipperf_runtime.training.driver import Config, DataError, DistEnv, split_batch
from chipperf_runtime.training.hftext.pairs import load_arrays
from chipperf_runtime.training.hftext.seq2seq import load_checkpoint
from chipperf_runtime.training.hftext.tasks import Inputs, Tensors, TokenTask, on_device, positions
from chipperf_runtime.training.textlm import tokens
from chipperf_runtime.training.textlm.mlm import IGNORE, bert_mask
from chipperf_runtime.training.textlm.shards import Windows, check_ids, read_shard, require_data_dir, unusable

STREAM_LAYOUT = ("(layout: <datafilename> and <valdatafilename>, 1-D token .npy files, and "
                 "<weight_dir>/model.safetensors when from_checkpoint; see the case README)")
NPZ_LAYOUT = ("(layout: dataset/train_dataset.npz and dataset/eval_dataset.npz holding input_ids, "
              "attention_mask and special_tokens_mask [rows, seq_len]; see the case README)")
NPZ_ARRAYS = ("input_ids", "attention_mask", "special_tokens_mask")


@dataclass(frozen=True)
class Masked:
    """Rows with their masks drawn: the model's inputs, the loss' labels, the scored positions."""

    input_ids: np.ndarray
    attention_mask: np.ndarray
    labels: np.ndarray
    scored: np.ndarray

    def take(self, index: np.ndarray) -> Masked:
        return Masked(*(getattr(self, f.name)[index] for f in fields(self)))


class MaskedTask(TokenTask):
    """What both layouts share: masked rows in, MLM accuracy at the scored positions, work in
    sequences, training FLOPs 3 x forward per sequence."""

    metric = "mlm_accuracy"
    work_unit = "samples"

    def tensors(self, batch: Masked, device: torch.device) -> Tensors:
        on = on_device({"input_ids": batch.input_ids, "attention_mask": batch.attention_mask},
                       batch.labels, device)
        return Tensors(on.inputs, on.labels, torch.from_numpy(batch.scored).to(device))

    def example(self, seq_len: int, device: torch.device) -> Inputs:
        return {"input_ids": torch.zeros(1, seq_len, dtype=torch.long, device=device)}

    def work(self, batch: Tensors) -> int:
        return int(batch.labels.shape[0])

    def train_flops(self, forward: int, seq_len: int) -> float:
        return 3.0 * forward              # per sequence


# ---------------------------------------------------------------- bert_hf: a token stream


@dataclass(frozen=True)
class StreamData:
    tokens: tokens.TokenDataset
    weights: Path                         # <data_dir>/<weight_dir>/model.safetensors


def mask_stream_rows(rows: np.ndarray, ratio: float, mask: int,
                     rng: np.random.Generator) -> Masked:
    """FlagPerf's bert_hf masking: ``int(ratio * rows.size)`` positions become ``mask``; every
    position is labelled, the masked ones scored."""
    flat = np.zeros(rows.size, dtype=bool)
    flat[rng.choice(rows.size, int(ratio * rows.size), replace=False)] = True
    chosen = flat.reshape(rows.shape)
    return Masked(np.where(chosen, mask, rows), np.ones_like(rows), rows, chosen)


@dataclass(frozen=True)
class TokenStreamMLM(MaskedTask):
    """FlagPerf's bert_hf data (module doc)."""

    def open(self, data_dir: Path, arch: Any, cfg: Config, prepare: str) -> StreamData:
        data_dir = require_data_dir(data_dir, f"{prepare} --output DIR")
        problems: list[str] = []
        if cfg.seq_len > positions(arch):
            problems.append(f"seq_len {cfg.seq_len} exceeds the model's {positions(arch)} positions")
        if not 0 <= cfg.mask_token_id < arch.vocab_size:
            problems.append(f"mask_token_id {cfg.mask_token_id} is outside the model's "
                            f"vocab_size {arch.vocab_size}")
        splits = [self._split(data_dir / name, cfg.seq_len, problems)
                  for name in (cfg.datafilename, cfg.valdatafilename)]
        weights = data_dir / cfg.weight_dir / "model.safetensors"
        if cfg.from_checkpoint and not weights.is_file():
            problems.append(f"{weights} is missing (from_checkpoint: save the starting model with "
                            "save_pretrained(..., safe_serialization=True))")
        if problems or splits[0] is None or splits[1] is None:
            raise unusable("bert_hf", data_dir, problems, STREAM_LAYOUT)
        return StreamData(tokens.TokenDataset(splits[0], splits[1], arch.vocab_size), weights)

    @staticmethod
    def _split(file: Path, seq_len: int, problems: list[str]) -> Windows | None:
        if not file.is_file():
            problems.append(f"{file} is missing")
            return None
        stream = read_shard(file, tokens.TOKEN_SHARDS, problems)
        windows = Windows.of([stream], seq_len) if stream is not None else None
        if windows is not None and len(windows) == 0:
            problems.append(f"{file} holds fewer than seq_len + 1 = {seq_len + 1} tokens")
        return windows or None

    def seq_len(self, data: StreamData, cfg: Config) -> int:
        return int(cfg.seq_len)

    def check(self, data: StreamData, cfg: Config, dist: DistEnv) -> None:
        local = split_batch(cfg.global_batch_size, dist.world_size)
        tokens.check_batching(data.tokens, cfg.global_batch_size, local, dist.world_size)

    def train(self, data: StreamData, cfg: Config, dist: DistEnv, epoch: int) -> Iterator[Masked]:
        local = cfg.global_batch_size // dist.world_size
        rng = np.random.default_rng([cfg.seed, epoch, dist.rank, 1])
        for rows in tokens.train_micro_batches(data.tokens, cfg.global_batch_size, local,
                                               dist.rank, dist.world_size, cfg.seed, epoch):
            yield mask_stream_rows(rows[:, :-1], cfg.mask_ratio, cfg.mask_token_id, rng)

    def eval(self, data: StreamData, cfg: Config, dist: DistEnv) -> list[Masked]:
        local = cfg.global_batch_size // dist.world_size
        rng = np.random.default_rng([cfg.mask_seed, dist.rank, 2])
        return [mask_stream_rows(rows[:, :-1], cfg.mask_ratio, cfg.mask_token_id, rng)
                for rows in tokens.eval_batches(data.tokens, local, dist.rank, dist.world_size,
                                                cfg.eval_samples)]

    def eval_size(self, data: StreamData, cfg: Config) -> int:
        return min(len(data.tokens.eval), cfg.eval_samples or len(data.tokens.eval))

    def initialise(self, net: nn.Module, data: StreamData, cfg: Config) -> str:
        if not cfg.from_checkpoint:
            return "random"
        load_checkpoint(net, data.weights)
        return str(data.weights)


# ---------------------------------------------------------------- longformer: .npz rows


@dataclass(frozen=True)
class RowsData:
    train: dict[str, np.ndarray]
    eval: dict[str, np.ndarray]
    vocab_size: int


def mask_npz_rows(split: dict[str, np.ndarray], index: np.ndarray, mask: int, vocab_size: int,
                  rng: np.random.Generator) -> Masked:
    """DataCollatorForLanguageModeling's masking of the rows ``index`` of ``split``."""
    rows = np.asarray(split["input_ids"][index], dtype=np.int64)
    inputs, labels = bert_mask(rows, split["special_tokens_mask"][index] == 0, mask, vocab_size, rng)
    return Masked(inputs, np.asarray(split["attention_mask"][index], dtype=np.int64), labels,
                  labels != IGNORE)


def rank_share(order: np.ndarray, global_batch: int, rank: int,
               world_size: int) -> Iterator[np.ndarray]:
    """This rank's share of each whole global batch of ``order``."""
    local = global_batch // world_size
    for start in range(0, len(order) - global_batch + 1, global_batch):
        yield order[start + rank * local: start + (rank + 1) * local]


@dataclass(frozen=True)
class NpzMLM(MaskedTask):
    """FlagPerf's longformer data (module doc)."""

    def open(self, data_dir: Path, arch: Any, cfg: Config, prepare: str) -> RowsData:
        data_dir = require_data_dir(data_dir, f"{prepare} --output DIR")
        problems: list[str] = []
        if not 0 <= cfg.mask_token_id < arch.vocab_size:
            problems.append(f"mask_token_id {cfg.mask_token_id} is outside the model's "
                            f"vocab_size {arch.vocab_size}")
        splits = {name: self._split(data_dir / "dataset" / f"{name}_dataset.npz", arch, problems)
                  for name in ("train", "eval")}
        train, held_out = splits["train"], splits["eval"]
        if problems or train is None or held_out is None:
            raise unusable("longformer", data_dir, problems, NPZ_LAYOUT)
        return RowsData(train, held_out, arch.vocab_size)

    @staticmethod
    def _split(path: Path, arch: Any, problems: list[str]) -> dict[str, np.ndarray] | None:
        arrays = load_arrays(path, problems, NPZ_ARRAYS)
        if arrays is None:
            return None
        shapes = {a.shape for a in arrays.values()}
        ids = arrays["input_ids"]
        found = len(problems)
        if len(shapes) != 1 or ids.ndim != 2 or not len(ids):
            problems.append(f"{path}: the arrays are not one non-empty [rows, seq_len] shape "
                            f"({sorted(shapes)})")
        elif ids.shape[1] > positions(arch):
            problems.append(f"{path}: rows of {ids.shape[1]} exceed the model's {positions(arch)} positions")
        else:
            try:
                check_ids(ids, arch.vocab_size, path.name, f"the model's vocab_size {arch.vocab_size}")
            except DataError as err:
                problems.append(str(err))
        return arrays if len(problems) == found else None

    def seq_len(self, data: RowsData, cfg: Config) -> int:
        return int(data.train["input_ids"].shape[1])

    def check(self, data: RowsData, cfg: Config, dist: DistEnv) -> None:
        split_batch(cfg.global_batch_size, dist.world_size)
        rows = len(data.train["input_ids"])
        if rows < cfg.global_batch_size:
            raise DataError(f"the train split has {rows} rows, fewer than one global batch of "
                            f"{cfg.global_batch_size}")

    def train(self, data: RowsData, cfg: Config, dist: DistEnv, epoch: int) -> Iterator[Masked]:
        order = np.random.default_rng([cfg.seed, epoch]).permutation(len(data.train["input_ids"]))
        rng = np.random.default_rng([cfg.seed, epoch, dist.rank, 1])
        for mine in rank_share(order, cfg.global_batch_size, dist.rank, dist.world_size):
            yield mask_npz_rows(data.train, mine, cfg.mask_token_id, data.vocab_size, rng)

    def eval(self, data: RowsData, cfg: Config, dist: DistEnv) -> list[Masked]:
        n, local = self.eval_size(data, cfg), cfg.global_batch_size // dist.world_size
        masked = mask_npz_rows(data.eval, np.arange(n), cfg.mask_token_id, data.vocab_size,
                               np.random.default_rng([cfg.mask_seed, 2]))
        mine = np.arange(dist.rank, n, dist.world_size)
        return [masked.take(mine[i:i + local]) for i in range(0, len(mine), local)]

    def eval_size(self, data: RowsData, cfg: Config) -> int:
        rows = len(data.eval["input_ids"])
        return min(rows, cfg.eval_samples or rows)
