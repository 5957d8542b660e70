"""Writes the waveglow CI data set in DLE's LJSpeech audio layout (glow_data.py): 22,050 Hz
16-bit clips of 0.1-0.2 s, each a sum of two harmonics of a random pitch with a slow
amplitude envelope and faint noise: audio whose mel spectrogram predicts it well.

    python3 prepare_data.py --output DIR [--train 128 --val 16]
"""

from __future__ import annotations

import argparse
import wave
from pathlib import Path

import numpy as np

RATE = 22050


def clip(rng: np.random.Generator) -> np.ndarray:
    t = np.arange(int(rng.integers(RATE // 10, RATE // 5))) / RATE
    pitch = rng.uniform(150.0, 600.0)
    envelope = 0.3 + 0.2 * np.sin(2 * np.pi * rng.uniform(2, 6) * t)
    tone = np.sin(2 * np.pi * pitch * t) + 0.5 * np.sin(2 * np.pi * 2 * pitch * t + 1.0)
    return 0.4 * envelope * tone + 0.003 * rng.standard_normal(len(t))


def write_wav(path: Path, audio: np.ndarray) -> None:
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(RATE)
        out.writeframes((np.clip(audio, -1, 1) * 32767).astype("<i2").tobytes())


def write(out: Path, name: str, count: int, rng: np.random.Generator) -> None:
    lines = []
    for i in range(count):
        rel = f"LJSpeech-1.1/wavs/{name}-{i:04d}.wav"
        write_wav(out / rel, clip(rng))
        lines.append(f"{rel}|A generated tone {i}.")
    (out / "filelists" / f"ljs_audio_text_{name}_filelist.txt").write_text("\n".join(lines) + "\n")


def prepare(out: Path, train: int = 128, val: int = 16) -> Path:
    rng = np.random.default_rng(29)
    for folder in ("LJSpeech-1.1/wavs", "filelists"):
        (out / folder).mkdir(parents=True, exist_ok=True)
    write(out, "train", train, rng)
    write(out, "val", val, rng)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, required=True)
    parser.add_argument("--train", type=int, default=128)
    parser.add_argument("--val", type=int, default=16)
    args = parser.parse_args()
    prepare(args.output, args.train, args.val)


if __name__ == "__main__":
    main()
