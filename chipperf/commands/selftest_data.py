"""The selftest's own data, made in a folder of its own with the standard library (and the
``tokenizers`` package the serving case reads its tokenizer with): nothing to prepare first.

- ``images``: ImageNet layout (``train/<class>/<n>.png``, ``val/<class>/<n>.png`` and
  ``dataset.json``), CLASSES classes of SIDE x SIDE RGB PNGs: a class-coloured gradient with
  seeded noise, written by ``png_bytes`` (zlib; no image library). It feeds resnet50 training
  and inference; its card says it is synthetic, so figures on it are labelled a smoke test.
- ``prompts``: text files of seeded sentences from a fixed word list, and the byte-level BPE
  tokenizer ``inference/benchmarks/llama3_8b/pytorch/prepare_prompts.py`` trains on them
  (the llama3_8b serving case's data layout).

The same seed gives the same bytes, so two selftests on one machine read the same data.
"""

from __future__ import annotations

import functools
import json
import random
import struct
import subprocess
import sys
import zlib
from pathlib import Path

CLASSES = 10
SIDE = 32                       # the cpu configs' image_size; the cases resize to theirs
TRAIN_PER_CLASS, VAL_PER_CLASS = 64, 16
SEED = 0
CARD = "dataset.json"           # read by the cases into the report's data label
WORDS = ("chip", "memory", "bandwidth", "tensor", "kernel", "matrix", "token", "batch", "layer",
         "model", "serving", "latency", "throughput", "compute", "device", "host", "round",
         "result", "measure", "figure", "peak", "share", "engine", "prompt", "output", "the",
         "a", "of", "and", "to", "in", "is", "on", "for", "with", "each", "every", "one")
TEXT_FILES, SENTENCES_PER_FILE = 8, 400
PROMPTS_SCRIPT = "inference/benchmarks/llama3_8b/pytorch/prepare_prompts.py"


def png_bytes(width: int, height: int, rgb: bytes) -> bytes:
    """An 8-bit RGB PNG of ``rgb`` (rows top to bottom, 3 bytes a pixel), filter 0 per row."""
    stride = 3 * width
    raw = b"".join(b"\x00" + rgb[y * stride:(y + 1) * stride] for y in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 6))
            + chunk(b"IEND", b""))


def class_image(label: int, rng: random.Random, side: int = SIDE) -> bytes:
    """One image's RGB bytes: the class's colour as a diagonal gradient, with noise."""
    return bytes((a + b // 4) % 256 for a, b in zip(class_pattern(label, side),
                                                     rng.randbytes(side * side * 3)))


@functools.cache
def class_pattern(label: int, side: int) -> bytes:
    base = ((37 * label) % 256, (91 * label + 60) % 256, (173 * label + 120) % 256)
    return bytes((base[c] + (x + y) * 64 // side) % 256
                 for y in range(side) for x in range(side) for c in range(3))


def make_images(out: Path, side: int = SIDE) -> Path:
    """The image set under ``out`` (made once: its card marks it done)."""
    if (out / CARD).is_file():
        return out
    rng = random.Random(SEED)
    counts = {"train": TRAIN_PER_CLASS, "val": VAL_PER_CLASS}
    for split, per_class in counts.items():
        for label in range(CLASSES):
            folder = out / split / str(label)
            folder.mkdir(parents=True, exist_ok=True)
            for n in range(per_class):
                (folder / f"{n:04d}.png").write_bytes(png_bytes(side, side, class_image(label, rng, side)))
    card = {"name": f"chipperf selftest synthetic images ({side}x{side} RGB PNG, {CLASSES} classes)",
            "train_images": CLASSES * counts["train"], "val_images": CLASSES * counts["val"],
            "image_size": side,
            "smoke_test": "selftest-made synthetic images: they check the harness and time the "
                          "chip's steps; accuracy on them does not compare with ImageNet figures"}
    (out / CARD).write_text(json.dumps(card, indent=2) + "\n", encoding="utf-8")
    return out


def make_prompts(out: Path, repo: Path) -> Path:
    """Seeded English-like text and its tokenizer under ``out`` (made once)."""
    if (out / "tokenizer.json").is_file():
        return out
    rng = random.Random(SEED)
    source = out.parent / f"{out.name}-source"
    source.mkdir(parents=True, exist_ok=True)
    for n in range(TEXT_FILES):
        sentences = (" ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 18))).capitalize() + "."
                     for _ in range(SENTENCES_PER_FILE))
        (source / f"text{n}.txt").write_text("\n".join(sentences) + "\n", encoding="utf-8")
    done = subprocess.run([sys.executable, str(repo / PROMPTS_SCRIPT), str(source), str(out)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        said = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise OSError(f"{PROMPTS_SCRIPT}: exit {done.returncode} ({said}): install the selftest "
                      f"extra (pip install -e '.[selftest]')")
    return out
