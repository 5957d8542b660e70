"""transformer_xl's samples: FlagPerf's WikiText-103 (``textlm.wikitext``) cut into streams
read segment after segment, so the memory a segment leaves is the one the next needs.

Training: the train split's tokens are cut into ``global_batch_size`` equal streams, and each
stream into ``tgt_len``-token segments (FlagPerf's ``group_texts`` blocks; a segment predicts
its tokens 2..tgt_len from those before and the memory). Sample ``i`` is segment
``i // global_batch_size`` of stream ``i % global_batch_size``: lossloop's in-order global
batches then give each rank the same streams at every step, one segment further on.
Evaluation: the eval split cut into ``global_batch_size`` streams too, a sample being a whole
stream (all its segments), read from its start with the memory carried.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np
import torch
from torch.utils.data import Dataset

from chipperf_runtime.models.transfo_xl import TransfoXLConfig, cluster_bounds, config_from_json
from chipperf_runtime.training.driver import Config, DataError
from chipperf_runtime.training.textlm.wikitext import read_config, read_split, read_vocab


def streams(tokens: np.ndarray, count: int, tgt_len: int, where: str) -> np.ndarray:
    """[count, segments, tgt_len] int64: ``tokens`` cut into ``count`` equal streams of whole
    segments (the remainder dropped)."""
    segments = len(tokens) // count // tgt_len
    if segments < 1:
        raise DataError(f"{where}: {len(tokens)} tokens make no {tgt_len}-token segment in each "
                        f"of {count} streams")
    per = segments * tgt_len
    return tokens[:count * per].reshape(count, segments, tgt_len).astype(np.int64)


class Segments(Dataset):
    """Training samples: (segment [tgt_len], its index in its stream)."""

    def __init__(self, cut: np.ndarray) -> None:
        self.cut = torch.from_numpy(cut)

    def __len__(self) -> int:
        return self.cut.shape[0] * self.cut.shape[1]

    def __getitem__(self, i: int) -> tuple[torch.Tensor, torch.Tensor]:
        segment, stream = divmod(i, self.cut.shape[0])
        return self.cut[stream, segment], torch.tensor(segment)


class Streams(Dataset):
    """Evaluation samples: (a whole stream [segments, tgt_len],)."""

    def __init__(self, cut: np.ndarray) -> None:
        self.cut = torch.from_numpy(cut)

    def __len__(self) -> int:
        return self.cut.shape[0]

    def __getitem__(self, i: int) -> tuple[torch.Tensor]:
        return (self.cut[i],)


def stack(samples: list[tuple[torch.Tensor, ...]]) -> tuple[torch.Tensor, ...]:
    return tuple(torch.stack(parts) for parts in zip(*samples))


@dataclass
class WikiText:
    """lossloop's ``CaseData`` for transformer_xl, with the model config the data fixes."""

    train: Segments
    eval: Streams
    model: TransfoXLConfig          # config.json with the preset's shapes over it
    shares: list[float]             # fraction of training tokens in each vocabulary cluster
    tgt_len: int

    @property
    def collate(self) -> Callable[[list[tuple[torch.Tensor, ...]]], tuple[torch.Tensor, ...]]:
        return stack

    def describe(self) -> dict[str, Any]:
        return {"seq_len": self.tgt_len, "mem_len": self.model.mem_len,
                "train_segments": len(self.train), "eval_streams": len(self.eval),
                "vocab_size": self.model.vocab_size}


def cluster_shares(tokens: np.ndarray, config: TransfoXLConfig) -> list[float]:
    counts = np.bincount(tokens, minlength=config.vocab_size)
    return [float(counts[left:right].sum()) / max(1, len(tokens))
            for left, right in cluster_bounds(config)]


def model_config(data_dir: Path, preset: Mapping[str, Any], vocab: dict[str, int]) -> TransfoXLConfig:
    """``model/config.json`` with the preset's shapes over it; every problem named at once."""
    config = config_from_json(read_config(data_dir / "model"), **preset)
    problems = config.problems()
    if len(vocab) > config.vocab_size:
        problems.append(f"the vocabulary has {len(vocab)} words, more than vocab_size "
                        f"{config.vocab_size}")
    if problems:
        raise DataError(f"{data_dir / 'model'}: {'; '.join(problems)}")
    return config


def open_wikitext(data_dir: Path, cfg: Config, preset: Mapping[str, Any]) -> WikiText:
    vocab = read_vocab(data_dir / "model" / "vocab.pkl")
    config = model_config(data_dir, preset, vocab)
    train = read_split(data_dir, cfg.train_split, vocab)
    held_out = read_split(data_dir, cfg.eval_split, vocab)
    batch, where = cfg.global_batch_size, str(data_dir / "data")
    return WikiText(Segments(streams(train, batch, cfg.tgt_len, f"{where} {cfg.train_split}")),
                    Streams(streams(held_out, batch, cfg.tgt_len, f"{where} {cfg.eval_split}")),
                    config, cluster_shares(train, config), cfg.tgt_len)
