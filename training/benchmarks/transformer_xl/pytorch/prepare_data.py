"""Build the transformer_xl case's CI data in FlagPerf's layout: generated word text as
WikiText-103's Arrow files, and a transfo-xl-wt103-shaped model dir.

    python3 prepare_data.py --output DIR [--train-lines 1600] [--eval-lines 160]

Writes ``DIR/data/wikitext-{train,validation,test}.arrow`` (``datasets``' Arrow stream, one
``text`` line a row), ``DIR/model/vocab.pkl`` (``<eos>``, ``<unk>`` and 60 words ``w0``..)
and ``DIR/model/config.json`` (transformers' transfo-xl keys: 62 ids cut at 20 and 40,
div_val 2). A line is 16 words of a ``textlm.generated.chain_stream`` (each word its
predecessor's fixed successor 80 % of the time); the text goes on across lines, so the
memory of the previous segment predicts a segment's first words. Nothing is downloaded.
Needs numpy and pyarrow.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

REPO = str(Path(__file__).resolve().parents[4])
if REPO not in sys.path:
    sys.path.insert(1, REPO)  # chipperf_runtime's textlm (run as a script on the host, not launched)
from chipperf_runtime.training.textlm.generated import chain_stream  # noqa: E402
from chipperf_runtime.training.textlm.wikitext import (  # noqa: E402
    EOS,
    UNK,
    split_path,
    write_lines,
    write_vocab,
)

WORDS = [EOS, UNK] + [f"w{i}" for i in range(60)]
LINE = 16
CONFIG = {"model_type": "transfo-xl", "vocab_size": len(WORDS), "cutoffs": [20, 40],
          "tie_projs": [False, True, True], "div_val": 2, "d_model": 64, "d_embed": 64,
          "n_head": 4, "d_head": 16, "d_inner": 128, "n_layer": 2, "mem_len": 32,
          "clamp_len": 1000, "same_length": True, "attn_type": 0, "pre_lnorm": False,
          "untie_r": True, "adaptive": True, "sample_softmax": -1, "tgt_len": 16}


def lines(ids: np.ndarray) -> list[str]:
    return [" ".join(WORDS[i] for i in ids[n:n + LINE]) for n in range(0, len(ids), LINE)]


def prepare(out: Path, train_lines: int = 1600, eval_lines: int = 160) -> Path:
    """One chain (one successor table) cut into the train, validation and test lines."""
    counts = {"train": train_lines, "validation": eval_lines, "test": eval_lines}
    ids = chain_stream(sum(counts.values()) * LINE, range(2, len(WORDS)), np.random.default_rng(29))
    start = 0
    for split, count in counts.items():
        write_lines(split_path(out, split), lines(ids[start:start + count * LINE]))
        start += count * LINE
    write_vocab(out / "model" / "vocab.pkl", WORDS)
    (out / "model" / "config.json").write_text(json.dumps(CONFIG, indent=1))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, required=True)
    parser.add_argument("--train-lines", type=int, default=1600)
    parser.add_argument("--eval-lines", type=int, default=160)
    args = parser.parse_args()
    print(prepare(args.output, args.train_lines, args.eval_lines))


if __name__ == "__main__":
    main()
