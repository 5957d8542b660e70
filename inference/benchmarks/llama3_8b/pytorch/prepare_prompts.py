"""Write a small prompt data set for the llama3_8b inference case (CI data, no download).

    python3 prepare_prompts.py SRC OUT_DIR [--vocab-size 512]

Copies every regular file under SRC (default use: /usr/share/common-licenses, present on
Debian) to OUT_DIR/text/<name>.txt and trains OUT_DIR/tokenizer.json on that text: a
byte-level BPE (Hugging Face ``tokenizers``, the same kind of model and file as Llama 3's own
``tokenizer.json``, which can be put in its place unchanged). Ids 0, 1, 2 are ``<|pad|>``,
``<|begin_of_text|>``, ``<|end_of_text|>``. Deterministic for the same text and size.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

SPECIALS = ["<|pad|>", "<|begin_of_text|>", "<|end_of_text|>"]


def copy_texts(src: Path, out: Path) -> list[Path]:
    files = sorted(p for p in src.rglob("*") if p.is_file())
    if not files:
        raise SystemExit(f"error: no files under {src}")
    (out / "text").mkdir(parents=True, exist_ok=True)
    written = []
    for path in files:
        target = out / "text" / ("_".join(path.relative_to(src).parts) + ".txt")
        target.write_text(path.read_text(encoding="utf-8", errors="replace"), encoding="utf-8")
        written.append(target)
    return written


def train_tokenizer(files: list[Path], vocab_size: int, out: Path) -> int:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=SPECIALS,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    tokenizer.train([str(f) for f in files], trainer)
    tokenizer.save(str(out / "tokenizer.json"))
    return tokenizer.get_vocab_size()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("src", type=Path)
    p.add_argument("out_dir", type=Path)
    p.add_argument("--vocab-size", type=int, default=512)
    args = p.parse_args(argv)
    files = copy_texts(args.src, args.out_dir)
    size = train_tokenizer(files, args.vocab_size, args.out_dir)
    print(f"wrote {len(files)} text files and a {size}-token tokenizer.json to {args.out_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
