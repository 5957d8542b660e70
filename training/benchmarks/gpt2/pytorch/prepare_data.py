"""Build a small, real, offline causal-LM dataset for the gpt2 case.

    python3 prepare_data.py --output DIR [--source PATH ...] [--vocab-size 1024] [--eval-every 10]

Text: by default the English prose already on any Debian machine with Python (Python's language
reference in ``pydoc_data``, the standard library's docstrings, ``/usr/share/common-licenses``;
``textlm.corpus`` collects it); ``--source`` uses files or folders of text instead. Nothing is
downloaded.

Tokenizer: GPT-2's scheme, a byte-level BPE (Hugging Face ``tokenizers``), trained here on the
corpus to ``--vocab-size`` tokens, with GPT-2's ``<|endoftext|>`` ending each document; the real
GPT-2 vocabulary (50,257 tokens) needs a download, this one does not. Writes::

    DIR/vocab.json, DIR/merges.txt   the tokenizer, in GPT-2's own file format
    DIR/train/shard_*.npy            uint16 1-D: each document's tokens then <|endoftext|>
    DIR/eval/shard_*.npy             same, held-out documents
    DIR/meta.json                    sources (with sha256), sizes, how it was made

A corpus tokenised with the real GPT-2 tokenizer converts to the same layout
(``np.save(f, np.asarray(ids, np.uint16))`` per shard). Needs numpy, ``tokenizers`` and
``chipperf_runtime/training/textlm``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

REPO = str(Path(__file__).resolve().parents[4])
if REPO not in sys.path:
    sys.path.insert(1, REPO)  # chipperf_runtime's textlm (run as a script on the host, not launched)
from chipperf_runtime.training.textlm import corpus  # noqa: E402

SHARD_TOKENS = 1 << 24
END_OF_TEXT = "<|endoftext|>"


def train_tokenizer(documents: list[tuple[str, str]], vocab_size: int):
    from tokenizers import ByteLevelBPETokenizer

    tokenizer = ByteLevelBPETokenizer()
    tokenizer.train_from_iterator((text for _, text in documents), vocab_size=vocab_size,
                                  min_frequency=2, special_tokens=[END_OF_TEXT],
                                  show_progress=False)
    return tokenizer


def prepare(output: Path, documents: list[tuple[str, str]], vocab_size: int,
            eval_every: int) -> dict:
    tokenizer = train_tokenizer(documents, vocab_size)
    eot = tokenizer.token_to_id(END_OF_TEXT)
    encoded = tokenizer.encode_batch([text for _, text in documents])
    parts: dict[str, list[np.ndarray]] = {"train": [], "eval": []}
    for (name, _), ids in zip(documents, encoded):
        part = "eval" if corpus.is_eval(name, eval_every) else "train"
        parts[part].append(np.asarray([*ids.ids, eot], dtype=np.uint16))
    output.mkdir(parents=True, exist_ok=True)
    tokenizer.save_model(str(output))
    streams = {part: np.concatenate(arrays) if arrays else np.zeros(0, np.uint16)
               for part, arrays in parts.items()}
    meta = {
        "format": "gpt2-token-shards-v1",
        "made_by": "training/benchmarks/gpt2/pytorch/prepare_data.py",
        "tokenizer": "byte-level BPE trained on the corpus (vocab.json, merges.txt)",
        "vocab_size": tokenizer.get_vocab_size(), "end_of_text_id": eot,
        "eval_every": eval_every,
        "tokens": {part: int(len(s)) for part, s in streams.items()},
        "shards": {part: corpus.write_shards(output / part, s, SHARD_TOKENS)
                   for part, s in streams.items()},
        "sources": corpus.sources(documents),
    }
    corpus.write_meta(output, meta)
    return meta


def main(argv: list[str] | None = None) -> int:
    p = corpus.parser(__doc__.split("\n\n")[0])
    p.add_argument("--vocab-size", type=int, default=1024)
    args = p.parse_args(argv)
    documents = corpus.documents(p, args)
    meta = prepare(args.output, documents, args.vocab_size, args.eval_every)
    print(f"{args.output}: vocab {meta['vocab_size']}, tokens {meta['tokens']}, "
          f"{len(documents)} documents")
    return 0


if __name__ == "__main__":
    sys.exit(main())
