"""Write CI data for the MMLU inference cases (llama2_7b_mmlu, llama3_8b_mmlu,
deepseek_7b_mmlu, Aquila_7b_mmlu): a generated question set and a tiny model (no download).

    python3 prepare_mmlu.py OUT_DIR [--subjects abstract_algebra anatomy] [--dev 5] [--test 4]

Writes OUT_DIR/mmlu_dataset/data/{dev,test}/<subject>_{dev,test}.csv (MMLU's layout, FlagPerf's
``mmlu_dir``) and OUT_DIR/tiny_hf/ (a random 2-layer Llama and a byte-level BPE tokenizer
trained on the questions, as a Hugging Face folder). Run a case on it with
``--set weight_dir=tiny_hf``; a real model's folder goes beside it (FlagPerf's weight_dir,
e.g. llama3_8b_hf).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from chipperf_runtime.inference.mmlu.tiny import write_model, write_questions


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out_dir", type=Path)
    p.add_argument("--subjects", nargs="+", default=["abstract_algebra", "anatomy"])
    p.add_argument("--dev", type=int, default=5, help="shots per subject (FlagPerf: 5)")
    p.add_argument("--test", type=int, default=4, help="test questions per subject")
    p.add_argument("--vocab-size", type=int, default=300)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    files = write_questions(args.out_dir / "mmlu_dataset" / "data", args.subjects, args.dev,
                            args.test, args.seed)
    params = write_model(args.out_dir / "tiny_hf", files, args.vocab_size, args.seed)
    print(f"wrote {len(files)} question files and a {params:,}-parameter model to {args.out_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
