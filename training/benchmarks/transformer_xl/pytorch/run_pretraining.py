"""transformer_xl / PyTorch: Transformer-XL (transformers 4.34's ``TransfoXLLMHeadModel``,
written out in chipperf_runtime/models/transfo_xl.py: transformers has removed it) trained on
FlagPerf's WikiText-103 to its test perplexity target, DDP under torchrun: FlagPerf's
transformer_xl. The segments of each stream are read in order and each carries the memory the
previous one left (txl_data.py); the loop, DDP, Adam(W) with its schedule and FINISHED are
``lossloop.case``'s. See README.md."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Mapping, Sequence

from torch import nn
from txl_data import WikiText, open_wikitext

from chipperf_runtime.models.transfo_xl import SegmentRecurrence, TransfoXLLMHeadModel, forward_flops
from chipperf_runtime.training.driver import run_case
from chipperf_runtime.training.driver.torchdist import all_reduce_sum
from chipperf_runtime.training.lossloop.case import LossCase, main
from chipperf_runtime.training.lossloop.data import CaseData
from chipperf_runtime.training.lossloop.train import Batch, Loop, autocast

CASE_DIR = Path(__file__).resolve().parent
PRESETS: dict[str, dict[str, Any]] = {
    # FlagPerf's model (its model/__init__.py create_model): TransfoXLConfig(n_layer=16,
    # d_model=410, d_embed=410, n_head=10, d_head=41, d_inner=2100, dropout=0.1,
    # dropatt=0.0, mem_len=150), the rest (vocabulary, cutoffs, div_val 4, clamp_len,
    # same_length) transfo-xl-wt103's, from the data's model/config.json
    "base": {"n_layer": 16, "d_model": 410, "d_embed": 410, "n_head": 10, "d_head": 41,
             "d_inner": 2100, "dropout": 0.1, "dropatt": 0.0, "mem_len": 150},
    # transfo-xl-wt103 itself: model/config.json as it is (18 x 1024, mem_len 1600)
    "wt103": {},
    # CI: 2 x 64, 4 heads of 16, 32 tokens of memory, prepare_data.py's 64-word vocabulary
    "tiny": {"n_layer": 2, "d_model": 64, "d_embed": 64, "n_head": 4, "d_head": 16,
             "d_inner": 128, "dropout": 0.0, "dropatt": 0.0, "mem_len": 32},
}


def build(preset: Mapping[str, Any], data: CaseData) -> nn.Module:
    assert isinstance(data, WikiText)
    return SegmentRecurrence(TransfoXLLMHeadModel(data.model))


def flops(preset: Mapping[str, Any], data: CaseData) -> float:
    assert isinstance(data, WikiText)
    return forward_flops(data.model, data.tgt_len, data.shares)


def perplexity(net: nn.Module, batches: Sequence[Batch], loop: Loop) -> float:
    """exp(mean NLL per predicted token) over every rank's eval streams, each read from its
    start with the memory carried."""
    assert isinstance(net, SegmentRecurrence)
    total, count = 0.0, 0
    for (streams,) in batches:
        with autocast(loop):
            nll, predicted = net.stream_nll(streams)
        total, count = total + float(nll.item()), count + predicted
    summed, seen = all_reduce_sum([total, float(count)], loop.device)
    return math.exp(summed / seen) if seen else float("nan")


CASE = LossCase(presets=PRESETS, build=build, open_data=open_wikitext, forward_flops=flops,
                metric="perplexity", higher_is_better=False, evaluate=perplexity,
                find_unused=True, shuffle=False)

if __name__ == "__main__":
    run_case(lambda: main("transformer_xl", CASE_DIR, CASE), quick_exit=True)
