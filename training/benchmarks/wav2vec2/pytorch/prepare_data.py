"""The wav2vec2 case's CI data: synthetic speech-like audio in FlagPerf's LibriSpeech layout
(fairseq manifests over 16 kHz mono 16-bit .wav), made offline in seconds.

    python3 prepare_data.py --output DIR [--train 1024] [--dev 128] [--seed 0]

Each utterance is a sequence of words of a fixed lexicon (24 words of 2-4 "phones"); a phone
is a steady sound 10-20 feature frames long (200-400 ms): two formant-like sinusoids from a
table of 10 (scaled by the speaker's factor, over a pitch harmonic), or one of 2 noise bursts;
words are sometimes followed by a short pause; faint noise is added throughout. A masked
frame is predictable from its context (the word it lies in), which is what wav2vec 2.0's
contrastive task learns. Writes:

    DIR/synthetic-train.tsv, DIR/synthetic-dev.tsv     line 1: DIR; then <path>\\t<samples>
    DIR/synthetic-{train,dev}/<speaker>/<speaker>-<n>.wav
"""

from __future__ import annotations

import argparse
import wave
from pathlib import Path

import numpy as np

RATE = 16000
FRAME = 320                   # samples per feature frame (the encoder's total stride)
FORMANTS = [(300, 870), (270, 2290), (530, 1840), (660, 1720), (730, 1090),
            (570, 840), (440, 1020), (490, 1350), (400, 2000), (640, 1190)]
NOISES = 2                    # noise phones after the formant ones
SPEAKERS = 16
SECONDS = (1.05, 1.6)         # utterance length range


def lexicon(rng: np.random.Generator, words: int = 24) -> list[list[int]]:
    phones = len(FORMANTS) + NOISES
    return [list(rng.integers(0, phones, size=int(rng.integers(2, 5)))) for _ in range(words)]


def fade(signal: np.ndarray, ramp: int = 64) -> np.ndarray:
    window = np.ones(len(signal))
    edge = 0.5 - 0.5 * np.cos(np.linspace(0, np.pi, ramp))
    window[:ramp], window[-ramp:] = edge, edge[::-1]
    return signal * window


def phone(index: int, length: int, scale: float, pitch: float,
          rng: np.random.Generator) -> np.ndarray:
    t = np.arange(length) / RATE
    if index >= len(FORMANTS):                       # a noise burst, smoothed or differenced
        noise = rng.standard_normal(length)
        shaped = np.diff(noise, prepend=0.0) if index == len(FORMANTS) else \
            np.convolve(noise, np.ones(4) / 4, mode="same")
        return fade(0.15 * shaped)
    f1, f2 = FORMANTS[index]
    voiced = 0.35 * np.sin(2 * np.pi * f1 * scale * t) + 0.25 * np.sin(2 * np.pi * f2 * scale * t)
    return fade(voiced + 0.1 * np.sin(2 * np.pi * pitch * t))


def utterance(words: list[list[int]], speaker: int, rng: np.random.Generator) -> np.ndarray:
    scale, pitch = 0.92 + 0.01 * speaker, 100 + 8 * speaker
    length = int(rng.uniform(*SECONDS) * RATE)
    pieces: list[np.ndarray] = []
    while sum(map(len, pieces)) < length:
        for p in words[int(rng.integers(len(words)))]:
            pieces.append(phone(p, FRAME * int(rng.integers(10, 21)), scale, pitch, rng))
        if rng.random() < 0.3:
            pieces.append(np.zeros(FRAME * int(rng.integers(1, 3))))
    audio = np.concatenate(pieces)[:length] + 0.01 * rng.standard_normal(length)
    return np.clip(audio, -1.0, 1.0)


def write_wav(path: Path, audio: np.ndarray) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(RATE)
        out.writeframes((audio * 32767).astype("<i2").tobytes())


def write_subset(root: Path, name: str, count: int, words: list[list[int]],
                 rng: np.random.Generator) -> None:
    rows = [str(root)]
    for n in range(count):
        speaker = n % SPEAKERS
        audio = utterance(words, speaker, rng)
        relative = f"{name}/{speaker:02d}/{speaker:02d}-{n:05d}.wav"
        write_wav(root / relative, audio)
        rows.append(f"{relative}\t{len(audio)}")
    (root / f"{name}.tsv").write_text("\n".join(rows) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", required=True, type=Path)
    parser.add_argument("--train", type=int, default=1024, help="training utterances")
    parser.add_argument("--dev", type=int, default=128, help="evaluation utterances")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    root = args.output.resolve()
    rng = np.random.default_rng(args.seed)
    words = lexicon(rng)
    write_subset(root, "synthetic-train", args.train, words, rng)
    write_subset(root, "synthetic-dev", args.dev, words, rng)
    print(f"wrote {args.train} + {args.dev} utterances ({SECONDS[0]}-{SECONDS[1]} s, "
          f"{RATE} Hz) to {root}")


if __name__ == "__main__":
    main()
