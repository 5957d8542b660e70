"""bert / Paddle training case: masked-LM pretraining to an MLM-accuracy target, data parallel.

    python3 -m paddle.distributed.launch --nproc_per_node N -- run_pretraining.py --data_dir D \
        --extern_config_dir DIR --extern_config_file config_<chip>x<nnodes>x<nproc>.py \
        --output_dir OUT [--set name=value ...]

gloo on CPU, NCCL on GPUs (paddle.DataParallel). See README.md for the dataset layout, the
FLOPs formula and the measured CI runs.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from chipperf_runtime.device import DeviceError, usable_cores
from chipperf_runtime.training.driver import (
    Attention,
    Config,
    DistEnv,
    Driver,
    LaunchError,
    run_case,
    split_batch,
)
from chipperf_runtime.training.driver.dist import use_interface_towards_master
from chipperf_runtime.training.driver.errors import DeviceUnavailable
from chipperf_runtime.training.textlm.bert import (
    BertConfig,
    attention_train_flops_per_sequence,
    model_config,
    train_flops_per_sequence,
)
from chipperf_runtime.training.textlm.loop import Goal, Schedule, linear_warmup_decay, run

if TYPE_CHECKING:
    from chipperf_runtime.device.paddle import PaddleDevice

# model and train are this folder's modules, textlm.mlm the bert cases' shared data reader;
# they import paddle or numpy, so they are imported only after OMP_NUM_THREADS is set
# (textlm.bert and textlm.loop import neither).
CASE_DIR = Path(__file__).resolve().parent
PREPARE = "training/benchmarks/bert/paddle/prepare_data.py"
DTYPES = ("fp32", "bf16", "fp16")

# The launch contract's names <- what paddle.distributed.launch sets for each rank.
PADDLE_ENV = {"RANK": "PADDLE_TRAINER_ID", "LOCAL_RANK": "PADDLE_LOCAL_RANK",
              "WORLD_SIZE": "PADDLE_TRAINERS_NUM", "LOCAL_WORLD_SIZE": "PADDLE_LOCAL_SIZE"}


def contract_environ(environ: Mapping[str, str]) -> dict[str, str]:
    """``environ`` with RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE taken from Paddle's
    launcher variables where it set them (it does not set the contract's names)."""
    env = dict(environ)
    env.update({ours: env[theirs] for ours, theirs in PADDLE_ENV.items() if env.get(theirs)})
    return env


def configure_threads(cfg: Config, dist: DistEnv) -> int:
    """OpenMP threads per rank: cpu_threads, else the node's usable cores shared among its
    ranks. Sets OMP_NUM_THREADS before paddle is imported (an inherited value is overridden:
    paddle.distributed.launch imports paddle, which sets it to 1 for every rank)."""
    threads = cfg.cpu_threads or max(1, usable_cores() // max(1, dist.nproc_per_node))
    os.environ["OMP_NUM_THREADS"] = str(threads)
    return threads


def init_distributed(dist: DistEnv) -> PaddleDevice:
    """The rank's device as the vendor named it (``gpu:N``, ``xpu:N``, a custom device such as
    ``npu:N``, or ``cpu``), set for Paddle; joins the collective group (the device's own, gloo
    on cpu) when there is more than one rank. ``DeviceUnavailable`` when it cannot be seen."""
    import paddle.distributed as pdist

    from chipperf_runtime.device.paddle import open_paddle_device  # imports paddle: after the threads

    try:
        device = open_paddle_device(dist.local_rank)
    except DeviceError as exc:
        raise DeviceUnavailable(str(exc)) from exc
    if not dist.distributed:
        return device
    if not os.environ.get("PADDLE_TRAINER_ENDPOINTS"):
        raise LaunchError(f"WORLD_SIZE={dist.world_size} but PADDLE_TRAINER_ENDPOINTS is unset: "
                          "start the ranks with python3 -m paddle.distributed.launch "
                          "(chipperf's paddle launcher does)")
    if not device.is_accelerator:
        use_interface_towards_master(dist)
    pdist.init_parallel_env()
    return device


def build_loop(cfg: Config, dist: DistEnv, arch: BertConfig, dataset: Any) -> tuple[Any, Any]:
    """(train.Loop, the bare model)."""
    import paddle
    import train
    from model import BertForMaskedLM

    from chipperf_runtime.training.textlm import mlm

    paddle.seed(cfg.seed)
    net = BertForMaskedLM(arch)
    model = paddle.DataParallel(net) if dist.distributed else net
    scheduler = paddle.optimizer.lr.LambdaDecay(
        cfg.learning_rate, linear_warmup_decay(cfg.warmup_steps, cfg.max_steps))
    decay = {p.name for p in net.parameters() if len(p.shape) > 1}
    optimizer = paddle.optimizer.AdamW(
        learning_rate=scheduler, beta1=cfg.adam_beta1, beta2=cfg.adam_beta2,
        epsilon=cfg.adam_eps, parameters=net.parameters(), weight_decay=cfg.weight_decay,
        apply_decay_param_fun=lambda name: name in decay,
        grad_clip=paddle.nn.ClipGradByGlobalNorm(cfg.grad_clip_norm)
        if cfg.grad_clip_norm > 0 else None)
    local_batch = cfg.global_batch_size // dist.world_size
    loop = train.Loop(
        model=model, optimizer=optimizer, scheduler=scheduler, dtype=cfg.dtype,
        train_epoch=lambda epoch: mlm.train_batches(dataset, cfg.global_batch_size, dist.rank,
                                                    dist.world_size, cfg.seed, epoch),
        eval_set=mlm.eval_batches(dataset, local_batch, dist.rank, dist.world_size,
                                  cfg.mask_seed, cfg.eval_samples),
        scaler=paddle.amp.GradScaler() if cfg.dtype == "fp16" else None)
    return loop, net


def setup(driver: Driver) -> tuple[BertConfig, Any, Any, PaddleDevice, int]:
    """Everything before TRAIN_START; raises a CaseError on any bad input."""
    cfg, dist = driver.config, driver.dist
    threads = configure_threads(cfg, dist)  # before paddle (and numpy) are imported
    split_batch(cfg.global_batch_size, dist.world_size)
    from chipperf_runtime.training.textlm import mlm

    arch = model_config(cfg, DTYPES)
    dataset = mlm.open_dataset(driver.args.data_dir, arch.vocab_size,
                               arch.max_position_embeddings, PREPARE)
    mlm.require_one_batch(dataset, cfg.global_batch_size)
    device = init_distributed(dist)
    driver.set_sync(device.synchronize)
    loop, net = build_loop(cfg, dist, arch, dataset)
    return arch, dataset, loop, device, threads


def main(argv: list[str] | None = None) -> None:
    driver = Driver.start("bert", CASE_DIR, argv, environ=contract_environ(os.environ))
    cfg = driver.config
    arch, dataset, loop, device, threads = setup(driver)
    import train
    from model import count_parameters

    from chipperf_runtime.training.textlm.mlm import eval_rows

    goal = Goal("mlm_accuracy", float(cfg.target_mlm_accuracy[cfg.model_size]))
    driver.init_end(**device.describe(), threads=threads, model_size=cfg.model_size,
                    architecture=vars(arch), parameters=count_parameters(loop.model),
                    seq_len=dataset.seq_len, vocab_tokens=len(dataset.vocab),
                    train_rows=len(dataset.train), eval_rows=eval_rows(dataset, cfg.eval_samples))
    progress = run(driver, loop, Schedule(goal, cfg.max_steps, cfg.eval_every_steps, "samples"))
    work_done = int(train.all_reduce_sum([float(progress.work)])[0])
    driver.finish(work_done=work_done, work_unit="samples", metric=goal.metric(progress.value),
                  flops_per_unit=train_flops_per_sequence(arch, dataset.seq_len),
                  dtype=cfg.dtype, peak_memory_bytes=device.max_memory_allocated(),
                  attention=Attention(attention_train_flops_per_sequence(arch, dataset.seq_len),
                                      causal=False))


if __name__ == "__main__":
    run_case(main)
