"""Build a small, real, offline MLM dataset in the layout the bert case reads.

    python3 prepare_data.py --output DIR [--source PATH ...] [--vocab-size 1024] [--seq-len 64]

Text: by default the English prose already on any Debian machine with Python: the Python
language reference shipped in the standard library (``pydoc_data.topics``), the docstrings of
the standard library's modules, and the licence texts in ``/usr/share/common-licenses``;
``--source`` uses files or folders of text instead (``textlm.corpus`` collects it, as for the
llama2_7b case). Nothing is downloaded. Writes::

    DIR/vocab.txt            WordPiece vocabulary built from the corpus (BERT format)
    DIR/train/shard_*.npy    uint16 [rows, seq_len]: [CLS] A [SEP] B [SEP] [PAD]...
    DIR/eval/shard_*.npy     same, from held-out documents
    DIR/meta.json            sources (with sha256), sizes, how it was made

The tokenizer is ``chipperf_runtime.wordpiece`` (BERT's uncased WordPiece, the one inference's
bert_large uses too). Needs only numpy, the standard library, ``chipperf_runtime/training/textlm``
and the repository's ``chipperf`` package.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Iterator

import numpy as np

HERE = Path(__file__).resolve()
if str(HERE.parents[4]) not in sys.path:   # chipperf_runtime (run as a script on the host)
    sys.path.insert(1, str(HERE.parents[4]))
from chipperf_runtime import wordpiece as tok  # noqa: E402
from chipperf_runtime.training.textlm import corpus  # noqa: E402

SHARD_ROWS = 65536
MIN_TOKENS = 8


def sequences(ids: list[int], seq_len: int, vocab: dict[str, int],
              rng: random.Random) -> Iterator[list[int]]:
    """Cut one document into [CLS] A [SEP] B [SEP] rows (A, B contiguous), padded."""
    block = seq_len - 3
    for start in range(0, len(ids), block):
        chunk = ids[start:start + block]
        if len(chunk) < MIN_TOKENS:
            continue
        cut = rng.randint(1, len(chunk) - 1)
        row = [vocab[tok.CLS], *chunk[:cut], vocab[tok.SEP], *chunk[cut:], vocab[tok.SEP]]
        yield row + [vocab[tok.PAD]] * (seq_len - len(row))


def prepare(output: Path, documents: list[tuple[str, str]], vocab_size: int, seq_len: int,
            eval_every: int, seed: int) -> dict:
    tokens = tok.build_vocab((text for _, text in documents), vocab_size)
    output.mkdir(parents=True, exist_ok=True)
    tok.write_vocab(output / "vocab.txt", tokens)
    tokenizer = tok.WordPiece.from_file(output / "vocab.txt")
    vocab = dict(tokenizer.vocab)
    rng = random.Random(seed)
    split: dict[str, list[list[int]]] = {"train": [], "eval": []}
    for name, text in documents:
        part = "eval" if corpus.is_eval(name, eval_every) else "train"
        split[part] += sequences(tokenizer.encode(text), seq_len, vocab, rng)
    random.Random(seed).shuffle(split["train"])
    dtype = np.uint16 if len(tokens) <= 65536 else np.int32
    meta = {
        "format": "bert-mlm-shards-v1",
        "made_by": "training/benchmarks/bert/pytorch/prepare_data.py",
        "tokenizer": "bert uncased basic tokenizer + WordPiece (vocab.txt)",
        "vocab_size": len(tokens), "seq_len": seq_len, "seed": seed, "eval_every": eval_every,
        "rows": {part: len(rows) for part, rows in split.items()},
        "shards": {part: corpus.write_shards(output / part, np.asarray(rows, dtype), SHARD_ROWS)
                   for part, rows in split.items()},
        "sources": corpus.sources(documents),
    }
    corpus.write_meta(output, meta)
    return meta


def main(argv: list[str] | None = None) -> int:
    p = corpus.parser(__doc__.split("\n\n")[0])
    p.add_argument("--vocab-size", type=int, default=1024)
    p.add_argument("--seq-len", type=int, default=64)
    p.add_argument("--seed", type=int, default=1234)
    args = p.parse_args(argv)
    documents = corpus.documents(p, args)
    meta = prepare(args.output, documents, args.vocab_size, args.seq_len, args.eval_every,
                   args.seed)
    print(f"{args.output}: vocab {meta['vocab_size']}, rows {meta['rows']}, "
          f"{len(documents)} documents")
    return 0


if __name__ == "__main__":
    sys.exit(main())
