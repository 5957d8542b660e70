"""Translation on fairseq's binarized data (``textlm.fairseq_data``; FlagPerf's transformer
case): teacher-forced cross entropy over the target (label smoothing: the Loop's), greedy
translations of the eval split scored with corpus BLEU-4 (``hftext.bleu``) after removing the
BPE joints (``@@ ``), work in sentence pairs.

The decoder reads ``</s>`` then the target without its last token, as fairseq's
``prev_output_tokens``; the labels are the target (ending in ``</s>``), padding ignored.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Mapping

import numpy as np
import torch
from torch import nn

from chipperf_runtime.training.driver import Config, DataError, DistEnv, split_batch
from chipperf_runtime.training.hftext import bleu
from chipperf_runtime.training.hftext.flagperf_mlm import rank_share
from chipperf_runtime.training.hftext.tasks import IGNORE, Inputs, Scorer, Tensors
from chipperf_runtime.training.textlm import fairseq_data as fs
from chipperf_runtime.training.textlm.shards import require_data_dir, unusable

LAYOUT = ("(layout: dict.<src>.txt, dict.<tgt>.txt and <split>.<src>-<tgt>.<lang>.idx/.bin for "
          "the train split and the eval split, as fairseq-preprocess writes them; see the case README)")


@dataclass(frozen=True)
class Pair:
    source: fs.Sentences
    target: fs.Sentences


@dataclass(frozen=True)
class TranslationData:
    symbols: list[str]               # the target dictionary, specials first
    train: Pair
    eval: Pair


@dataclass(frozen=True)
class PairBatch:
    source: np.ndarray               # [batch, longest source] padded with <pad>
    target: np.ndarray               # [batch, longest target]


def pad_rows(rows: list[np.ndarray]) -> np.ndarray:
    out = np.full((len(rows), max(len(r) for r in rows)), fs.PAD, dtype=np.int64)
    for i, row in enumerate(rows):
        out[i, :len(row)] = row
    return out


def batch_of(pair: Pair, index: np.ndarray) -> PairBatch:
    return PairBatch(pad_rows([pair.source.get(int(i)) for i in index]),
                     pad_rows([pair.target.get(int(i)) for i in index]))


def words(ids: list[int], symbols: list[str]) -> list[str]:
    """The words of a translation: up to its </s>, specials dropped, BPE joints removed."""
    kept = []
    for i in ids:
        if i == fs.EOS:
            break
        if i >= len(fs.SPECIALS) and i < len(symbols):
            kept.append(symbols[i])
    return " ".join(kept).replace("@@ ", "").split()


@dataclass(frozen=True)
class Translation:
    """FlagPerf's transformer task (module doc)."""

    metric: str = "bleu"
    work_unit: str = "samples"
    score_width: int = bleu.WIDTH

    def open(self, data_dir: Path, arch: Any, cfg: Config, prepare: str) -> TranslationData:
        data_dir = require_data_dir(data_dir, f"{prepare} --output DIR")
        problems: list[str] = []
        src, tgt = cfg.source_lang, cfg.target_lang
        dicts = [fs.read_dictionary(data_dir / f"dict.{lang}.txt", problems) for lang in (src, tgt)]
        for d, lang in zip(dicts, (src, tgt)):
            if d is not None and arch.vocab_size is not None and len(d) > arch.vocab_size:
                problems.append(f"dict.{lang}.txt holds {len(d)} symbols (specials included), "
                                f"more than the model's vocab_size {arch.vocab_size}")
        splits = {split: [fs.read_sentences(data_dir / f"{split}.{src}-{tgt}.{lang}", problems)
                          for lang in (src, tgt)] for split in (cfg.train_subset, cfg.eval_subset)}
        for split, (s, t) in splits.items():
            if s is not None and t is not None and len(s) != len(t):
                problems.append(f"{split}: {len(s)} {src} sentences but {len(t)} {tgt} sentences")
        if problems:
            raise unusable("transformer", data_dir, problems, LAYOUT)
        train, held_out = (Pair(*splits[name]) for name in (cfg.train_subset, cfg.eval_subset))  # type: ignore[arg-type]
        longest = max(int(p.lengths().max()) for s in (train, held_out) for p in (s.source, s.target))
        if longest > arch.max_positions:
            raise DataError(f"{data_dir}: a sentence of {longest} tokens exceeds the model's "
                            f"{arch.max_positions} positions")
        return TranslationData(dicts[1], train, held_out)  # type: ignore[arg-type]

    def fit_preset(self, preset: Mapping[str, Any], data: TranslationData) -> Mapping[str, Any]:
        """A preset without vocab_size takes the data's: the joined dictionary's symbols."""
        if preset.get("vocab_size") is not None:
            return preset
        return {**preset, "vocab_size": len(data.symbols)}

    def seq_len(self, data: TranslationData, cfg: Config) -> tuple[int, int]:
        return (int(np.median(data.train.source.lengths())), int(np.median(data.train.target.lengths())))

    def check(self, data: TranslationData, cfg: Config, dist: DistEnv) -> None:
        split_batch(cfg.global_batch_size, dist.world_size)
        if len(data.train.source) < cfg.global_batch_size:
            raise DataError(f"the train split has {len(data.train.source)} pairs, fewer than one "
                            f"global batch of {cfg.global_batch_size}")

    def train(self, data: TranslationData, cfg: Config, dist: DistEnv,
              epoch: int) -> Iterator[PairBatch]:
        order = np.random.default_rng([cfg.seed, epoch]).permutation(len(data.train.source))
        for mine in rank_share(order, cfg.global_batch_size, dist.rank, dist.world_size):
            yield batch_of(data.train, mine)

    def eval(self, data: TranslationData, cfg: Config, dist: DistEnv) -> list[PairBatch]:
        mine = np.arange(dist.rank, self.eval_size(data, cfg), dist.world_size)
        local = cfg.global_batch_size // dist.world_size
        return [batch_of(data.eval, mine[i:i + local]) for i in range(0, len(mine), local)]

    def eval_size(self, data: TranslationData, cfg: Config) -> int:
        pairs = len(data.eval.source)
        return min(pairs, cfg.eval_samples or pairs)

    def tensors(self, batch: PairBatch, device: torch.device) -> Tensors:
        decoder = np.concatenate([np.full((len(batch.target), 1), fs.EOS), batch.target[:, :-1]], axis=1)
        decoder[decoder == fs.EOS] = fs.PAD
        decoder[:, 0] = fs.EOS
        labels = np.where(batch.target == fs.PAD, IGNORE, batch.target)

        def tensor(a: np.ndarray) -> torch.Tensor:
            return torch.from_numpy(np.ascontiguousarray(a, dtype=np.int64)).to(device)
        inputs = {"input_ids": tensor(batch.source),
                  "attention_mask": tensor((batch.source != fs.PAD).astype(np.int64)),
                  "decoder_input_ids": tensor(decoder)}
        return Tensors(inputs, tensor(labels))

    def example(self, seq_len: Any, device: torch.device) -> Inputs:
        source, target = seq_len
        return {"input_ids": torch.full((1, source), fs.UNK, dtype=torch.long, device=device),
                "attention_mask": torch.ones(1, source, dtype=torch.long, device=device),
                "decoder_input_ids": torch.full((1, target), fs.UNK, dtype=torch.long, device=device)}

    def work(self, batch: Tensors) -> int:
        return int(batch.labels.shape[0])

    def train_flops(self, forward: int, seq_len: Any) -> float:
        return 3.0 * forward              # per pair of the median lengths

    def scorer(self, data: TranslationData) -> Scorer:
        def score(net: nn.Module, batch: Tensors) -> tuple[float, ...]:
            extra = batch.labels.shape[1] + 10
            out = net.greedy(batch.inputs["input_ids"], batch.inputs["attention_mask"], extra)  # type: ignore[operator]
            references = batch.labels.masked_fill(batch.labels == IGNORE, fs.PAD).tolist()
            summed = [0.0] * bleu.WIDTH
            for hyp, ref in zip(out.tolist(), references):
                summed = [a + b for a, b in zip(summed, bleu.stats(words(hyp, data.symbols),
                                                                    words(ref, data.symbols)))]
            return tuple(summed)
        return score  # type: ignore[return-value]

    def combine(self, summed: list[float]) -> float:
        return bleu.bleu(summed)

    def initialise(self, net: nn.Module, data: TranslationData, cfg: Config) -> str:
        return "random"
