"""The entry every Paddle LLM case folder runs (``run_pretraining.py`` calls ``main``):
Paddle's rank variables, threads, device and groups, the layout from FlagPerf's degree
knobs, the model, the loop, FINISHED. Paddle is imported only after OMP_NUM_THREADS is set."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from chipperf_runtime.device import DeviceError, usable_cores
from chipperf_runtime.training.driver import Attention, ConfigError, DistEnv, Driver, LaunchError
from chipperf_runtime.training.driver.dist import use_interface_towards_master
from chipperf_runtime.training.driver.errors import DeviceUnavailable
from chipperf_runtime.training.paddlellm import arch
from chipperf_runtime.training.paddlellm.layout import Layout, layout_from_config
from chipperf_runtime.training.textlm.loop import Goal, Schedule, run, warmup_cosine

if TYPE_CHECKING:
    from chipperf_runtime.device.paddle import PaddleDevice
    from chipperf_runtime.training.paddlellm.train import Loop

# The launch contract's names <- what paddle.distributed.launch sets for each rank.
PADDLE_ENV = {"RANK": "PADDLE_TRAINER_ID", "LOCAL_RANK": "PADDLE_LOCAL_RANK",
              "WORLD_SIZE": "PADDLE_TRAINERS_NUM", "LOCAL_WORLD_SIZE": "PADDLE_LOCAL_SIZE"}
PREPARE = "training/benchmarks/{model}/paddle/prepare_data.py"


def contract_environ(environ: Mapping[str, str]) -> dict[str, str]:
    env = dict(environ)
    env.update({ours: env[theirs] for ours, theirs in PADDLE_ENV.items() if env.get(theirs)})
    return env


def configure_threads(cfg: Any, dist: DistEnv) -> int:
    """OMP threads per rank (cpu_threads, else the node's cores over its ranks), set before
    paddle is imported (the launcher's inherited value of 1 is overridden)."""
    threads = cfg.cpu_threads or max(1, usable_cores() // max(1, dist.nproc_per_node))
    os.environ["OMP_NUM_THREADS"] = str(threads)
    return threads


def dtype_of(cfg: Any) -> str:
    """FlagPerf's fp16 / bf16 switches -> "fp16", "bf16" or "fp32"."""
    if cfg.fp16 and cfg.bf16:
        raise ConfigError("fp16 and bf16 are both True: set at most one")
    return "fp16" if cfg.fp16 else "bf16" if cfg.bf16 else "fp32"


def init_distributed(dist: DistEnv) -> PaddleDevice:
    import paddle.distributed as pdist

    from chipperf_runtime.device.paddle import open_paddle_device

    try:
        device = open_paddle_device(dist.local_rank)
    except DeviceError as exc:
        raise DeviceUnavailable(str(exc)) from exc
    if dist.distributed:
        if not os.environ.get("PADDLE_TRAINER_ENDPOINTS"):
            raise LaunchError(f"WORLD_SIZE={dist.world_size} but PADDLE_TRAINER_ENDPOINTS is "
                              "unset: start the ranks with python3 -m paddle.distributed.launch "
                              "(chipperf's paddle launcher does)")
        if not device.is_accelerator:
            use_interface_towards_master(dist)
        pdist.init_parallel_env()
    return device


def lr_factor(cfg: Any) -> Any:
    """PaddleNLP's schedules: linear warm-up over warmup_steps, then cosine or linear decay
    to min_learning_rate at decay_steps (0: max_steps), or constant."""
    total = cfg.decay_steps or cfg.max_steps
    floor = cfg.min_learning_rate / cfg.learning_rate if cfg.learning_rate else 0.0
    kind = cfg.lr_scheduler_type
    if kind == "cosine":
        return warmup_cosine(cfg.warmup_steps, total, floor)
    if kind == "linear":
        cosine = warmup_cosine(cfg.warmup_steps, total, floor)
        return lambda step: cosine(step) if step < cfg.warmup_steps else max(
            floor, 1 - (1 - floor) * (step - cfg.warmup_steps) / max(1, total - cfg.warmup_steps))
    if kind == "constant":
        return lambda step: min(1.0, (step + 1) / cfg.warmup_steps) if cfg.warmup_steps else 1.0
    raise ConfigError(f"lr_scheduler_type = {kind!r}: use 'cosine', 'linear' or 'constant'")


def build_loop(cfg: Any, layout: Layout, rank: int, family: str, shape: Mapping[str, Any],
               dataset: Any) -> Loop:
    import paddle

    from chipperf_runtime.training.paddlellm.model import Stage
    from chipperf_runtime.training.paddlellm.parallel import DataSync, make_groups
    from chipperf_runtime.training.paddlellm.train import Loop
    from chipperf_runtime.training.textlm import tokens

    groups = make_groups(layout, rank)
    paddle.seed(cfg.seed)
    stage = Stage(family, shape, groups, cfg.seed)
    stage.recompute = bool(cfg.recompute)
    params = list(stage.parameters())
    sync = DataSync.of(groups, params)
    scheduler = paddle.optimizer.lr.LambdaDecay(cfg.learning_rate, lr_factor(cfg))
    owned = sync.owned()
    optimizer = paddle.optimizer.AdamW(
        learning_rate=scheduler, beta1=cfg.adam_beta1, beta2=cfg.adam_beta2,
        epsilon=cfg.adam_epsilon, parameters=owned, weight_decay=cfg.weight_decay,
        apply_decay_param_fun=lambda name: name in {p.name for p in owned if len(p.shape) > 1}
    ) if owned else None
    micro, data_rank = cfg.per_device_train_batch_size, groups.data_rank
    global_batch = micro * cfg.gradient_accumulation_steps * layout.data
    return Loop(
        stage=stage, groups=groups, sync=sync, optimizer=optimizer, scheduler=scheduler,
        train_epoch=lambda epoch: tokens.train_micro_batches(
            dataset, global_batch, micro, data_rank, layout.data, cfg.seed, epoch),
        eval_set=tokens.eval_batches(dataset, micro, data_rank, layout.data, cfg.eval_samples),
        accumulation=cfg.gradient_accumulation_steps, max_grad_norm=cfg.max_grad_norm,
        dtype=dtype_of(cfg), loss_scale=float(cfg.scale_loss) if cfg.fp16 else 1.0,
        hidden=shape["hidden_size"])


def setup(driver: Driver, model: str) -> tuple[str, Mapping[str, Any], Layout, Any, Any, Any, int]:
    """Everything before TRAIN_START; a CaseError on any bad input, before training."""
    from chipperf_runtime.training.paddlellm.data import open_dataset
    from chipperf_runtime.training.textlm import tokens

    cfg, dist = driver.config, driver.dist
    threads = configure_threads(cfg, dist)
    family = arch.MODELS[model][0]
    try:
        shape = arch.shape(family, cfg.model_size)
    except KeyError as exc:
        raise ConfigError(exc.args[0]) from exc
    if cfg.max_seq_length > shape["max_position_embeddings"]:
        raise ConfigError(f"max_seq_length {cfg.max_seq_length} exceeds model_size "
                          f"{cfg.model_size!r}'s {shape['max_position_embeddings']} positions")
    layout = layout_from_config(cfg, dist.world_size, shape)
    dtype_of(cfg)
    dataset = open_dataset(driver.args.data_dir, cfg.max_seq_length, shape["vocab_size"],
                           cfg.split, PREPARE.format(model=model))
    global_batch = cfg.per_device_train_batch_size * cfg.gradient_accumulation_steps * layout.data
    tokens.check_batching(dataset, global_batch, cfg.per_device_train_batch_size, layout.data)
    device = init_distributed(dist)
    driver.set_sync(device.synchronize)
    loop = build_loop(cfg, layout, dist.rank, family, shape, dataset)
    return family, shape, layout, dataset, loop, device, threads


def main(model: str, case_dir: Path, argv: list[str] | None = None) -> None:
    driver = Driver.start(model, case_dir, argv, environ=contract_environ(os.environ))
    cfg = driver.config
    family, shape, layout, dataset, loop, device, threads = setup(driver, model)
    from chipperf_runtime.training.paddlellm.model import count_parameters
    from chipperf_runtime.training.paddlellm.train import AMP

    seq = cfg.max_seq_length
    target = float(cfg.target_eval_loss[cfg.model_size])
    goal = Goal("eval_loss", target, higher_is_better=False,
                details=lambda loss: {"perplexity": _perplexity(loss)})
    driver.init_end(**device.describe(), threads=threads, model_size=cfg.model_size,
                    architecture={"family": family, **shape},
                    parameters=arch.parameter_count(family, shape),
                    rank_parameters=count_parameters(loop.stage), layout=layout.describe(),
                    seq_len=seq, train_windows=len(dataset.train), eval_windows=len(dataset.eval),
                    amp=AMP.get(loop.dtype, "none"))
    global_batch = cfg.per_device_train_batch_size * cfg.gradient_accumulation_steps * layout.data
    progress = run(driver, loop, Schedule(goal, cfg.max_steps, cfg.eval_steps, "tokens",
                                          global_batch_size=global_batch))
    from chipperf_runtime.training.paddlellm.parallel import world_sum

    work_done = int(round(world_sum(float(progress.work), driver.dist.distributed)))
    driver.executed(layout=layout.describe(), skipped_fp16_steps=loop.skipped_steps)
    driver.finish(work_done=work_done, work_unit="tokens", metric=goal.metric(progress.value),
                  flops_per_unit=arch.train_flops_per_token(family, shape, seq), dtype=loop.dtype,
                  peak_memory_bytes=device.max_memory_allocated(),
                  attention=Attention(arch.attention_train_flops_per_token(shape, seq),
                                      causal=True))


def _perplexity(loss: float) -> float:
    import math

    return math.exp(loss) if loss < 50 else float("inf")
