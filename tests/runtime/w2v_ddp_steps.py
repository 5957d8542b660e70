"""Run by tests/runtime/test_wav2vec2.py under ``torch.distributed.run --nproc_per_node=2``:
three training steps of the CI model (w2v_train.train_step) on two gloo ranks under DDP, and
on rank 0 the same three global batches on one rank, from the same initial weights; writes
the largest parameter difference between the two and how far the parameters moved.

    w2v_ddp_steps.py DATA_DIR OUT_JSON

The quantizer's Gumbel noise is removed (its straight-through hard softmax kept) and the
diversity term's weight is 0: the codebook perplexity is each rank's own batch's, so
with it the two paths differ by design. SGD, not AdamW: Adam's first step moves a parameter
of ~0 gradient by +-lr whatever the sign of its rounding error.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(REPO), str(REPO / "training" / "benchmarks"),
                str(REPO / "training" / "benchmarks" / "wav2vec2" / "pytorch")]

import torch  # noqa: E402
import torch.distributed as tdist  # noqa: E402
import w2v_batches  # noqa: E402
import w2v_train  # noqa: E402
from run_pretraining import masking_of  # noqa: E402
from torch.nn.parallel import DistributedDataParallel  # noqa: E402
from w2v_data import open_subset  # noqa: E402
from w2v_model import PRESETS, w2v_model  # noqa: E402

from chipperf_runtime.training.driver.main import run_case  # noqa: E402

CROP, GLOBAL_BATCH, STEPS = 16000, 16, 3


def hard_softmax(logits: torch.Tensor, tau: float = 1.0, hard: bool = True,
                 dim: int = -1) -> torch.Tensor:
    soft = torch.softmax(logits / tau, dim)
    one_hot = torch.zeros_like(soft).scatter_(dim, soft.argmax(dim, keepdim=True), 1.0)
    return one_hot - soft.detach() + soft


def train(net: torch.nn.Module, subset: Any, rank: int, world: int) -> None:
    model = DistributedDataParallel(net) if world > 1 else net
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    loop = w2v_train.Loop(
        model=model, optimizer=optimizer,
        scheduler=torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 1.0),
        device=torch.device("cpu"), dtype="fp32", grad_clip_norm=25.0,
        gumbel=w2v_train.Gumbel(2.0, 0.5, 0.99), train_epoch=lambda epoch: [], eval_set=[],
        world=world)
    masking = masking_of(PRESETS["tiny"])
    plan = w2v_batches.TrainPlan(subset, CROP, masking, GLOBAL_BATCH, rank, world, 1234, 1)
    for index in range(STEPS):
        w2v_train.train_step(loop, w2v_train.on_device(plan.batch(index), loop.device))


def main(data_dir: Path, out: Path) -> None:
    torch.set_num_threads(1)
    tdist.init_process_group("gloo")
    rank, world = tdist.get_rank(), tdist.get_world_size()
    torch.nn.functional.gumbel_softmax = hard_softmax   # the quantizer calls it by this name
    torch.manual_seed(0)
    net = w2v_model(dict(PRESETS["tiny"], diversity_loss_weight=0.0))
    start = copy.deepcopy(net)
    subset = open_subset(data_dir, "train", CROP, "w2v_ddp_steps.py")
    train(net, subset, rank, world)
    if rank == 0:
        alone = copy.deepcopy(start)
        train(alone, subset, 0, 1)
        pairs = list(zip(net.parameters(), alone.parameters(), start.parameters()))
        result = {"max_diff": max((a - b).abs().max().item() for a, b, _ in pairs),
                  "moved": max((b - s).abs().max().item() for _, b, s in pairs)}
        out.write_text(json.dumps(result))
    tdist.destroy_process_group()


if __name__ == "__main__":
    # Ended as the cases end (see llm_layout_steps.py): no gloo group freed in teardown.
    run_case(lambda: main(Path(sys.argv[1]), Path(sys.argv[2])), quick_exit=True)
