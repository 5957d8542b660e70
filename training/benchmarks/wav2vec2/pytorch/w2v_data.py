"""LibriSpeech as FlagPerf's wav2vec2 reads it: fairseq manifests ``<data_dir>/<subset>.tsv``
(first line the audio root, then ``<path relative to it>\\t<samples>`` per utterance) over
16 kHz mono audio (``.flac`` as LibriSpeech ships it, or ``.wav``, FlagPerf's ``EXT=wav``).
The CI set (``prepare_data.py``) is written in the same layout.

A training utterance yields one crop of ``crop_samples`` at a random offset; an evaluation
utterance is read whole. Utterances too short for either are left out and counted.
"""

from __future__ import annotations

import wave
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from chipperf_runtime.training.driver import DataError
from chipperf_runtime.training.driver.datadir import require_dir

SAMPLE_RATE = 16000
LAYOUT = """\
  <data_dir>/<subset>.tsv      fairseq manifest: line 1 the audio root (absolute, or
                               relative to data_dir), then <relative path>\\t<samples> per
                               utterance (FlagPerf: generate_filelists.sh)
  <audio root>/<relative path> 16 kHz mono .flac or 16-bit .wav
(FlagPerf's LibriSpeech: train-full-960.tsv and dev-other.tsv; the CI set of
prepare_data.py: synthetic-train.tsv and synthetic-dev.tsv)"""


@dataclass(frozen=True)
class Utterance:
    path: Path
    samples: int


@dataclass(frozen=True)
class Subset:
    name: str
    utterances: tuple[Utterance, ...]   # those long enough, in manifest order
    too_short: int                      # left out: shorter than the case needs


def manifest_root(first_line: str, data_dir: Path) -> Path:
    """The audio root a manifest names; data_dir when it was moved (or mounted elsewhere)."""
    root = Path(first_line.strip())
    if root.is_dir():
        return root
    if not root.is_absolute() and (data_dir / root).is_dir():
        return data_dir / root
    return data_dir


def parse_row(line: str, number: int, tsv: Path, root: Path) -> Utterance:
    parts = line.rstrip("\n").split("\t")
    if len(parts) != 2 or not parts[1].strip().isdigit():
        raise DataError(f"{tsv} line {number}: expected '<relative path>\\t<samples>', got "
                        f"{line.strip()[:80]!r}; expected layout:\n{LAYOUT}")
    return Utterance(root / parts[0], int(parts[1]))


def open_subset(data_dir: Path, name: str, least: int, prepare: str) -> Subset:
    """The manifest ``<data_dir>/<name>.tsv``, its utterances of at least ``least`` samples;
    a missing folder, manifest, audio root or first audio file is one ``DataError`` naming it
    and the layout."""
    folder = require_dir(Path(data_dir), f"wav2vec2 data dir (make a CI one with {prepare})",
                         LAYOUT)
    tsv = folder / f"{name}.tsv"
    if not tsv.is_file():
        present = sorted(p.name for p in folder.glob("*.tsv")) or ["none"]
        raise DataError(f"{folder}: manifest {tsv.name} of subset '{name}' is missing (.tsv "
                        f"files there: {', '.join(present)}); expected layout:\n{LAYOUT}")
    lines = tsv.read_text().splitlines()
    root = manifest_root(lines[0] if lines else "", folder)
    rows = [parse_row(line, n, tsv, root) for n, line in enumerate(lines[1:], 2) if line.strip()]
    kept = tuple(u for u in rows if u.samples >= least)
    if not kept:
        raise DataError(f"{tsv}: none of its {len(rows)} utterances has the {least} samples "
                        f"the case needs; expected layout:\n{LAYOUT}")
    if not kept[0].path.is_file():
        raise DataError(f"{tsv}: audio file {kept[0].path} (under the manifest's root "
                        f"{root}) does not exist; expected layout:\n{LAYOUT}")
    return Subset(name, kept, len(rows) - len(kept))


def read_wav(path: Path, offset: int, count: int) -> np.ndarray:
    with wave.open(str(path), "rb") as audio:
        if (audio.getnchannels(), audio.getsampwidth(), audio.getframerate()) != \
                (1, 2, SAMPLE_RATE):
            raise DataError(f"{path}: expected 16 kHz mono 16-bit PCM, got "
                            f"{audio.getframerate()} Hz, {audio.getnchannels()} channel(s), "
                            f"{8 * audio.getsampwidth()}-bit")
        audio.setpos(offset)
        raw = audio.readframes(count)
    return np.frombuffer(raw, dtype="<i2").astype(np.float32) / 32768.0


def read_flac(path: Path, offset: int, count: int) -> np.ndarray:
    try:
        import soundfile
    except ImportError as exc:
        raise DataError(f"{path}: reading .flac needs the soundfile package, which this "
                        "image lacks: add it to the image, or give the case .wav files "
                        "(FlagPerf's generate_filelists.sh with EXT=wav)") from exc
    data, rate = soundfile.read(str(path), start=offset, frames=count, dtype="float32")
    if rate != SAMPLE_RATE or data.ndim != 1:
        raise DataError(f"{path}: expected 16 kHz mono audio, got {rate} Hz, shape {data.shape}")
    return data


def read_crop(utterance: Utterance, offset: int, count: int) -> np.ndarray:
    """``count`` samples from ``offset`` of one utterance, as float32 in [-1, 1)."""
    reader = read_flac if utterance.path.suffix.lower() == ".flac" else read_wav
    crop = reader(utterance.path, offset, count)
    if len(crop) != count:
        raise DataError(f"{utterance.path}: {len(crop)} samples from offset {offset}, expected "
                        f"{count} (its manifest says {utterance.samples})")
    return crop


def crops(utterances: Sequence[Utterance], offsets: Sequence[int], count: int) -> np.ndarray:
    return np.stack([read_crop(u, o, count) for u, o in zip(utterances, offsets)])
