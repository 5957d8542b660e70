"""Write a small text data set for the bert_large inference case (CI data, no download).

    python3 prepare_text.py SRC OUT_DIR [--vocab-size 8000]

Copies every regular file under SRC (default use: /usr/share/common-licenses, present on
Debian) to OUT_DIR/text/<name>.txt and builds OUT_DIR/vocab.txt, a WordPiece vocabulary of
the text (``chipperf_runtime.wordpiece.build_vocab``, the tokenizer training's bert corpus uses too).
Needs only the standard library and the repository's ``chipperf`` package.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[4]))  # the repository: chipperf

from chipperf_runtime.wordpiece import build_vocab, write_vocab  # noqa: E402


def write(src: Path, out: Path, vocab_size: int) -> tuple[int, int]:
    files = sorted(p for p in src.rglob("*") if p.is_file())
    if not files:
        raise SystemExit(f"error: no files under {src}")
    (out / "text").mkdir(parents=True, exist_ok=True)
    texts = []
    for path in files:
        content = path.read_text(encoding="utf-8", errors="replace")
        name = "_".join(path.relative_to(src).parts)
        (out / "text" / f"{name}.txt").write_text(content, encoding="utf-8")
        texts.append(content)
    vocab = build_vocab(texts, vocab_size)
    write_vocab(out / "vocab.txt", vocab)
    return len(files), len(vocab)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("src", type=Path)
    p.add_argument("out_dir", type=Path)
    p.add_argument("--vocab-size", type=int, default=8000)
    args = p.parse_args(argv)
    files, vocab = write(args.src, args.out_dir, args.vocab_size)
    print(f"wrote {files} text files and a {vocab}-token vocab.txt to {args.out_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
