"""CI data for the MMLU cases (nothing downloaded): a generated question set in MMLU's CSV
layout and a tiny random Llama with a tokenizer trained on those questions, saved as a Hugging
Face model folder, so the case reads them exactly as it reads a real checkpoint.

Questions are sums ("What is 3 + 4?") with four numeric choices, one right; the answer's
position is drawn from the seed. Deterministic for the same arguments.
"""

from __future__ import annotations

import csv
import random
from pathlib import Path
from typing import Any, Sequence

from chipperf_runtime.inference.mmlu.questions import CHOICES

SPECIALS = {"pad_token": "<pad>", "bos_token": "<s>", "eos_token": "</s>"}
# the tiny model: 2 layers of 64, 4 heads (head size 16), context 1024
TINY_SHAPE: dict[str, Any] = {"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
              "num_attention_heads": 4, "num_key_value_heads": 4,
              "max_position_embeddings": 1024}
# the letters' rows of the output layer are scaled by this (and read an always-on hidden unit),
# so the tiny model's argmax is a letter that varies with the prompt: accuracy near chance
LETTER_SCALE = 50.0


def question_rows(count: int, rng: random.Random) -> list[list[str]]:
    rows = []
    for _ in range(count):
        a, b = rng.randint(1, 40), rng.randint(1, 40)
        wrong = rng.sample([n for n in range(2, 81) if n != a + b], 3)
        right = rng.randrange(4)
        choices = wrong[:right] + [a + b] + wrong[right:]
        rows.append([f"What is {a} + {b}?", *map(str, choices), CHOICES[right]])
    return rows


def write_questions(mmlu_dir: Path, subjects: Sequence[str], dev: int, test: int,
                    seed: int) -> list[Path]:
    rng, written = random.Random(seed), []
    for split, count in (("dev", dev), ("test", test)):
        (mmlu_dir / split).mkdir(parents=True, exist_ok=True)
        for subject in subjects:
            path = mmlu_dir / split / f"{subject}_{split}.csv"
            with path.open("w", newline="", encoding="utf-8") as file:
                csv.writer(file).writerows(question_rows(count, rng))
            written.append(path)
    return written


def write_model(out: Path, texts: Sequence[Path], vocab_size: int, seed: int) -> int:
    """The tokenizer (byte-level BPE on ``texts``) and a seeded random tiny Llama; returns
    the model's parameter count."""
    from chipperf_runtime.models.tvision import prepare_torchvision

    prepare_torchvision()  # before transformers: torchvision beside a CPU torch
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    bpe.train([str(t) for t in texts], trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=list(SPECIALS.values()), show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    bos = SPECIALS["bos_token"]
    bpe.post_processor = processors.TemplateProcessing(   # a BOS first, as Llama's tokenizers
        single=f"{bos} $A", special_tokens=[(bos, bpe.token_to_id(bos))])
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=bpe, **SPECIALS)
    out.mkdir(parents=True, exist_ok=True)
    tokenizer.save_pretrained(str(out))
    ids = {name: bpe.token_to_id(token) for name, token in SPECIALS.items()}
    torch.manual_seed(seed)
    model = LlamaForCausalLM(LlamaConfig(
        **TINY_SHAPE, vocab_size=bpe.get_vocab_size(), tie_word_embeddings=False,
        pad_token_id=ids["pad_token"], bos_token_id=ids["bos_token"],
        eos_token_id=ids["eos_token"]))
    with torch.no_grad():   # answer letters: random weights alone never pick one
        model.model.embed_tokens.weight[:, 0] = 1.0     # a hidden unit that is always on ...
        for token in range(bpe.get_vocab_size()):
            if bpe.decode([token]).strip() in CHOICES:  # ... raises every letter's logit, and
                model.lm_head.weight[token] *= LETTER_SCALE   # the rest picks among them
                model.lm_head.weight[token, 0] = 1.0
    model.save_pretrained(str(out))
    return sum(p.numel() for p in model.parameters())
