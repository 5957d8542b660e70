"""bert / PyTorch training case: masked-LM pretraining to an MLM-accuracy target, DDP.

    torchrun --nproc_per_node=N run_pretraining.py --data_dir D \
        --extern_config_dir DIR --extern_config_file config_<chip>x<nnodes>x<nproc>.py \
        --output_dir OUT [--set name=value ...]

The device and its collective backend are the vendor's (chipperf.device). See README.md for
the dataset layout, the FLOPs formula and the measured CI runs.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import torch
import torch.distributed as tdist
from bert_model import BertForMaskedLM, count_parameters
from bert_train import Loop
from driver import Config, DistEnv, Driver, run_case, split_batch
from driver.dist import rank_threads
from driver.torchdist import all_reduce_sum, init_distributed
from textlm import mlm
from textlm.bert import BertConfig, model_config, train_flops_per_sequence
from textlm.loop import Goal, Schedule, linear_warmup_decay, run
from torch.nn.parallel import DistributedDataParallel

from chipperf.device.torch import TorchDevice

# bert_* are this folder's modules (python puts the script's folder on sys.path); textlm is
# the text cases' shared package, beside driver
CASE_DIR = Path(__file__).resolve().parent
PREPARE = "training/benchmarks/bert/pytorch/prepare_data.py"
DTYPES = ("fp32", "bf16")


def configure_threads(dist: DistEnv) -> int:
    """OMP_NUM_THREADS when set (torchrun sets 1 for nproc > 1), else the usable cores
    shared among this node's ranks."""
    threads = rank_threads(dist)
    torch.set_num_threads(threads)
    return threads


def optimizer_for(model: torch.nn.Module, cfg: Config, fused: bool) -> torch.optim.Optimizer:
    """AdamW; biases and LayerNorm weights (the 1-D parameters) get no weight decay."""
    params = list(model.parameters())
    groups = [{"params": [p for p in params if p.ndim > 1], "weight_decay": cfg.weight_decay},
              {"params": [p for p in params if p.ndim <= 1], "weight_decay": 0.0}]
    return torch.optim.AdamW(groups, lr=cfg.learning_rate, betas=(cfg.adam_beta1, cfg.adam_beta2),
                             eps=cfg.adam_eps, fused=fused or None)


def build_loop(cfg: Config, dist: DistEnv, rank_device: TorchDevice, arch: BertConfig,
               data: mlm.MLMDataset) -> tuple[Loop, BertForMaskedLM]:
    device = rank_device.device
    torch.manual_seed(cfg.seed)
    net = BertForMaskedLM(arch).to(device)
    model = DistributedDataParallel(net) if dist.distributed else net
    optimizer = optimizer_for(model, cfg, fused=rank_device.is_accelerator)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, linear_warmup_decay(cfg.warmup_steps, cfg.max_steps))
    local_batch = cfg.global_batch_size // dist.world_size
    loop = Loop(
        model=model, optimizer=optimizer, scheduler=scheduler, device=device, dtype=cfg.dtype,
        grad_clip_norm=float(cfg.grad_clip_norm),
        train_epoch=lambda epoch: mlm.train_batches(data, cfg.global_batch_size, dist.rank,
                                                    dist.world_size, cfg.seed, epoch),
        eval_set=mlm.eval_batches(data, local_batch, dist.rank, dist.world_size, cfg.mask_seed,
                                  cfg.eval_samples))
    return loop, net


def main(argv: list[str] | None = None) -> None:
    driver = Driver.start("bert", CASE_DIR, argv)
    cfg, dist = driver.config, driver.dist
    arch = model_config(cfg, DTYPES)
    data = mlm.open_dataset(driver.args.data_dir, arch.vocab_size,
                            arch.max_position_embeddings, PREPARE)
    split_batch(cfg.global_batch_size, dist.world_size)
    mlm.require_one_batch(data, cfg.global_batch_size)
    threads = configure_threads(dist)
    device = init_distributed(dist)
    driver.set_sync(device.synchronize)
    loop, net = build_loop(cfg, dist, device, arch, data)
    goal = Goal("mlm_accuracy", float(cfg.target_mlm_accuracy[cfg.model_size]))
    driver.init_end(**device.describe(), threads=threads, architecture=dataclasses.asdict(arch),
                    parameters=count_parameters(net), seq_len=data.seq_len,
                    vocab_tokens=len(data.vocab), train_rows=len(data.train),
                    eval_rows=mlm.eval_rows(data, cfg.eval_samples))
    progress = run(driver, loop, Schedule(goal, cfg.max_steps, cfg.eval_every_steps))
    work_done = int(all_reduce_sum([float(progress.work)], device.device)[0])
    driver.finish(work_done=work_done, work_unit="samples", metric=goal.metric(progress.value),
                  flops_per_unit=train_flops_per_sequence(arch, data.seq_len), dtype=cfg.dtype,
                  peak_memory_bytes=device.max_memory_allocated())
    if tdist.is_initialized():
        tdist.destroy_process_group()


if __name__ == "__main__":
    run_case(main, quick_exit=True)
