"""Summarisation as FlagPerf's t5_small trains it: an encoder-decoder reads the source, the
decoder is trained on the target with teacher forcing (cross entropy over the target's tokens),
and evaluation generates a summary greedily for every eval source and scores it against the
target text with ROUGE-1 (``hftext.rouge``, in percent). Data: ``hftext.pairs``. Work is counted
in samples (pairs).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Iterator

import numpy as np
import torch
import torch.distributed as tdist
from torch import nn

from chipperf_runtime.training.driver import Config, ConfigError, DataError, DistEnv, split_batch
from chipperf_runtime.training.hftext import pairs, rouge
from chipperf_runtime.training.hftext.tasks import IGNORE, Scorer, Tensors, on_device

# T5's decoder starts from its pad token (id 0) and labels ignored by the loss become pad too
DECODER_START = 0
# the weights T5ForConditionalGeneration ties to ``shared.weight`` (absent from its checkpoints)
TIED = {"encoder.embed_tokens.weight", "decoder.embed_tokens.weight", "lm_head.weight"}


@dataclass(frozen=True)
class Seq2SeqData:
    pairs: pairs.PairsData
    tokenizer: Any                 # tokenizers.Tokenizer: ids -> text for ROUGE


def shift_right(labels: np.ndarray) -> np.ndarray:
    """The decoder's inputs for ``labels``: the start token, then the labels but the last, with
    ignored positions as pad (transformers' T5 ``_shift_right``)."""
    decoder = np.full_like(labels, DECODER_START)
    decoder[:, 1:] = np.where(labels[:, :-1] == IGNORE, DECODER_START, labels[:, :-1])
    return decoder


@dataclass(frozen=True)
class Summarization:
    """Source -> target text on FlagPerf's t5_small layout (``hftext.pairs``)."""

    name: str                        # the case, in error messages
    metric: str = "rouge1"
    work_unit: str = "samples"

    def open(self, data_dir: Any, arch: Any, cfg: Config, prepare: str) -> Seq2SeqData:
        data = pairs.open_pairs(data_dir, arch.vocab_size, prepare, bool(cfg.from_checkpoint),
                                self.name)
        return Seq2SeqData(data, read_tokenizer(data.tokenizer_file))

    def seq_len(self, data: Seq2SeqData, cfg: Config) -> tuple[int, int]:
        return data.pairs.source_len, data.pairs.target_len

    def check(self, data: Seq2SeqData, cfg: Config, dist: DistEnv) -> None:
        split_batch(cfg.global_batch_size, dist.world_size)
        if len(data.pairs.train) < cfg.global_batch_size:
            raise DataError(f"{data.pairs.root}: the train split's {len(data.pairs.train)} pairs "
                            f"are fewer than one global batch ({cfg.global_batch_size})")
        if cfg.get("zero_stage", 0) == 3 and dist.distributed:
            self.check_even_eval(data, cfg, dist)

    def check_even_eval(self, data: Seq2SeqData, cfg: Config, dist: DistEnv) -> None:
        """ZeRO stage 3 gathers the partitioned parameters in every forward, a collective:
        every rank must evaluate as many batches."""
        counts = {len(self.eval(data, cfg, replace(dist, rank=r))) for r in range(dist.world_size)}
        if len(counts) > 1:
            raise ConfigError(
                f"eval_samples = {cfg.eval_samples}: with zero_stage = 3 every rank must evaluate "
                f"as many batches, but the {self.eval_size(data, cfg)} eval pairs give the "
                f"{dist.world_size} ranks {min(counts)} to {max(counts)}: set eval_samples to "
                f"a multiple of global_batch_size ({cfg.global_batch_size})")

    def train(self, data: Seq2SeqData, cfg: Config, dist: DistEnv,
              epoch: int) -> Iterator[pairs.Pairs]:
        """This rank's share of each full global batch of one epoch, in a per-epoch order."""
        train = data.pairs.train
        order = np.random.default_rng([cfg.seed, epoch]).permutation(len(train))
        local = cfg.global_batch_size // dist.world_size
        for start in range(0, len(order) - cfg.global_batch_size + 1, cfg.global_batch_size):
            yield train.take(np.sort(order[start + dist.rank * local:
                                           start + (dist.rank + 1) * local]))

    def eval(self, data: Seq2SeqData, cfg: Config, dist: DistEnv) -> list[pairs.Pairs]:
        """This rank's strided share of the first ``eval_size`` eval pairs, in local batches."""
        mine = np.arange(dist.rank, self.eval_size(data, cfg), dist.world_size)
        local = cfg.global_batch_size // dist.world_size
        return [data.pairs.eval.take(mine[i:i + local]) for i in range(0, len(mine), local)]

    def eval_size(self, data: Seq2SeqData, cfg: Config) -> int:
        return min(len(data.pairs.eval), cfg.eval_samples or len(data.pairs.eval))

    def tensors(self, batch: pairs.Pairs, device: torch.device) -> Tensors:
        arrays = {"input_ids": batch.input_ids, "attention_mask": batch.attention_mask,
                  "decoder_input_ids": shift_right(batch.labels)}
        return on_device(arrays, batch.labels, device)

    def example(self, seq_len: tuple[int, int], device: torch.device) -> dict[str, torch.Tensor]:
        source, target = seq_len
        return {"input_ids": torch.zeros(1, source, dtype=torch.long, device=device),
                "decoder_input_ids": torch.zeros(1, target, dtype=torch.long, device=device)}

    def work(self, batch: Tensors) -> int:
        return int(batch.labels.shape[0])

    def train_flops(self, forward: int, seq_len: tuple[int, int]) -> float:
        return 3.0 * forward              # per pair: source and target at their full widths

    def scorer(self, data: Seq2SeqData) -> Scorer:
        return rouge_scorer(data.tokenizer, data.pairs.target_len)

    def initialise(self, net: nn.Module, data: Seq2SeqData, cfg: Config) -> str:
        if not cfg.from_checkpoint:
            return "random"
        load_checkpoint(net, data.pairs.checkpoint)
        return str(data.pairs.checkpoint)


def read_tokenizer(path: Any) -> Any:
    from tokenizers import Tokenizer

    try:
        return Tokenizer.from_file(str(path))
    except Exception as err:       # tokenizers raises its own Exception subclasses
        raise DataError(f"{path} is not a readable Hugging Face tokenizer ({err})") from err


def rouge_scorer(tokenizer: Any, max_length: int) -> Scorer:
    """(sum of ROUGE-1 in percent, pairs) of greedy summaries of ``max_length`` tokens at most
    (the start token included, as transformers' ``max_length`` counts)."""
    def score(net: nn.Module, batch: Tensors) -> tuple[float, float]:
        generated = net.generate(input_ids=batch.inputs["input_ids"],  # type: ignore[operator]
                                 attention_mask=batch.inputs["attention_mask"],
                                 max_length=max_length, num_beams=1, do_sample=False,
                                 synced_gpus=synced_generation(net))
        labels = batch.labels.masked_fill(batch.labels == IGNORE, DECODER_START)
        predictions = tokenizer.decode_batch(generated.tolist(), skip_special_tokens=True)
        references = tokenizer.decode_batch(labels.tolist(), skip_special_tokens=True)
        total, count = rouge.rouge1_sum(zip(predictions, references))
        return total, float(count)
    return score


def synced_generation(net: nn.Module) -> bool:
    """Whether every rank must generate to the full length (transformers' ``synced_gpus``):
    under DeepSpeed ZeRO stage 3 (its parameters carry ``ds_id``) each forward gathers the
    parameters partitioned over the ranks, so a rank whose summaries all ended early would
    leave the others waiting in the gather."""
    if not (tdist.is_available() and tdist.is_initialized() and tdist.get_world_size() > 1):
        return False
    return any(hasattr(p, "ds_id") for p in net.parameters())


def load_checkpoint(net: nn.Module, path: Any) -> None:
    """``path``'s weights into ``net``; a file of another shape is a DataError naming it."""
    from safetensors.torch import load_file

    state = load_file(str(path))
    try:
        missing, unexpected = net.load_state_dict(state, strict=False)
    except RuntimeError as err:
        raise DataError(f"{path} does not fit the model_size's network: {err}") from err
    untied = sorted(set(missing) - tied_names(net))
    if untied or unexpected:
        raise DataError(f"{path} does not fit the model_size's network: missing "
                        f"{untied or 'none'}, unexpected {sorted(unexpected) or 'none'}")



def tied_names(net: nn.Module) -> set[str]:
    """The state-dict names that repeat another parameter (tied weights, e.g. T5's
    ``lm_head.weight`` or BERT's MLM decoder): a checkpoint may leave them out
    (``save_pretrained`` does)."""
    kept = {name for name, _ in net.named_parameters()} | {name for name, _ in net.named_buffers()}
    return set(net.state_dict()) - kept
