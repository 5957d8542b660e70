"""LJSpeech as FlagPerf's tacotron2 reads it (DLE's Tacotron2 with ``load_mel_from_disk``):

    <data_dir>/filelists/ljs_mel_text_train_filelist.txt   <mel path>|<transcript> per line
    <data_dir>/filelists/ljs_mel_text_val_filelist.txt
    <data_dir>/LJSpeech-1.1/mels/LJ001-0001.pt              torch.save'd [n_mel_channels, frames]

(mel paths relative to <data_dir>). Filelists and DLE's English symbol ids are
``lossloop.ljspeech``'s (shared with waveglow).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import torch
from torch import Tensor
from torch.utils.data import Dataset

from chipperf_runtime.training.driver import DataError
from chipperf_runtime.training.lossloop.ljspeech import Utterance, read_filelist, text_ids

LAYOUT = ("<data_dir>/<training_files or validation_files>, lines '<mel .pt path>|<transcript>' "
          "(paths relative to <data_dir>), as DLE's ljs_mel_text_{train,val}_filelist.txt; mels "
          "torch.save'd [n_mel_channels, frames] (training/benchmarks/tacotron2/pytorch/README.md)")


class MelText(Dataset):
    def __init__(self, rows: Sequence[Utterance], n_mels: int) -> None:
        self.rows, self.n_mels = list(rows), n_mels

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, index: int) -> tuple[Tensor, Tensor]:
        row = self.rows[index]
        return torch.tensor(text_ids(row.text), dtype=torch.long), load_mel(row.path, self.n_mels)

    def frames(self) -> list[int]:
        """Each utterance's frame count, read from the files' headers (memory-mapped)."""
        return [int(load_mel(row.path, self.n_mels, mmap=True).shape[1]) for row in self.rows]


def load_mel(path: Path, n_mels: int, mmap: bool = False) -> Tensor:
    if not path.is_file():
        raise DataError(f"mel spectrogram {path} does not exist; expected layout: {LAYOUT}")
    mel = torch.load(path, map_location="cpu", mmap=mmap, weights_only=True)
    if not isinstance(mel, Tensor) or mel.ndim != 2 or mel.shape[0] != n_mels:
        shape = tuple(mel.shape) if isinstance(mel, Tensor) else type(mel).__name__
        raise DataError(f"{path}: expected a [{n_mels}, frames] tensor, got {shape}")
    return mel.float()


def collate(samples: list[tuple[Tensor, Tensor]]) -> tuple[Tensor, ...]:
    """DLE's TextMelCollate for one frame per step: text and mels right-padded with zeros,
    the stop-token target 1 from each utterance's last frame on."""
    texts, mels = zip(*samples)
    text_lengths = torch.tensor([len(t) for t in texts])
    mel_lengths = torch.tensor([m.shape[1] for m in mels])
    text = torch.zeros(len(texts), int(text_lengths.max()), dtype=torch.long)
    mel = torch.zeros(len(mels), mels[0].shape[0], int(mel_lengths.max()))
    gate = torch.zeros(len(mels), int(mel_lengths.max()))
    for i, (t, m) in enumerate(samples):
        text[i, :len(t)], mel[i, :, :m.shape[1]] = t, m
        gate[i, m.shape[1] - 1:] = 1.0
    return text, text_lengths, mel, mel_lengths, gate


@dataclass(frozen=True)
class LJSpeech:
    """A ``lossloop.data.CaseData``."""

    train: MelText
    eval: MelText
    mean_text: float
    mean_frames: float

    @property
    def collate(self) -> Any:
        return collate

    def describe(self) -> dict[str, Any]:
        return {"train_utterances": len(self.train), "eval_utterances": len(self.eval),
                "mean_text_symbols": self.mean_text, "mean_frames": self.mean_frames}


def open_ljspeech(data_dir: Path, train_files: str, validation_files: str,
                  n_mels: int) -> LJSpeech:
    train = MelText(read_filelist(data_dir, train_files, LAYOUT), n_mels)
    valid = MelText(read_filelist(data_dir, validation_files, LAYOUT), n_mels)
    frames = train.frames()
    symbols = [len(text_ids(r.text)) for r in train.rows]
    return LJSpeech(train, valid, sum(symbols) / len(symbols),
                    sum(frames) / len(frames))
