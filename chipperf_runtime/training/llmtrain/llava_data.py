"""FlagPerf's llava1.5_7b data: LLaVA's conversation json and its image folder, per stage,
read into token ids, supervised-label masks and image paths (numpy and Pillow only).

Layout (FlagPerf's training/benchmarks/llava1.5_7b/deepspeed-torch/README.md and its
``scripts/{pretrain,finetune}.sh``)::

    <data_dir>/LLaVA-Pretrain/blip_laion_cc_sbu_558k.json   stage "pretrain"
    <data_dir>/LLaVA-Pretrain/images/<sample's "image">     (images.zip unpacked)
    <data_dir>/LLaVA-Finetune/llava_v1_5_mix665k.json       stage "finetune"
    <data_dir>/LLaVA-Finetune/data/<sample's "image">       (coco/train2017/..., gqa/images/...)

Each json is a list of ``{"id", "image" (optional: mix665k has text-only samples),
"conversations": [{"from": "human" | "gpt", "value": str}, ...]}``; a human turn holds the
``<image>`` placeholder. The prompts are LLaVA's: pretrain's ``plain`` (the image, then the
caption, the human turn dropped: ``--version plain``), finetune's ``v1`` (Vicuna's system
prompt, ``USER: ... ASSISTANT: ...</s>`` turns: ``--version v1``). Only the caption
(pretrain) or the assistant's answers and their ``</s>`` (finetune) are supervised, as in
LLaVA's ``preprocess``. The placeholder becomes the image's ``image_tokens`` positions of
``image_token_id`` (transformers' Llava fills them with the projected patches). Tokeniser:
``textlm.bytelevel``'s byte-fallback ids of the Llama 2 vocabulary (FlagPerf tokenises with
Vicuna's SentencePiece model, so a sample is more tokens here; the work per token is the
same). Samples are cut at ``seq_len`` (LLaVA's ``model_max_length``).

Eval split: FlagPerf evaluates nothing during training (its accuracy is MMMU, from the
finetuned checkpoint); here the json's last ``eval_samples`` samples are held out and the
case's metric is their loss.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from chipperf_runtime.training.driver import DataError
from chipperf_runtime.training.textlm import bytelevel
from chipperf_runtime.training.textlm.shards import require_data_dir, unusable

# stage -> (folder, conversation json, image folder inside it)
STAGES = {"pretrain": ("LLaVA-Pretrain", "blip_laion_cc_sbu_558k.json", "images"),
          "finetune": ("LLaVA-Finetune", "llava_v1_5_mix665k.json", "data")}
IMAGE = "<image>"
VERSIONS = ("plain", "v1")       # LLaVA's --version: FlagPerf's pretrain's, finetune's
EOS_TEXT = "</s>"                # a piece that is the end-of-sequence id
IGNORE = -100
SYSTEM = ("A chat between a curious user and an artificial intelligence assistant. The "
          "assistant gives helpful, detailed, and polite answers to the user's questions.")
LAYOUT = ("(layout: LLaVA-Pretrain/blip_laion_cc_sbu_558k.json + LLaVA-Pretrain/images/ for "
          "stage pretrain, LLaVA-Finetune/llava_v1_5_mix665k.json + LLaVA-Finetune/data/ for "
          "stage finetune; each json a list of {\"image\", \"conversations\"}; see the README)")
# CLIP's normalisation (openai/clip-vit-large-patch14-336's preprocessor_config.json)
MEAN = np.array([0.48145466, 0.4578275, 0.40821073], dtype=np.float32)
STD = np.array([0.26862954, 0.26130258, 0.27577711], dtype=np.float32)


@dataclass(frozen=True)
class Tokens:
    """How text and images become ids."""

    seq_len: int
    image_tokens: int          # positions one image fills (its patches)
    image_token_id: int


@dataclass(frozen=True)
class Encoded:
    ids: np.ndarray            # int64 [positions]: text ids and image_token_id positions
    labels: np.ndarray         # int64 [positions]: the id where supervised, else IGNORE


@dataclass(frozen=True)
class Sample:
    """One conversation, encoded when a batch needs it (as LLaVA's LazySupervisedDataset: a
    corpus of 665K conversations held as ids would take gigabytes per rank)."""

    turns: Sequence[dict[str, str]]   # the json's "conversations"
    image: Path | None                # the image file, None for a text-only sample
    positions: int                    # LLM positions after the cut at seq_len
    version: str
    tokens: Tokens

    def encoded(self) -> Encoded:
        return encode(self.turns, self.version, self.tokens)


@dataclass(frozen=True)
class LlavaData:
    train: list[Sample]
    eval: list[Sample]


def open_llava(data_dir: Path, stage: str, version: str, tokens: Tokens, eval_samples: int,
               prepare: str) -> LlavaData:
    """The stage's samples (train, and the last ``eval_samples`` held out); a DataError
    naming every problem otherwise (a missing image by its path)."""
    data_dir = require_data_dir(data_dir, f"{prepare} --output DIR")
    folder, name, images = STAGES[stage]
    path, problems = data_dir / folder / name, list[str]()
    records = _records(path, problems)
    samples = [] if records is None else _samples(records, path, data_dir / folder / images,
                                                  version, tokens, problems)
    if not problems and len(samples) <= eval_samples:
        problems.append(f"{path} holds {len(samples)} samples: the train split needs more than "
                        f"the eval_samples {eval_samples} held out")
    if problems:
        raise unusable(f"llava {stage}", data_dir, problems, LAYOUT)
    return LlavaData(samples[:-eval_samples], samples[-eval_samples:])


def _records(path: Path, problems: list[str]) -> list[Any] | None:
    if not path.is_file():
        problems.append(f"{path} is missing")
        return None
    try:
        records = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        problems.append(f"{path}: not readable JSON ({err})")
        return None
    if not isinstance(records, list) or not records:
        problems.append(f"{path}: must be a non-empty JSON list of samples")
        return None
    return records


def _samples(records: list[Any], path: Path, images: Path, version: str, tokens: Tokens,
             problems: list[str]) -> list[Sample]:
    samples = []
    for index, record in enumerate(records):
        if len(problems) >= 10:
            problems.append("(stopped after 10 problems)")
            break
        where = f"{path}: sample {index}"
        bad = _bad_record(record)
        if bad:
            problems.append(f"{where}: {bad}")
            continue
        image = images / record["image"] if "image" in record else None
        if image is not None and not image.is_file():
            problems.append(f"{where}: image file {image} is missing")
            continue
        ids = encode(record["conversations"], version, tokens).ids
        if image is not None and int((ids == tokens.image_token_id).sum()) != tokens.image_tokens:
            problems.append(f"{where}: its image tokens do not fit in seq_len {tokens.seq_len}")
            continue
        samples.append(Sample(record["conversations"], image, len(ids), version, tokens))
    return samples


def _bad_record(record: Any) -> str:
    if not isinstance(record, dict):
        return "not a JSON object"
    turns = record.get("conversations")
    if not isinstance(turns, list) or len(turns) < 2 or not all(
            isinstance(t, dict) and isinstance(t.get("value"), str) for t in turns):
        return "\"conversations\" must be a list of two or more {\"from\", \"value\"} turns"
    if "image" in record and not isinstance(record["image"], str):
        return "\"image\" must be a path (a string) under the stage's image folder"
    placeholders = sum(t["value"].count(IMAGE) for t in turns)
    if placeholders != ("image" in record):
        return f"holds {placeholders} {IMAGE} placeholders for {int('image' in record)} image"
    return ""


# ---------------------------------------------------------------- prompts (LLaVA's preprocess)

def encode(turns: Sequence[dict[str, str]], version: str, tokens: Tokens) -> Encoded:
    """One conversation as ids and labels in LLaVA's prompt ``version`` (``VERSIONS``), cut
    at ``seq_len``."""
    pieces = _plain(turns) if version == "plain" else _vicuna_v1(turns)
    ids: list[np.ndarray] = [np.array([bytelevel.BOS])]
    supervised: list[bool] = [False]
    for text, learn in pieces:
        for part in _split_image(text, tokens):
            ids.append(part)
            supervised.append(learn and bool(len(part)) and part[0] != tokens.image_token_id)
    all_ids = np.concatenate(ids).astype(np.int64)[:tokens.seq_len]
    labels = np.concatenate([p if s else np.full(len(p), IGNORE) for p, s in
                             zip(ids, supervised)]).astype(np.int64)[:tokens.seq_len]
    return Encoded(all_ids, labels)


def _plain(turns: Sequence[dict[str, str]]) -> list[tuple[str, bool]]:
    """LLaVA's ``plain``: the image, then the first answer (the caption) and a newline."""
    return [(IMAGE, False), (turns[1]["value"] + "\n", True)]


def _vicuna_v1(turns: Sequence[dict[str, str]]) -> list[tuple[str, bool]]:
    """LLaVA's ``v1``: the system prompt, then ``USER: q ASSISTANT: a</s>`` per exchange; the
    image placeholder first in its turn (``preprocess_multimodal``)."""
    pieces: list[tuple[str, bool]] = [(SYSTEM + " ", False)]
    for turn in turns:
        value = turn["value"]
        if turn.get("from") == "gpt":
            pieces += [("ASSISTANT: ", False), (value, True), (EOS_TEXT, True)]
        else:
            if IMAGE in value:
                value = IMAGE + "\n" + value.replace(IMAGE, "").strip()
            pieces.append(("USER: " + value + " ", False))
    return pieces


def _split_image(text: str, tokens: Tokens) -> list[np.ndarray]:
    """``text``'s byte ids with each placeholder as the image's positions (``EOS_TEXT``: the
    end-of-sequence id)."""
    if text == EOS_TEXT:
        return [np.array([bytelevel.EOS])]
    parts: list[np.ndarray] = []
    for index, chunk in enumerate(text.split(IMAGE)):
        if index:
            parts.append(np.full(tokens.image_tokens, tokens.image_token_id))
        if chunk:
            parts.append(bytelevel.encode(chunk)[1:-1].astype(np.int64))
    return parts


# ---------------------------------------------------------------- images (CLIP's preprocessing)

def load_image(path: Path, size: int, pad: bool) -> np.ndarray:
    """float32 [3, size, size]: padded to a square with the mean colour (finetune's
    ``--image_aspect_ratio pad``), the short side resized to ``size`` (bicubic), centre
    cropped, scaled to [0, 1] and normalised with CLIP's mean and std."""
    from PIL import Image

    try:
        with Image.open(path) as opened:
            image = opened.convert("RGB")
    except OSError as err:
        raise DataError(f"image file {path} is not a readable image ({err})") from err
    if pad and image.width != image.height:
        side = max(image.size)
        square = Image.new("RGB", (side, side), tuple(int(c * 255) for c in MEAN))
        square.paste(image, ((side - image.width) // 2, (side - image.height) // 2))
        image = square
    scale = size / min(image.size)
    image = image.resize((max(size, round(image.width * scale)),
                          max(size, round(image.height * scale))), Image.Resampling.BICUBIC)
    left, top = (image.width - size) // 2, (image.height - size) // 2
    pixels = np.asarray(image.crop((left, top, left + size, top + size)), dtype=np.float32)
    return ((pixels / 255.0 - MEAN) / STD).transpose(2, 0, 1).copy()


# ---------------------------------------------------------------- batches

@dataclass(frozen=True)
class Batch:
    input_ids: np.ndarray          # int64 [batch, longest]
    attention_mask: np.ndarray     # int64 [batch, longest]: 0 on padding
    labels: np.ndarray             # int64 [batch, longest]: IGNORE where not supervised
    pixel_values: np.ndarray | None   # float32 [images, 3, size, size], in sample order

    def positions(self) -> int:
        """LLM positions trained on (text and image tokens, padding not counted)."""
        return int(self.attention_mask.sum())

    def targets(self) -> int:
        """Supervised next-token predictions (the loss averages over these)."""
        return int((self.labels[:, 1:] != IGNORE).sum())


def collate(samples: Sequence[Sample], pad_id: int, image_size: int, pad: bool) -> Batch:
    """Pad to the longest sample (LLaVA's ``DataCollatorForSupervisedDataset``)."""
    encoded = [s.encoded() for s in samples]
    shape = (len(samples), max(len(e.ids) for e in encoded))
    ids, labels = np.full(shape, pad_id, np.int64), np.full(shape, IGNORE, np.int64)
    mask = np.zeros(shape, np.int64)
    for row, one in enumerate(encoded):
        n = len(one.ids)
        ids[row, :n], labels[row, :n], mask[row, :n] = one.ids, one.labels, 1
    images = [load_image(s.image, image_size, pad) for s in samples if s.image is not None]
    return Batch(ids, mask, labels, np.stack(images) if images else None)


def shape_of(samples: Sequence[Sample]) -> list[tuple[int, int]]:
    """(positions, images) of each sample, for the FLOPs (``llava_arch.flops_per_token``)."""
    return [(s.positions, int(s.image is not None)) for s in samples]


# ---------------------------------------------------------------- generated data (CI)

COLOURS = {"red": (220, 30, 30), "green": (30, 180, 60), "blue": (40, 60, 220),
           "yellow": (230, 210, 40), "purple": (140, 50, 170), "orange": (240, 140, 20),
           "white": (245, 245, 245), "black": (15, 15, 15)}
CORNERS = ("top left", "top right", "bottom left", "bottom right")


def generated_record(index: int, stage: str, rng: np.random.Generator
                     ) -> tuple[dict[str, Any], tuple[str, str]]:
    """One sample in the stage's json form and its image's (colour, corner): a picture of
    one colour with a grey square in one corner; the caption (the first answer) names both,
    so the model must read the image to predict it: from the text alone the best loss is
    ln 8 + ln 4 = 3.47 nats per caption, spread over its tokens. finetune's json has a second
    exchange (the colour again) for its ``v1`` prompt."""
    colour, corner = str(rng.choice(list(COLOURS))), str(rng.choice(CORNERS))
    folder = f"{index // 1000:05d}" if stage == "pretrain" else "coco/train2017"
    record: dict[str, Any] = {"id": f"{index:09d}", "image": f"{folder}/{index:09d}.jpg"}
    caption = f"a {colour} picture, square at the {corner}"
    record["conversations"] = [
        {"from": "human", "value": f"{IMAGE}\nDescribe the picture briefly."},
        {"from": "gpt", "value": caption}]
    if stage == "finetune":
        record["conversations"] += [{"from": "human", "value": "What colour is the picture?"},
                                    {"from": "gpt", "value": colour}]
    return record, (colour, corner)


def draw(colour: str, corner: str, size: int) -> Any:
    """The generated picture (a Pillow image, ``size`` x ``size``)."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (size, size), COLOURS[colour])
    half = size // 2
    x = 0 if "left" in corner else half
    y = 0 if "top" in corner else half
    ImageDraw.Draw(image).rectangle((x, y, x + half - 1, y + half - 1), fill=(128, 128, 128))
    return image


def write_generated(output: Path, count: int, seed: int, image_size: int,
                    stages: Sequence[str] = tuple(STAGES)) -> None:
    """FlagPerf's layout (module doc) under ``output``: ``count`` samples per stage (the eval
    split is the json's tail), JPEG pictures of ``image_size`` pixels."""
    for offset, stage in enumerate(stages):
        folder, name, images = STAGES[stage]
        rng = np.random.default_rng([seed, offset])
        records = []
        for index in range(count):
            record, (colour, corner) = generated_record(index, stage, rng)
            path = output / folder / images / record["image"]
            path.parent.mkdir(parents=True, exist_ok=True)
            draw(colour, corner, image_size).save(path, quality=95)
            records.append(record)
        (output / folder / name).write_text(json.dumps(records, indent=1) + "\n",
                                            encoding="utf-8")


def prepare_main(argv: Sequence[str], description: str) -> int:
    """The llava cases' prepare_data.py: ``--output DIR [--samples N] [--image-size PX]
    [--seed S]`` writes generated data (write_generated) and says what it wrote."""
    parser = argparse.ArgumentParser(description=description.split("\n\n")[0])
    parser.add_argument("--output", type=Path, required=True)
    parser.add_argument("--samples", type=int, default=240, help="conversations per stage")
    parser.add_argument("--image-size", type=int, default=28, help="picture side in pixels")
    parser.add_argument("--seed", type=int, default=1234)
    args = parser.parse_args(argv)
    write_generated(args.output, args.samples, args.seed, args.image_size)
    print(f"{args.output}: {args.samples} conversations per stage ({', '.join(STAGES)})")
    return 0
