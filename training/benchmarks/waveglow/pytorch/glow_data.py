"""LJSpeech as DLE's WaveGlow reads it (FlagPerf's tacotron2 data folder, its audio filelists):

    <data_dir>/filelists/ljs_audio_text_train_filelist.txt   <wav path>|<transcript> per line
    <data_dir>/filelists/ljs_audio_text_val_filelist.txt
    <data_dir>/LJSpeech-1.1/wavs/LJ001-0001.wav               22,050 Hz mono 16-bit PCM

(wav paths relative to <data_dir>). Each sample is a segment of ``segment_length`` audio
samples (train: at a random offset; eval: the first; zero-padded when the clip is shorter,
as DLE) and its log-mel spectrogram (``lossloop.ljspeech.mel_spectrogram``, computed on the
host as DLE's loader does).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np
import torch
from torch import Tensor
from torch.utils.data import Dataset

from chipperf_runtime.training.lossloop.ljspeech import (
    MelSpec,
    Utterance,
    mel_filterbank,
    mel_spectrogram,
    read_filelist,
    read_wav,
)

LAYOUT = ("<data_dir>/<training_files or validation_files>, lines '<wav path>|<transcript>' "
          "(paths relative to <data_dir>), as DLE's ljs_audio_text_{train,val}_filelist.txt; "
          "22,050 Hz mono 16-bit wavs (training/benchmarks/waveglow/pytorch/README.md)")


def mel_spec(preset: Mapping[str, Any]) -> MelSpec:
    return MelSpec(filter_length=preset["win_length"], hop_length=preset["hop_length"],
                   win_length=preset["win_length"], n_mels=preset["n_mel_channels"])


class MelAudio(Dataset):
    def __init__(self, rows: Sequence[Utterance], spec: MelSpec, segment: int,
                 random_offset: bool) -> None:
        self.rows, self.spec, self.segment, self.random_offset = list(rows), spec, segment, random_offset
        self.basis = mel_filterbank(spec.rate, spec.filter_length, spec.n_mels, spec.fmin, spec.fmax)

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, index: int) -> tuple[Tensor, Tensor]:
        audio = read_wav(self.rows[index].path, self.spec.rate)
        piece = self.crop(audio)
        return mel_spectrogram(piece, self.spec, self.basis), torch.from_numpy(piece)

    def crop(self, audio: np.ndarray) -> np.ndarray:
        if len(audio) < self.segment:
            return np.pad(audio, (0, self.segment - len(audio)))
        start = int(torch.randint(0, len(audio) - self.segment + 1, ())) if self.random_offset else 0
        return audio[start:start + self.segment]


def collate(samples: list[tuple[Tensor, Tensor]]) -> tuple[Tensor, ...]:
    mels, audio = zip(*samples)
    return torch.stack(mels), torch.stack(audio)


@dataclass(frozen=True)
class LJSpeechAudio:
    """A ``lossloop.data.CaseData``."""

    train: MelAudio
    eval: MelAudio

    @property
    def collate(self) -> Any:
        return collate

    def describe(self) -> dict[str, Any]:
        return {"train_utterances": len(self.train), "eval_utterances": len(self.eval),
                "segment_length": self.train.segment}


def open_ljspeech_audio(data_dir: Path, train_files: str, validation_files: str,
                        preset: Mapping[str, Any]) -> LJSpeechAudio:
    spec, segment = mel_spec(preset), preset["segment_length"]
    train = read_filelist(data_dir, train_files, LAYOUT)
    valid = read_filelist(data_dir, validation_files, LAYOUT)
    read_wav(train[0].path, spec.rate)   # the first file, checked before training
    return LJSpeechAudio(MelAudio(train, spec, segment, True), MelAudio(valid, spec, segment, False))
