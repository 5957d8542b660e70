"""LJSpeech as NVIDIA DeepLearningExamples' Tacotron2 and WaveGlow read it (FlagPerf's
tacotron2 layout): filelists of ``<path relative to data_dir>|<transcript>`` lines
(``filelists/ljs_mel_text_*`` for mels, ``filelists/ljs_audio_text_*`` for 22,050 Hz wavs),
DLE's English symbols, and its mel spectrogram (``TacotronSTFT``: |STFT| of a periodic Hann
window, a Slaney mel filterbank, log clamped at 1e-5). Framework-free but for ``mel_spectrogram``
(torch)."""

from __future__ import annotations

import unicodedata
import wave
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from chipperf_runtime.training.driver import DataError
from chipperf_runtime.training.driver.datadir import require_dir

if TYPE_CHECKING:
    import torch

FILELIST = ("<data_dir>/<filelist>, lines '<file path>|<transcript>' with paths relative to "
            "<data_dir>, as DLE's filelists/ljs_{mel,audio}_text_{train,val}_filelist.txt")
# DLE's english symbols: pad, special, punctuation, letters (then ARPAbet, unused by text)
SYMBOLS = "_" + "-" + "!'(),.:;? " + "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
SYMBOL_IDS = {s: i for i, s in enumerate(SYMBOLS)}


@dataclass(frozen=True)
class Utterance:
    path: Path
    text: str


def text_ids(text: str) -> list[int]:
    """DLE's english_cleaners (ASCII, lower case, whitespace collapsed) without number and
    abbreviation expansion, then its symbol ids; characters outside the symbols are dropped."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    cleaned = " ".join(ascii_text.lower().split())
    return [SYMBOL_IDS[c] for c in cleaned if c in SYMBOL_IDS and c != "_"]


def read_filelist(data_dir: Path, name: str, layout: str = FILELIST) -> list[Utterance]:
    """The rows of ``<data_dir>/<name>``; a missing file, a malformed or empty one is one
    DataError naming it and ``layout``."""
    path = require_dir(data_dir, "LJSpeech data dir", layout) / name
    if not path.is_file():
        raise DataError(f"{path} does not exist; expected layout: {layout}")
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        file, sep, text = line.partition("|")
        if not sep or not text_ids(text):
            raise DataError(f"{path}:{number}: expected '<file path>|<transcript>', got {line!r}")
        rows.append(Utterance(data_dir / file, text))
    if not rows:
        raise DataError(f"{path} lists no utterances; expected layout: {layout}")
    return rows


def read_wav(path: Path, rate: int) -> np.ndarray:
    """16-bit mono PCM at ``rate`` Hz as float32 in [-1, 1) (DLE divides by max_wav_value
    32768)."""
    if not path.is_file():
        raise DataError(f"audio file {path} does not exist")
    with wave.open(str(path), "rb") as audio:
        if (audio.getnchannels(), audio.getsampwidth(), audio.getframerate()) != (1, 2, rate):
            raise DataError(f"{path}: expected {rate} Hz mono 16-bit PCM, got "
                            f"{audio.getframerate()} Hz, {audio.getnchannels()} channel(s), "
                            f"{8 * audio.getsampwidth()}-bit")
        raw = audio.readframes(audio.getnframes())
    return np.frombuffer(raw, dtype="<i2").astype(np.float32) / 32768.0


def hz_to_mel(hz: np.ndarray) -> np.ndarray:
    """Slaney's mel scale (librosa's default): linear below 1 kHz, logarithmic above."""
    linear = hz / (200.0 / 3)
    log = 15.0 + np.log(np.maximum(hz, 1e-10) / 1000.0) / (np.log(6.4) / 27.0)
    return np.where(hz >= 1000.0, log, linear)


def mel_to_hz(mel: np.ndarray) -> np.ndarray:
    linear = mel * (200.0 / 3)
    log = 1000.0 * np.exp((np.log(6.4) / 27.0) * (mel - 15.0))
    return np.where(mel >= 15.0, log, linear)


def mel_filterbank(rate: int, n_fft: int, n_mels: int, fmin: float, fmax: float) -> np.ndarray:
    """[n_mels, n_fft // 2 + 1] triangles, Slaney-normalised (librosa.filters.mel's default,
    which DLE's TacotronSTFT calls)."""
    bins = np.linspace(0, rate / 2, n_fft // 2 + 1)
    edges = mel_to_hz(np.linspace(hz_to_mel(np.array(fmin)), hz_to_mel(np.array(fmax)),
                                  n_mels + 2))
    lower = (bins[None] - edges[:-2, None]) / (edges[1:-1] - edges[:-2])[:, None]
    upper = (edges[2:, None] - bins[None]) / (edges[2:] - edges[1:-1])[:, None]
    weights = np.maximum(0, np.minimum(lower, upper))
    return (weights * (2.0 / (edges[2:] - edges[:-2]))[:, None]).astype(np.float32)


@dataclass(frozen=True)
class MelSpec:
    """DLE's TacotronSTFT settings (LJSpeech: 22,050 Hz, 1024 / 256 / 1024, 80 mels, 0-8 kHz)."""

    rate: int = 22050
    filter_length: int = 1024
    hop_length: int = 256
    win_length: int = 1024
    n_mels: int = 80
    fmin: float = 0.0
    fmax: float = 8000.0

    def frames(self, samples: int) -> int:
        return samples // self.hop_length + 1


def mel_spectrogram(audio: np.ndarray, spec: MelSpec, basis: np.ndarray) -> torch.Tensor:
    """[n_mels, frames] log-mel of ``audio`` (centred frames, reflect padding)."""
    import torch

    signal = torch.from_numpy(np.ascontiguousarray(audio))
    window = torch.hann_window(spec.win_length)
    stft = torch.stft(signal, spec.filter_length, spec.hop_length, spec.win_length, window,
                      center=True, pad_mode="reflect", return_complex=True)
    mel = torch.from_numpy(basis) @ stft.abs()
    return torch.log(torch.clamp(mel, min=1e-5))
