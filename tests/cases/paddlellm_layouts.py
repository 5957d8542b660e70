"""Run under paddle.distributed.launch with 2 ranks: the same tiny llama trained 2 optimizer
steps on the same global batch of 16 by one rank (rank 0 alone), TP 2, PP 2 and ZeRO stage 2
over both ranks, in one launch; rank 0 prints each layout's validation loss as JSON.

    python -m paddle.distributed.launch --nproc_per_node 2 paddlellm_layouts.py DATA_DIR
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from types import SimpleNamespace

import paddle.distributed as dist

from chipperf_runtime.training.paddlellm import arch
from chipperf_runtime.training.paddlellm.case import build_loop
from chipperf_runtime.training.paddlellm.data import open_dataset
from chipperf_runtime.training.paddlellm.layout import Layout

SHAPE = arch.shape("llama", "tiny")
CONFIG = dict(seed=42, recompute=False, learning_rate=1e-2, min_learning_rate=1e-3,
              warmup_steps=1, decay_steps=0, max_steps=2, lr_scheduler_type="cosine",
              adam_beta1=0.9, adam_beta2=0.95, adam_epsilon=1e-8, weight_decay=0.01,
              gradient_accumulation_steps=1, eval_samples=16, max_grad_norm=1.0,
              fp16=False, bf16=False, scale_loss=1.0)


def eval_loss(layout: Layout, rank: int, data: object) -> float:
    micro = 16 // layout.data
    loop = build_loop(SimpleNamespace(**CONFIG, per_device_train_batch_size=micro), layout,
                      rank, "llama", SHAPE, data)
    steps = 0
    for tokens in loop.batches(1):
        steps += loop.step(tokens)[1]
        if steps == 2:
            break
    return loop.evaluate()


def main(data_dir: str) -> None:
    dist.init_parallel_env()
    rank = dist.get_rank()
    data = open_dataset(Path(data_dir), 64, SHAPE["vocab_size"], "95,5,0", "prepare_data.py")
    losses = {"one_rank": eval_loss(Layout(1, 1, 1, 1, 1), 0, data)} if rank == 0 else {}
    for name, layout in (("tp2", Layout(2, 1, 1, 1, 2)), ("pp2", Layout(1, 2, 1, 1, 2)),
                         ("zero2", Layout(1, 1, 2, 2, 2))):
        losses[name] = eval_loss(layout, rank, data)
    if rank == 0:
        print("LAYOUTS " + json.dumps(losses), flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
