"""The causal-LM cases' dataset (llama2_7b, gpt2, the llmtrain cases): token streams in .npy
shards or in FlagPerf's Megatron indexed dataset, cut into fixed windows.

Layout "llama2-token-shards-v1" (llama2_7b/deepspeed's ``prepare_data.py`` writes it; any
corpus tokenised with the Llama 2 tokenizer can be converted to it, e.g.
``np.save(f, np.asarray(ids, np.uint16))``)::

    <data_dir>/train/*.npy    1-D integer arrays (uint16 or int32): documents tokenised with
                              the Llama tokenizer, concatenated, each as BOS(1) ... EOS(2)
    <data_dir>/eval/*.npy     same, held-out text
    <data_dir>/tokenizer.*    the tokenizer the ids come from (not read by the case)

Or FlagPerf's layout for its Megatron/FlagScale LLM cases (``textlm.megatron``)::

    <data_dir>/<prefix>.idx, <prefix>.bin   Megatron-LM's mmap indexed dataset (e.g. FlagPerf's
                                            llama3_8B ``wudao_llama3bpe_content_document``);
                                            every pair in the folder is a train shard
    <data_dir>/eval/*.npy                   optional held-out token shards; without them the
                                            last ``1 / EVAL_SHARE_DENOMINATOR`` of the train
                                            windows (at least one) is held out instead

Or FlagPerf's layout for its DeepSpeed LLM cases (chatglm3_6b, baichuan2_13b:
``flagperf_npy``)::

    <data_dir>/<file>.npy   one 1-D token array (e.g. openwebtext_chatglm3_100M.npy); the
                            last 1 / EVAL_SHARE_DENOMINATOR of its windows is held out

A sample is ``seq_len + 1`` consecutive tokens of one shard (inputs and their next-token
targets); shards are cut into non-overlapping samples at multiples of ``seq_len``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Optional

import numpy as np

from chipperf_runtime.training.driver import ConfigError, DataError, split_batch
from chipperf_runtime.training.textlm import megatron
from chipperf_runtime.training.textlm.shards import (
    ShardKind,
    Windows,
    check_ids,
    read_shard,
    read_shards,
    require_data_dir,
    unusable,
)

LAYOUT = ("(layout: train/*.npy, eval/*.npy 1-D token arrays, or Megatron <prefix>.idx + "
          "<prefix>.bin pairs with an optional eval/*.npy; see the README)")
EVAL_SHARE_DENOMINATOR = 20    # Megatron pairs without eval/: 5 % of the windows held out
HeldOut = Callable[[Path, list[str]], Optional[np.ndarray]]
TOKEN_SHARDS = ShardKind(ndim=1, allow_empty=True, description="a 1-D integer token array")


@dataclass(frozen=True)
class TokenDataset:
    train: Windows
    eval: Windows
    vocab_size: int


def open_dataset(data_dir: Path, seq_len: int, vocab_size: int, prepare: str,
                 name: str = "llama2") -> TokenDataset:
    """Open and check ``data_dir``; raises DataError listing every problem found.
    ``prepare``: the script that makes one (named when the folder is missing); ``name``: the
    case's dataset in the message."""
    data_dir = require_data_dir(data_dir, f"{prepare} --output DIR")
    if megatron.prefixes(data_dir):
        return open_megatron(data_dir, seq_len, vocab_size, f"{name} (Megatron layout)")
    problems: list[str] = []
    splits = {name: _read_split(data_dir / name, seq_len, problems) for name in ("train", "eval")}
    train, held_out = splits["train"], splits["eval"]
    if problems or train is None or held_out is None:
        raise unusable(name, data_dir, problems, LAYOUT)
    return TokenDataset(train, held_out, vocab_size)


def open_megatron(data_dir: Path, seq_len: int, vocab_size: int, name: str,
                  held_out: HeldOut | None = None, layout: str = LAYOUT) -> TokenDataset:
    """Train windows from every Megatron pair in ``data_dir``; eval windows from ``held_out``
    (data_dir, problems) -> one token stream, by default ``eval/*.npy`` when the folder has
    it, else the train windows' tail (module doc). A DataError listing every problem otherwise."""
    problems: list[str] = []
    streams = [megatron.token_stream(p, problems) for p in megatron.prefixes(data_dir)]
    train = Windows.of([s for s in streams if s is not None], seq_len)
    evaluation = (held_out or eval_shards)(Path(data_dir), problems)
    if not problems and len(train) == 0:
        problems.append(f"no Megatron dataset in {data_dir} holds seq_len + 1 = {seq_len + 1} tokens")
    if problems:
        raise unusable(name, data_dir, problems, layout)
    if evaluation is None:
        return _split_tail(train, vocab_size)
    held = Windows.of([evaluation], seq_len)
    if len(held) == 0:
        raise unusable(name, data_dir, [f"the eval split has no seq_len + 1 = {seq_len + 1} "
                                        "tokens"], layout)
    return TokenDataset(train, held, vocab_size)


def flagperf_npy(filename: str) -> Callable[[Path, int, int, str], TokenDataset]:
    """The opener of FlagPerf's DeepSpeed LLM cases' data (chatglm3_6b, baichuan2_13b): one
    1-D token array ``<data_dir>/<filename>`` (their ``preprocess/data_process.py`` output,
    e.g. ``openwebtext_chatglm3_100M.npy``), cut into windows, the last
    1 / EVAL_SHARE_DENOMINATOR of them held out; ``open_dataset``'s layouts when the folder
    has no such file."""
    def open_npy(data_dir: Path, seq_len: int, vocab_size: int, prepare: str) -> TokenDataset:
        path = Path(data_dir) / filename
        if not path.is_file():
            return open_dataset(data_dir, seq_len, vocab_size, prepare)
        problems: list[str] = []
        stream = read_shard(path, TOKEN_SHARDS, problems)
        windows = Windows.of([stream] if stream is not None else [], seq_len)
        if stream is not None and len(windows) < 2:
            problems.append(f"{path} holds {len(stream)} tokens: fewer than two windows of "
                            f"seq_len + 1 = {seq_len + 1} (one to train, one to evaluate)")
        if problems:
            raise unusable(filename, Path(data_dir), problems, f"(layout: {filename}, a 1-D "
                           "token array, or " + LAYOUT[len("(layout: "):])
        return _split_tail(windows, vocab_size)
    return open_npy


def eval_shards(data_dir: Path, problems: list[str]) -> np.ndarray | None:
    """``eval/*.npy`` as one stream; None (no problem) when there is no eval folder."""
    if not (data_dir / "eval").is_dir():
        return None
    shards = read_shards(data_dir / "eval", TOKEN_SHARDS, problems)
    return np.concatenate(shards) if shards else None


def _split_tail(windows: Windows, vocab_size: int) -> TokenDataset:
    """The last 1/EVAL_SHARE_DENOMINATOR of the windows (at least one) as the eval split."""
    held = max(1, len(windows) // EVAL_SHARE_DENOMINATOR)
    cut = len(windows) - held
    shard, local = windows.numbering.locate(np.array([cut]))
    s, start = int(shard[0]), int(local[0]) * windows.seq_len
    train = [*windows.shards[:s], windows.shards[s][:start + 1]]
    evaluation = [windows.shards[s][start:], *windows.shards[s + 1:]]
    return TokenDataset(Windows.of(train, windows.seq_len), Windows.of(evaluation, windows.seq_len),
                        vocab_size)


def _read_split(folder: Path, seq_len: int, problems: list[str]) -> Windows | None:
    shards = read_shards(folder, TOKEN_SHARDS, problems)
    windows = Windows.of(shards, seq_len)
    if shards and len(windows) == 0:
        problems.append(f"{folder}: no shard holds seq_len + 1 = {seq_len + 1} tokens")
    return windows if shards and len(windows) else None


def check_batching(data: TokenDataset, global_batch: int, micro_batch: int,
                   world_size: int) -> None:
    """Raises ConfigError/DataError unless the batch splits into whole micro-batches per rank
    and the splits hold a global batch (train) and a sample per rank (eval)."""
    local = split_batch(global_batch, world_size)
    if local % micro_batch:
        raise ConfigError(f"global_batch_size {global_batch} gives {local} samples per rank, "
                          f"not a multiple of micro_batch_size {micro_batch}")
    if len(data.train) < global_batch:
        raise DataError(f"the train split has {len(data.train)} samples of seq_len+1 tokens, "
                        f"fewer than one global batch of {global_batch}")
    if len(data.eval) < world_size:
        raise DataError(f"the eval split has {len(data.eval)} samples of seq_len+1 tokens, "
                        f"fewer than the {world_size} ranks")


def train_micro_batches(data: TokenDataset, global_batch: int, micro_batch: int, rank: int,
                        world_size: int, seed: int, epoch: int) -> Iterator[np.ndarray]:
    """This rank's micro-batches of one epoch, global batch by global batch (tail dropped)."""
    for indices in micro_batch_indices(len(data.train), global_batch, micro_batch, rank,
                                       world_size, seed, epoch):
        yield _checked(data.train.take(indices), data, "train")


def micro_batch_indices(n: int, global_batch: int, micro_batch: int, rank: int,
                        world_size: int, seed: int, epoch: int) -> Iterator[np.ndarray]:
    """The sample indices of this rank's micro-batches of one epoch over ``n`` samples: a
    seeded permutation per epoch, global batch by global batch (tail dropped), each rank its
    contiguous share of every global batch."""
    order = np.random.default_rng([seed, epoch]).permutation(n)
    local = global_batch // world_size
    for start in range(0, len(order) - global_batch + 1, global_batch):
        mine = order[start + rank * local: start + (rank + 1) * local]
        for i in range(0, local, micro_batch):
            yield mine[i:i + micro_batch]


def eval_batches(data: TokenDataset, batch: int, rank: int, world_size: int,
                 max_samples: int) -> list[np.ndarray]:
    """This rank's strided share of the first ``max_samples`` eval samples (0: all), cut to
    a multiple of ``world_size * batch`` so every rank runs the same number of forwards (ZeRO-3
    gathers parameters collectively)."""
    return [_checked(data.eval.take(indices), data, "eval")
            for indices in eval_indices(len(data.eval), batch, rank, world_size, max_samples)]


def eval_indices(n: int, batch: int, rank: int, world_size: int,
                 max_samples: int) -> list[np.ndarray]:
    """The sample indices of ``eval_batches``'s batches over ``n`` eval samples."""
    n = min(n, max_samples) if max_samples > 0 else n
    n = max(world_size, n // (world_size * batch) * world_size * batch)
    mine = np.arange(rank, n, world_size)
    return [mine[i:i + batch] for i in range(0, len(mine), batch)]


def _checked(tokens: np.ndarray, data: TokenDataset, split: str) -> np.ndarray:
    return check_ids(tokens, data.vocab_size, split,
                     f"the model's vocab_size {data.vocab_size}: the shards were made with "
                     "another tokenizer, or choose a model_size whose vocabulary fits")
