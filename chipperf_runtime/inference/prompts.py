"""Text prompts and their starting noise, for text-to-image cases (stable_diffusion_v1_4).

    <data_dir>/<prompts>     a .txt file (one prompt a line) or a caption .json: VizWiz /
                             COCO-style {"annotations": [{"caption": ...}]} (FlagPerf's
                             data_vizwiz/val.json) or a list of strings
    <data_dir>/<tokenizer>/  CLIP's tokenizer files (vocab.json, merges.txt), e.g. the
                             tokenizer/ folder of stable-diffusion-v1-4; read offline

Each prompt is tokenised on the host (padded / truncated to ``prompt_max_len``). Item i's
starting noise is drawn from a generator seeded by ``seed`` and i, so every engine and the
reference start from the same latents. There are no labels.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import torch

from chipperf_runtime.inference.case import Batch
from chipperf_runtime.inference.errors import CaseError

NO_LABEL = -1
TOKENIZER_FILES = ("vocab.json", "merges.txt")


@dataclass(frozen=True)
class Prompts:
    texts: tuple[str, ...]
    ids: torch.Tensor                   # [N, prompt_max_len] int64
    empty_ids: torch.Tensor             # the empty prompt (classifier-free guidance)
    vocab_size: int
    special_ids: tuple[int, int]        # (bos, eos)
    latent_shape: tuple[int, int, int]
    seed: int

    def __len__(self) -> int:
        return len(self.texts)

    def batch(self, indices: Sequence[int]) -> Batch:
        latents = torch.stack([self.noise(i) for i in indices])
        return Batch((self.ids[list(indices)], latents),
                     torch.full((len(indices),), NO_LABEL, dtype=torch.long))

    def noise(self, index: int) -> torch.Tensor:
        generator = torch.Generator().manual_seed(self.seed * 1_000_003 + index)
        return torch.randn(self.latent_shape, generator=generator)

    def describe(self) -> dict:
        return {"prompts": len(self.texts), "prompt_max_len": int(self.ids.shape[1]),
                "latent_shape": list(self.latent_shape), "vocab_size": self.vocab_size}


def load(data_dir: str | Path, prompts_file: str, tokenizer_dir: str, max_len: int,
         latent_shape: tuple[int, int, int], seed: int, limit: int | None) -> Prompts:
    root = Path(data_dir)
    if not root.is_dir():
        raise CaseError(f"data dir {root} does not exist: give the folder with the prompts and "
                        "the tokenizer in host.yaml CASES")
    texts = read_prompts(root / prompts_file)[:limit]
    tokenizer = load_tokenizer(root / tokenizer_dir)
    ids = tokenize(tokenizer, list(texts), max_len)
    return Prompts(texts, ids, tokenize(tokenizer, [""], max_len)[0], len(tokenizer),
                   (tokenizer.bos_token_id, tokenizer.eos_token_id), latent_shape, seed)


def read_prompts(path: Path) -> tuple[str, ...]:
    if not path.is_file():
        raise CaseError(f"prompts file {path} does not exist: set prompts to a .txt file (one "
                        "prompt a line) or a caption .json under the data dir")
    if path.suffix.lower() == ".json":
        texts = _captions(json.loads(path.read_text(encoding="utf-8")), path)
    else:
        texts = [line.strip() for line in path.read_text(encoding="utf-8").splitlines()]
    texts = [t for t in texts if t]
    if not texts:
        raise CaseError(f"prompts file {path} holds no prompts")
    return tuple(texts)


def _captions(data: Any, path: Path) -> list[str]:
    if isinstance(data, list) and all(isinstance(t, str) for t in data):
        return data
    if isinstance(data, dict) and isinstance(data.get("annotations"), list):
        return [str(a["caption"]) for a in data["annotations"] if isinstance(a, dict) and "caption" in a]
    raise CaseError(f"prompts file {path}: expected a list of strings or "
                    '{"annotations": [{"caption": ...}]}')


def load_tokenizer(folder: Path) -> Any:
    missing = [name for name in TOKENIZER_FILES if not (folder / name).is_file()]
    if missing:
        raise CaseError(f"tokenizer folder {folder} lacks {', '.join(missing)}: copy CLIP's "
                        "tokenizer files there (stable-diffusion-v1-4's tokenizer/ folder), or "
                        "for CI data run inference/benchmarks/stable_diffusion_v1_4/pytorch/"
                        "prepare_prompts.py")
    from transformers import CLIPTokenizer

    return CLIPTokenizer.from_pretrained(str(folder), local_files_only=True)


def tokenize(tokenizer: Any, texts: list[str], max_len: int) -> torch.Tensor:
    return tokenizer(texts, padding="max_length", max_length=max_len, truncation=True,
                     return_tensors="pt").input_ids
