"""Writes the tacotron2 CI data set in FlagPerf's LJSpeech layout (taco_data.py): transcripts
of random letter words and, for each, a mel spectrogram that holds a fixed random frame per
symbol for one frame (plus a little noise), so the text decides the spectrogram and a
model that learns the alignment reaches a low validation loss.

    python3 prepare_data.py --output DIR [--train 256 --val 32 --n-mels 16]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import torch

from chipperf_runtime.training.lossloop.ljspeech import SYMBOLS, text_ids

LETTERS = "abcdefghijklmnopqrstuvwxyz"


def transcript(rng: np.random.Generator) -> str:
    words = ["".join(rng.choice(list(LETTERS), size=rng.integers(2, 5)))
             for _ in range(2)]
    return " ".join(words).capitalize() + "."


def mel_of(text: str, table: np.ndarray, rng: np.random.Generator) -> torch.Tensor:
    frames = table[text_ids(text)]
    noisy = frames + 0.05 * rng.standard_normal(frames.shape)
    return torch.from_numpy(noisy.T.astype(np.float32)).contiguous()


def write(out: Path, name: str, count: int, table: np.ndarray, rng: np.random.Generator) -> None:
    lines = []
    for i in range(count):
        text = transcript(rng)
        rel = f"LJSpeech-1.1/mels/{name}-{i:04d}.pt"
        torch.save(mel_of(text, table, rng), out / rel)
        lines.append(f"{rel}|{text}")
    (out / "filelists" / f"ljs_mel_text_{name}_filelist.txt").write_text("\n".join(lines) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, required=True)
    parser.add_argument("--train", type=int, default=256)
    parser.add_argument("--val", type=int, default=32)
    parser.add_argument("--n-mels", type=int, default=16)
    args = parser.parse_args()
    prepare(args.output, args.train, args.val, args.n_mels)


def prepare(out: Path, train: int = 256, val: int = 32, n_mels: int = 16) -> Path:
    rng = np.random.default_rng(29)
    table = rng.standard_normal((len(SYMBOLS), n_mels))
    for folder in ("LJSpeech-1.1/mels", "filelists"):
        (out / folder).mkdir(parents=True, exist_ok=True)
    write(out, "train", train, table, rng)
    write(out, "val", val, table, rng)
    return out


if __name__ == "__main__":
    main()
