"""resnet50 (TensorFlow 2): train the published ResNet-50 on an ImageNet-layout folder to a
top-1 target, one MultiWorkerMirroredStrategy worker per rank (TF_CONFIG from the launcher).

    python3 run_pretraining.py --data_dir D [--extern_config_dir DIR --extern_config_file F]
                               [--output_dir O] [--set name=value ...]

See README.md for the dataset layout, the target and the FLOPs formula.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

from chipperf_runtime.device import DeviceError  # noqa: E402
from chipperf_runtime.training.driver import (  # noqa: E402
    Config,
    ConfigError,
    DataError,
    DistEnv,
    Driver,
    Metric,
    run_case,
    split_batch,
)
from chipperf_runtime.training.driver.errors import DeviceUnavailable  # noqa: E402

# arch, folders, data, model and train are this folder's modules; data, model and train
# import TensorFlow, so they are imported only once the configuration and the data dir have
# been checked.
CASE_DIR = Path(__file__).resolve().parent
DTYPES = ("fp32", "tf32", "bf16", "fp16")
COLLECTIVES = ("auto", "ring", "nccl")


def check_config(cfg: Config, presets: Any) -> None:
    """Every configuration problem at once."""
    problems = []
    if cfg.model_size not in presets:
        problems.append(f"model_size {cfg.model_size!r} is unknown: use one of "
                        f"{', '.join(presets)}")
    elif cfg.model_size not in cfg.target_accuracy:
        problems.append(f"target_accuracy has no target for model_size {cfg.model_size!r}")
    if cfg.dtype not in DTYPES:
        problems.append(f"dtype {cfg.dtype!r} is not supported: use one of {', '.join(DTYPES)}")
    if cfg.collective not in COLLECTIVES:
        problems.append(f"collective {cfg.collective!r}: use one of {', '.join(COLLECTIVES)}")
    for name in ("max_epochs", "eval_every_epochs", "image_size"):
        if cfg[name] < 1:
            problems.append(f"{name} = {cfg[name]} must be at least 1")
    if problems:
        raise ConfigError("configuration problems:\n" + "\n".join(f"  - {p}" for p in problems))


def check_sizes(train: Any, val: Any, cfg: Config, world_size: int) -> None:
    if len(train) < cfg.global_batch_size:
        raise DataError(f"train/ holds {len(train)} images, fewer than one global batch "
                        f"({cfg.global_batch_size}): lower global_batch_size or add data")
    if len(val) < world_size:
        raise DataError(f"val/ holds {len(val)} images, fewer than the {world_size} ranks")
    if cfg.num_classes is not None and cfg.num_classes != len(train.classes):
        raise DataError(f"num_classes = {cfg.num_classes} but train/ has {len(train.classes)} "
                        "class folders")


def check_xla_topology(cfg: Config, device: Any, dist: DistEnv) -> None:
    """XLA on the CPU backend has no collectives (TensorFlow 2.21 raises "Collectives are not
    yet implemented for CPU devices when compiling with XLA" with two workers): one worker."""
    if cfg.jit_compile and not device.is_accelerator and dist.world_size > 1:
        raise ConfigError(f"jit_compile = True on the CPU runs one worker only (WORLD_SIZE="
                          f"{dist.world_size}): TensorFlow's XLA has no collectives for CPU "
                          "devices: use nnodes=1 nproc=1, or jit_compile = False")


def configure_threads(tf: Any, cfg: Config, dist: DistEnv) -> int:
    """Share the node's cores between its ranks (before TensorFlow runs any op)."""
    threads = cfg.cpu_threads or max(1, len(os.sched_getaffinity(0)) // dist.nproc_per_node)
    tf.config.threading.set_intra_op_parallelism_threads(threads)
    tf.config.threading.set_inter_op_parallelism_threads(max(2, threads))
    return threads


def setup(driver: Driver) -> tuple[Any, Any, int, Any]:
    """(train.Loop, model spec, threads, the rank's TfDevice): everything before TRAIN_START;
    raises a CaseError on any bad input, on every rank, before training."""
    cfg, dist = driver.config, driver.dist
    import arch
    import folders

    check_config(cfg, arch.PRESETS)
    per_rank_batch = split_batch(cfg.global_batch_size, dist.world_size)
    folders.check_augment(cfg.train_augment)
    train_split, val_split = folders.read_splits(driver.args.data_dir)
    check_sizes(train_split, val_split, cfg, dist.world_size)
    import data
    import keras
    import model as resnet
    import tensorflow as tf
    import train

    threads = configure_threads(tf, cfg, dist)
    tf.config.experimental.enable_tensor_float_32_execution(cfg.dtype == "tf32")
    device = open_device(dist.local_rank)  # before any TF op: pins this rank's device
    check_xla_topology(cfg, device, dist)
    strategy = train.make_strategy(cfg.collective, device.tpu_resolver)
    if strategy.num_replicas_in_sync != dist.world_size:
        raise ConfigError(f"TensorFlow formed {strategy.num_replicas_in_sync} replicas for "
                          f"WORLD_SIZE={dist.world_size}: the case feeds one replica per worker "
                          "(on TPUs only a one-replica slice fits, e.g. v5e-1, v6e-1); check "
                          "TF_CONFIG from the launcher")
    data.check_decodable(train_split, "train")
    data.check_decodable(val_split, "val")
    keras.utils.set_random_seed(cfg.seed + dist.rank)  # initial weights: rank 0's, broadcast
    blocks, width = arch.PRESETS[cfg.model_size]
    spec = resnet.ResNetSpec(num_classes=len(train_split.classes), image_size=cfg.image_size,
                             blocks=blocks, base_width=width, bn_momentum=cfg.bn_momentum,
                             dtype_policy=train.POLICIES[cfg.dtype])
    loop = train.build_loop(cfg, strategy, spec, train_split, val_split,
                            folders.Shard(dist.rank, dist.world_size), per_rank_batch)
    driver.set_sync(device.synchronize)
    return loop, spec, threads, device


def open_device(local_rank: int) -> Any:
    """The vendor's device for this rank (chipperf_runtime.device.tensorflow), or DeviceUnavailable."""
    from chipperf_runtime.device.tensorflow import open_tf_device

    try:
        return open_tf_device(local_rank)
    except DeviceError as exc:
        raise DeviceUnavailable(str(exc)) from exc


def main(argv: list[str] | None = None) -> None:
    driver = Driver.start("resnet50", CASE_DIR, argv)
    cfg = driver.config
    loop, spec, threads, device = setup(driver)
    import model as resnet
    import train

    target = float(cfg.target_accuracy[cfg.model_size])
    driver.executed(xla=loop.compiler)
    driver.init_end(model_size=cfg.model_size, num_classes=spec.num_classes, xla=loop.compiler,
                    parameters=resnet.parameter_counts(loop.model)["total"],
                    train_images=len(loop.train), val_images=len(loop.val), threads=threads,
                    steps_per_epoch=loop.steps_per_epoch, **device.describe())
    progress = train.run(driver, loop, target)
    samples = int(train.all_reduce_sum(loop.strategy, [float(progress.samples)])[0])
    driver.finish(work_done=samples, work_unit="samples",
                  metric=Metric("top1", progress.accuracy, target),
                  flops_per_unit=resnet.train_flops(loop.model), dtype=cfg.dtype,
                  peak_memory_bytes=device.max_memory_allocated())


if __name__ == "__main__":
    run_case(main)
