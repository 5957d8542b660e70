"""Build the cpm case's CI data: generated token streams in the causal-LM shard layout.

    python3 prepare_data.py --output DIR [--train-tokens 65536] [--eval-tokens 4096] [--seed 0]
    python3 prepare_data.py --output DIR --flagperf-text [--documents 400] [--seed 0]

Writes ``DIR/train/shard_0000.npy`` and ``DIR/eval/shard_0000.npy`` (1-D int32 token streams,
``textlm.tokens``' layout) and ``DIR/meta.json``. The tokens are not text: one stream of
``textlm.generated.chain_stream`` (each token its predecessor's fixed successor 80 % of the
time) over the ids 4-255, cut into train and eval. (Not ``topic_stream``: its runs repeat
an id, and an untrained model with tied embeddings, which predicts its input token again,
already scores 0.99 embedding average on them.) Nothing is downloaded. Needs numpy.

``--flagperf-text`` writes FlagPerf's raw-text layout instead (``hftext/flagperf_cpm.py``):
``train.txt`` and ``valid.txt``, one generated Chinese document a line (words of WORDS, each
word's fixed successor 80 % of the time), and ``bpe_3w_new/`` with a small SentencePiece model
trained on that text (NOT CPM-1's vocabulary: the shapes of its files, with ``<eod>`` and
``<pad>``) and its ``vocab.json``. Needs jieba and sentencepiece as well.
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

IDS = range(4, 256)
# a few dozen common words: the generated documents' vocabulary
WORDS = ("我们 中国 学习 模型 数据 训练 语言 计算 芯片 性能 测试 结果 时间 问题 方法 系统 研究 发展 技术 "
         "网络 文本 生成 预测 任务 评估 速度 内存 算力 集群 节点 显卡 服务器 北京 上海 今天 明天 工作 "
         "人工智能 深度 神经").split()


def flagperf_text(output: Path, documents: int, seed: int) -> dict:
    """FlagPerf's cpm raw-text layout with a small tokenizer of the same files (module doc)."""
    import sentencepiece

    rng = np.random.default_rng(seed)
    successor = rng.permutation(len(WORDS))
    lines = []
    for _ in range(documents):
        word, words = int(rng.integers(len(WORDS))), []
        for _ in range(int(rng.integers(20, 60))):
            words.append(WORDS[word])
            word = int(successor[word]) if rng.random() < 0.8 else int(rng.integers(len(WORDS)))
        lines.append("".join(words) + "。")
    held = max(1, documents // 10)
    output.mkdir(parents=True, exist_ok=True)
    (output / "train.txt").write_text("\n".join(lines[held:]) + "\n", encoding="utf-8")
    (output / "valid.txt").write_text("\n".join(lines[:held]) + "\n", encoding="utf-8")
    folder = output / "bpe_3w_new"
    folder.mkdir(exist_ok=True)
    sentencepiece.SentencePieceTrainer.train(
        # every word, and the marks CPM-1's tokenizer writes for a space and a newline
        sentence_iterator=iter(" ".join(WORDS) + " \u2582 \u2583 " + line for line in lines),
        model_prefix=str(folder / "chinese_vocab"), vocab_size=160, model_type="bpe",
        user_defined_symbols=["<eod>", "<pad>"], character_coverage=1.0, minloglevel=2)
    pieces = sentencepiece.SentencePieceProcessor(model_file=str(folder / "chinese_vocab.model"))
    vocab = {pieces.id_to_piece(i): i for i in range(pieces.get_piece_size())}
    (folder / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False) + "\n", encoding="utf-8")
    return {"layout": "FlagPerf's cpm raw text (hftext/flagperf_cpm.py)", "documents": documents,
            "words": len(WORDS), "tokenizer": "SentencePiece BPE, 160 pieces, trained here "
            "(not CPM-1's vocabulary)"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", type=Path, required=True)
    parser.add_argument("--train-tokens", type=int, default=65536)
    parser.add_argument("--eval-tokens", type=int, default=4096)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--flagperf-text", action="store_true",
                        help="FlagPerf's raw-text layout with a small tokenizer (module doc)")
    parser.add_argument("--documents", type=int, default=400)
    args = parser.parse_args(argv)
    if args.flagperf_text:
        meta = flagperf_text(args.output, args.documents, args.seed)
        meta.update({"made_by": "training/benchmarks/cpm/pytorch/prepare_data.py --flagperf-text",
                     "seed": args.seed})
        (args.output / "meta.json").write_text(json.dumps(meta, indent=1, ensure_ascii=False) + "\n")
        return 0
    stream = chain_stream(args.train_tokens + args.eval_tokens, IDS, np.random.default_rng(args.seed))
    for split, part in (("train", stream[:args.train_tokens]), ("eval", stream[args.train_tokens:])):
        (args.output / split).mkdir(parents=True, exist_ok=True)
        np.save(args.output / split / "shard_0000.npy", part)
    meta = {"layout": "causal-LM token shards (textlm.tokens)",
            "made_by": "training/benchmarks/cpm/pytorch/prepare_data.py",
            "generator": "textlm.generated.chain_stream", "ids": [IDS.start, IDS.stop - 1],
            "train_tokens": args.train_tokens, "eval_tokens": args.eval_tokens, "seed": args.seed}
    (args.output / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
