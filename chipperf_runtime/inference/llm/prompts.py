"""The LLM workload: a tokenizer that ships with the data, and requests drawn with a seed.

    <data_dir>/tokenizer.json     a Hugging Face ``tokenizers`` file (Llama 3's own works;
                                  prepare_prompts.py trains a small byte-level BPE for CI)
    <data_dir>/**/*.txt           the text prompts are cut from

Request ``i``: a prompt length and an output length, each drawn uniformly from its
``[min, max]`` range by a NumPy generator seeded with ``seed``, and the prompt itself, the
tokens of the concatenated, tokenised text at an offset drawn from the same generator. So
the same seed, text and tokenizer give the same requests on every engine and chip.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from chipperf_runtime.inference.errors import CaseError

TOKENIZER_FILE = "tokenizer.json"


@dataclass(frozen=True)
class Request:
    index: int
    prompt: tuple[int, ...]
    max_new_tokens: int


@dataclass(frozen=True)
class Lengths:
    """A uniform integer distribution over ``[low, high]``."""

    low: int
    high: int

    def draw(self, rng: np.random.Generator, count: int) -> np.ndarray:
        return rng.integers(self.low, self.high + 1, size=count)

    def describe(self) -> dict:
        return {"distribution": "uniform integer", "min": self.low, "max": self.high}


@dataclass(frozen=True)
class Workload:
    tokens: np.ndarray          # the tokenised text, concatenated
    prompt: Lengths
    output: Lengths
    seed: int
    tokenizer: str
    vocab_size: int

    def requests(self, count: int, stream: int) -> list[Request]:
        """``count`` requests of stream ``stream`` (each scenario draws its own stream)."""
        rng = np.random.default_rng([self.seed, stream])
        prompt_lens, output_lens = self.prompt.draw(rng, count), self.output.draw(rng, count)
        starts = rng.integers(0, len(self.tokens) - self.prompt.high, size=count)
        return [Request(i, tuple(int(t) for t in self.tokens[s:s + n]), int(m))
                for i, (s, n, m) in enumerate(zip(starts, prompt_lens, output_lens))]

    def describe(self) -> dict:
        return {"prompt_tokens": self.prompt.describe(), "output_tokens": self.output.describe(),
                "seed": self.seed, "tokenizer": self.tokenizer,
                "tokenizer_vocab_size": self.vocab_size, "text_tokens": int(len(self.tokens))}


def load_tokenizer(path: Path) -> Any:
    if not path.is_file():
        raise CaseError(f"tokenizer file {path} not found: put a Hugging Face tokenizer.json "
                        "there (Llama 3's works), set tokenizer_file in the configuration, or "
                        "prepare CI data with inference/benchmarks/llama3_8b/pytorch/"
                        "prepare_prompts.py")
    from tokenizers import Tokenizer

    try:
        return Tokenizer.from_file(str(path))
    except Exception as exc:  # noqa: BLE001 - any unreadable file gets the same advice
        raise CaseError(f"tokenizer file {path} cannot be read by tokenizers.Tokenizer: "
                        f"{exc}: give a Hugging Face tokenizer.json") from exc


def load(data_dir: str, tokenizer_file: str | None, prompt: Lengths, output: Lengths,
         seed: int) -> Workload:
    root = Path(data_dir)
    if not root.is_dir():
        raise CaseError(f"data dir {root} does not exist: give a folder of .txt files with "
                        "tokenizer.json in host.yaml CASES")
    path = Path(tokenizer_file) if tokenizer_file else root / TOKENIZER_FILE
    tokenizer = load_tokenizer(path)
    texts = [p.read_text(encoding="utf-8", errors="replace")
             for p in sorted(root.rglob("*.txt")) if p.is_file()]
    if not texts:
        raise CaseError(f"data dir {root}: no *.txt text to cut prompts from: add text files")
    ids = [i for enc in tokenizer.encode_batch(texts) for i in enc.ids]
    tokens = np.asarray(ids, dtype=np.int64)
    if len(tokens) <= prompt.high:
        raise CaseError(f"data dir {root}: its text has {len(tokens)} tokens, not more than "
                        f"prompt_tokens_max {prompt.high}: add text or lower prompt_tokens_max")
    return Workload(tokens, prompt, output, seed, str(path), tokenizer.get_vocab_size())
