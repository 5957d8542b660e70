"""The Paddle LLM cases' offline CI corpus in FlagPerf's PaddleNLP layout (paddlellm/data.py):
text already on the machine (``textlm.corpus``: the Python language reference, the standard
library's docstrings, the licence texts; ``--source`` files or folders instead), tokenised
byte-level (``textlm.bytelevel``: <s>=1, </s>=2, byte b -> 3 + b; 259 ids, no model file),
written as ``<output>/ci_corpus_ids.npy`` + ``ci_corpus_idx.npz`` (one sentence per
document). The case's ``split`` knob holds documents out for validation. Nothing is
downloaded."""

from __future__ import annotations

from chipperf_runtime.training.paddlellm.data import write_dataset
from chipperf_runtime.training.textlm import bytelevel, corpus

PREFIX = "ci_corpus"


def main(argv: list[str] | None, model: str) -> int:
    p = corpus.parser(f"Write the {model}/paddle CI corpus (FlagPerf's PaddleNLP layout)")
    args = p.parse_args(argv)
    documents = corpus.documents(p, args)
    counts = write_dataset(args.output, PREFIX, [bytelevel.encode(text) for _, text in documents])
    corpus.write_meta(args.output, {
        "format": "paddlenlp-ids-v1", "made_by": f"training/benchmarks/{model}/paddle/prepare_data.py",
        "tokenizer": bytelevel.TOKENIZER["type"], "vocab_size": bytelevel.TOKENIZER["vocab_size"],
        **counts, "sources": corpus.sources(documents)})
    print(f"{args.output}: {counts['documents']} documents, {counts['tokens']} tokens "
          f"({PREFIX}_ids.npy, {PREFIX}_idx.npz)")
    return 0
