"""Build the t5_3b case's data folder from CNN/DailyMail's article/highlights layout.

    python3 prepare_data.py --output DIR [--train 8192] [--eval 256] [--seed 0]
    python3 prepare_data.py --output DIR --from CSV_DIR --tokenizer tokenizer.json \\
        [--source-len 1024] [--target-len 128]

Without ``--from`` it first generates a CNN/DailyMail-like set small enough for the CI model
to learn in seconds (nothing downloaded, the same seed gives the same files): each article is
the three fact sentences of t5_small's generator (``../../t5_small/pytorch/prepare_data.py``:
who did what to which object, where and on which day, each in one of its phrasings, in a
random order; no filler sentences), each fact one of the first 8 values of its field; each
highlight the one-line summary of the facts; a word-level tokenizer over the generator's
words. It writes them as
CNN/DailyMail's CSV files (``DIR/raw/train.csv``, ``DIR/raw/validation.csv``: columns ``id,
article, highlights``, the layout of the dataset's CSV release and of Hugging Face's
``cnn_dailymail`` 3.0.0 columns), then tokenises them.

With ``--from`` it tokenises a real CNN/DailyMail release (``CSV_DIR/train.csv`` and
``CSV_DIR/validation.csv``) with the given Hugging Face tokenizer file (t5-3b's
``tokenizer.json``), as run_summarization.py does: ``"summarize: " + article`` truncated to
``source-len`` tokens, the highlights to ``target-len``, each ending in ``</s>``.

Either way the result is the pairs layout the case reads (``hftext/pairs.py``)::

    DIR/dataset/train_dataset.npz, DIR/dataset/eval_dataset.npz
        input_ids [N, S] (pad 0), attention_mask [N, S], labels [N, T] (then -100)
    DIR/model/tokenizer.json    the tokenizer that made them
    DIR/meta.json               sizes, seed, source, how it was made

Needs numpy and Hugging Face ``tokenizers``.
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import json
import shutil
import sys
from pathlib import Path
from types import ModuleType

import numpy as np

HERE = Path(__file__).resolve().parent
GENERATOR = HERE.parent.parent / "t5_small" / "pytorch" / "prepare_data.py"
COLUMNS = ("id", "article", "highlights")
SPLITS = {"train": "train.csv", "eval": "validation.csv"}
PREFIX = "summarize: "               # run_summarization.py's --source_prefix for T5
IGNORE, PAD, EOS = -100, 0, 1
CI_WIDTHS = (24, 12)                 # the generated items fit: 23 tokens + </s>, 10 + </s> at most
CI_VALUES = 8                        # values of each fact field in the generated set


def generator() -> ModuleType:
    """t5_small's CI generator (items, vocabulary, word-level tokenizer)."""
    spec = importlib.util.spec_from_file_location("t5_small_prepare_data", GENERATOR)
    if spec is None or spec.loader is None:
        raise SystemExit(f"{GENERATOR}: not found: t5_3b's CI data reuses t5_small's generator")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def write_csv(path: Path, rows: list[tuple[str, str]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(COLUMNS)
        for index, (article, highlights) in enumerate(rows):
            writer.writerow((f"{path.stem}-{index:07d}", article, highlights))


def item(gen: ModuleType, rng: np.random.Generator) -> tuple[str, str]:
    """(article, highlights) of one generated news item: t5_small's fact sentences, one
    phrasing each, shuffled; each fact among the first CI_VALUES values of its field."""
    facts = {field: str(rng.choice(values[:CI_VALUES])) for field, values in gen.FIELDS.items()}
    sentences = [str(rng.choice(phrasings)).format(**facts) for phrasings in gen.FACTS]
    return " ".join(sentences[i] for i in rng.permutation(len(sentences))), \
        gen.SUMMARY.format(**facts)


def generate(root: Path, counts: dict[str, int], seed: int) -> tuple[Path, str]:
    """CNN/DailyMail-like CSVs under ``root/raw`` and their tokenizer file; returns the
    tokenizer's path and the prefix in the generator's words (``summarize :``)."""
    gen = generator()
    rng = np.random.default_rng(seed)
    for split, count in counts.items():
        write_csv(root / "raw" / SPLITS[split], [item(gen, rng) for _ in range(count)])
    tokenizer_file = root / "raw" / "tokenizer.json"
    gen.word_tokenizer(gen.vocabulary()).save(str(tokenizer_file))
    return tokenizer_file, gen.PREFIX + " "


def read_csv(path: Path) -> list[tuple[str, str]]:
    if not path.is_file():
        raise SystemExit(f"{path}: missing: a CNN/DailyMail release has train.csv and "
                         f"validation.csv with the columns {', '.join(COLUMNS)}")
    with path.open(newline="") as src:
        reader = csv.DictReader(src)
        lacking = [c for c in COLUMNS[1:] if c not in (reader.fieldnames or [])]
        if lacking:
            raise SystemExit(f"{path}: no column {', '.join(lacking)}: expected "
                             f"{', '.join(COLUMNS)} (CNN/DailyMail's CSV layout)")
        return [(row["article"], row["highlights"]) for row in reader]


def encode(tokenizer, texts: list[str], width: int, fill: int) -> np.ndarray:
    """Each text's ids cut to ``width - 1``, then </s>, filled to ``width`` with ``fill``."""
    rows = np.full((len(texts), width), fill, dtype=np.int64)
    for r, encoding in enumerate(tokenizer.encode_batch(texts, add_special_tokens=False)):
        ids = encoding.ids[:width - 1] + [EOS]
        rows[r, :len(ids)] = ids
    return rows


def tokenise(csv_dir: Path, tokenizer_file: Path, out: Path, widths: tuple[int, int],
             prefix: str) -> dict:
    """The pairs layout from ``csv_dir``'s CSVs, each article after ``prefix``; returns each
    split's pair count."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(tokenizer_file))
    (out / "dataset").mkdir(parents=True, exist_ok=True)
    (out / "model").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(tokenizer_file, out / "model" / "tokenizer.json")
    sizes = {}
    for split, name in SPLITS.items():
        rows = read_csv(csv_dir / name)
        input_ids = encode(tokenizer, [prefix + a for a, _ in rows], widths[0], PAD)
        labels = encode(tokenizer, [h for _, h in rows], widths[1], IGNORE)
        np.savez(out / "dataset" / f"{split}_dataset.npz", input_ids=input_ids,
                 attention_mask=(input_ids != PAD).astype(np.int64), labels=labels)
        sizes[split] = len(rows)
    return sizes


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", type=Path, required=True)
    parser.add_argument("--from", dest="source", type=Path,
                        help="a CNN/DailyMail CSV release (train.csv, validation.csv)")
    parser.add_argument("--tokenizer", type=Path, help="tokenizer.json (with --from)")
    parser.add_argument("--source-len", type=int, default=1024)
    parser.add_argument("--target-len", type=int, default=128)
    parser.add_argument("--train", type=int, default=8192)
    parser.add_argument("--eval", type=int, default=256)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.source is not None and args.tokenizer is None:
        parser.error("--from needs --tokenizer (t5-3b's tokenizer.json)")
    if args.source is None:
        tokenizer_file, prefix = generate(args.output, {"train": args.train, "eval": args.eval},
                                          args.seed)
        csv_dir, widths = args.output / "raw", CI_WIDTHS
    else:
        tokenizer_file, csv_dir, prefix = args.tokenizer, args.source, PREFIX
        widths = (args.source_len, args.target_len)
    sizes = tokenise(csv_dir, tokenizer_file, args.output, widths, prefix)
    meta = {"made_by": "training/benchmarks/t5_3b/pytorch/prepare_data.py",
            "source": str(csv_dir), "prefix": prefix, "generated": args.source is None, "seed": args.seed,
            "train_pairs": sizes["train"], "eval_pairs": sizes["eval"],
            "source_len": widths[0], "target_len": widths[1]}
    (args.output / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    print(f"{args.output}: {sizes['train']} train and {sizes['eval']} eval pairs "
          f"({widths[0]} + {widths[1]} tokens)")


if __name__ == "__main__":
    sys.exit(main())
