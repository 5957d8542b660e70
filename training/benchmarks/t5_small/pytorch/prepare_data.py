"""Build the t5_small case's CI data: a generated summarisation task in FlagPerf's layout.

    python3 prepare_data.py --output DIR [--train 8192] [--eval 256] [--seed 0]

Each source is a short templated news item: three sentences state who did what to which
object, where and on which day, in one of several phrasings, shuffled among filler sentences
(their words never name a fact); the target is the one-line summary
``<person> <action> the <object> at the <place> on <day> .``. Nothing is downloaded, the same
seed gives the same files. Writes FlagPerf's t5_small layout (``hftext/pairs.py``)::

    DIR/dataset/train_dataset.npz, DIR/dataset/eval_dataset.npz
        input_ids [N, 64] ("summarize : " + the item, </s>, pad 0), attention_mask [N, 64],
        labels [N, 16] (the summary, </s>, then -100)
    DIR/model/tokenizer.json    a word-level Hugging Face tokenizer: <pad> 0, </s> 1, <unk> 2
                                (T5's special ids), then every word the generator uses
    DIR/meta.json               sizes, seed, how it was made

Needs numpy and Hugging Face ``tokenizers``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

SOURCE_LEN, TARGET_LEN = 64, 16
IGNORE = -100
SPECIALS = ("<pad>", "</s>", "<unk>")
FIELDS = {
    "person": "alice bruno chen dara elif farid greta hiro ines jonas kemal lena mateo nadia "
              "omar priya quinn rosa sven tariq uma viktor wen yusuf".split(),
    "action": "bought sold painted found repaired moved cleaned carried built lost opened "
              "delivered locked washed measured weighed".split(),
    "object": "piano bicycle ladder lantern kettle mirror tractor violin canoe clock desk "
              "telescope wagon anchor barrel bench cabinet drum easel fountain globe harp "
              "kayak loom".split(),
    "place": "harbour library market station museum bakery garden factory stadium chapel "
             "bridge castle clinic depot farm gallery hotel island jetty kiosk lighthouse "
             "mill orchard quarry".split(),
    "day": "monday tuesday wednesday thursday friday saturday sunday".split(),
}
FACTS = (
    ("{person} {action} the {object} .", "the {object} was {action} by {person} .",
     "it was {person} who {action} the {object} ."),
    ("this took place near the {place} .", "the {place} was busy .",
     "everyone at the {place} watched ."),
    ("it was {day} .", "that {day} was calm .", "the event was on {day} ."),
)
FILLER = {
    "adjective": "quiet bright cold warm grey windy small loud".split(),
    "noun": "crowd weather sky road river news town street".split(),
    "verb": "seemed stayed looked felt grew was".split(),
    "adverb": "calm late early busy still fine".split(),
}
FILLERS = ("the {adjective} {noun} {verb} {adverb} .", "later the {noun} {verb} {adjective} .",
           "many said the {noun} {verb} {adverb} .")
SUMMARY = "{person} {action} the {object} at the {place} on {day} ."
PREFIX = "summarize :"


def vocabulary() -> list[str]:
    words = {w for t in FACTS for s in t for w in s.split() if "{" not in w}
    words |= {w for s in FILLERS + (SUMMARY, PREFIX) for w in s.split() if "{" not in w}
    words |= {w for values in (*FIELDS.values(), *FILLER.values()) for w in values}
    return list(SPECIALS) + sorted(words)


def item(rng: np.random.Generator) -> tuple[str, str]:
    """(source text, summary) of one generated news item."""
    facts = {field: str(rng.choice(values)) for field, values in FIELDS.items()}
    sentences = [str(rng.choice(phrasings)).format(**facts) for phrasings in FACTS]
    for _ in range(rng.integers(2, 5)):
        words = {slot: str(rng.choice(values)) for slot, values in FILLER.items()}
        sentences.append(str(rng.choice(FILLERS)).format(**words))
    order = rng.permutation(len(sentences))
    return " ".join([PREFIX] + [sentences[i] for i in order]), SUMMARY.format(**facts)


def word_tokenizer(words: list[str]):
    from tokenizers import Tokenizer, models, pre_tokenizers

    tokenizer = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer.add_special_tokens(list(SPECIALS))
    return tokenizer


def encode(tokenizer, texts: list[str], width: int, fill: int) -> np.ndarray:
    """Each text's ids then </s>, filled to ``width`` with ``fill``."""
    rows = np.full((len(texts), width), fill, dtype=np.int64)
    for r, encoding in enumerate(tokenizer.encode_batch(texts)):
        ids = encoding.ids + [SPECIALS.index("</s>")]
        if len(ids) > width:
            raise ValueError(f"a generated text of {len(ids)} tokens exceeds {width}")
        rows[r, :len(ids)] = ids
    return rows


def write_split(path: Path, tokenizer, pairs: list[tuple[str, str]]) -> None:
    input_ids = encode(tokenizer, [s for s, _ in pairs], SOURCE_LEN, 0)
    labels = encode(tokenizer, [t for _, t in pairs], TARGET_LEN, IGNORE)
    np.savez(path, input_ids=input_ids, attention_mask=(input_ids != 0).astype(np.int64),
             labels=labels)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", type=Path, required=True)
    parser.add_argument("--train", type=int, default=8192)
    parser.add_argument("--eval", type=int, default=256)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    words = vocabulary()
    tokenizer = word_tokenizer(words)
    (args.output / "dataset").mkdir(parents=True, exist_ok=True)
    (args.output / "model").mkdir(parents=True, exist_ok=True)
    tokenizer.save(str(args.output / "model" / "tokenizer.json"))
    for split, count in (("train", args.train), ("eval", args.eval)):
        write_split(args.output / "dataset" / f"{split}_dataset.npz", tokenizer,
                    [item(rng) for _ in range(count)])
    meta = {"made_by": "training/benchmarks/t5_small/pytorch/prepare_data.py", "seed": args.seed,
            "train_pairs": args.train, "eval_pairs": args.eval, "vocab_size": len(words),
            "source_len": SOURCE_LEN, "target_len": TARGET_LEN}
    (args.output / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    print(f"{args.output}: {args.train} train and {args.eval} eval pairs, {len(words)} words")


if __name__ == "__main__":
    main()
