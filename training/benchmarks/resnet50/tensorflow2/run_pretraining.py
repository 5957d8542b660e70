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

from driver import ConfigError, DataError, Driver, Metric, run_case, split_batch  # noqa: E402

CASE_DIR = Path(__file__).resolve().parent


def check_config(cfg: Any) -> None:
    from train import POLICIES

    problems = []
    if cfg.dtype not in POLICIES:
        problems.append(f"dtype = {cfg.dtype!r}: use one of {', '.join(POLICIES)}")
    if cfg.collective not in ("auto", "ring", "nccl"):
        problems.append(f"collective = {cfg.collective!r}: use 'auto', 'ring' or 'nccl'")
    if cfg.max_epochs < 1 or cfg.eval_every_epochs < 1:
        problems.append("max_epochs and eval_every_epochs must be at least 1")
    if problems:
        raise ConfigError("configuration problems:\n" + "\n".join(f"  - {p}" for p in problems))


def check_sizes(train: Any, val: Any, global_batch: int, world_size: int, cfg: Any) -> None:
    if len(train) < global_batch:
        raise DataError(f"train/ holds {len(train)} images, fewer than one global batch "
                        f"({global_batch}): lower global_batch_size or add data")
    if len(val) < world_size:
        raise DataError(f"val/ holds {len(val)} images, fewer than the {world_size} ranks")
    if cfg.num_classes is not None and cfg.num_classes != len(train.classes):
        raise DataError(f"num_classes = {cfg.num_classes} but train/ has {len(train.classes)} "
                        "class folders")


def configure_threads(tf: Any, cfg: Any, nproc_per_node: int) -> None:
    """Share the node's cores between its ranks (before TensorFlow runs any op)."""
    threads = cfg.cpu_threads or max(1, len(os.sched_getaffinity(0)) // max(1, nproc_per_node))
    tf.config.threading.set_intra_op_parallelism_threads(threads)
    tf.config.threading.set_inter_op_parallelism_threads(max(2, threads))


def setup(driver: Driver):
    """Everything before TRAIN_START; raises a CaseError on any bad input."""
    cfg, dist = driver.config, driver.dist
    check_config(cfg)
    per_rank_batch = split_batch(cfg.global_batch_size, dist.world_size)
    import data
    import keras
    import model as resnet
    import tensorflow as tf
    import train

    data.check_augment(cfg.train_augment)
    train_split, val_split = data.read_splits(driver.args.data_dir)
    check_sizes(train_split, val_split, cfg.global_batch_size, dist.world_size, cfg)
    configure_threads(tf, cfg, dist.nproc_per_node)
    tf.config.experimental.enable_tensor_float_32_execution(cfg.dtype == "tf32")
    strategy = train.make_strategy(dist.local_rank, cfg.collective)  # before any TF op
    if strategy.num_replicas_in_sync != dist.world_size:
        raise ConfigError(f"TensorFlow formed {strategy.num_replicas_in_sync} replicas for "
                          f"WORLD_SIZE={dist.world_size}: check TF_CONFIG from the launcher")
    data.check_decodable(train_split, "train")
    data.check_decodable(val_split, "val")
    keras.utils.set_random_seed(cfg.seed + dist.rank)  # initial weights: rank 0's, broadcast
    steps = data.steps_per_epoch(len(train_split), dist.world_size, per_rank_batch)
    spec = resnet.ResNetSpec(num_classes=len(train_split.classes), image_size=cfg.image_size,
                             blocks=tuple(cfg.blocks), base_width=cfg.base_width,
                             bn_momentum=cfg.bn_momentum,
                             dtype_policy=train.POLICIES[cfg.dtype])
    lr = cfg.base_lr * cfg.global_batch_size / cfg.lr_reference_batch
    schedule = train.WarmupCosine(lr, cfg.warmup_epochs * steps, cfg.max_epochs * steps)
    with strategy.scope():
        keras_model = resnet.build(spec)
        optimizer = train.make_optimizer(cfg, schedule, keras_model, cfg.dtype)
    loop = train.Loop(strategy, keras_model, optimizer, train_split, val_split,
                      data.Shard(dist.rank, dist.world_size), per_rank_batch,
                      cfg.global_batch_size, steps)
    train.compile_steps(loop, spec.num_classes, cfg.label_smoothing)
    if tf.config.list_logical_devices("GPU"):
        driver.set_sync(tf.test.experimental.sync_devices)
    return loop, spec


def peak_memory_bytes() -> int | None:
    """Peak memory of this rank's GPU; None on CPU (TensorFlow does not track it there)."""
    import tensorflow as tf

    if not tf.config.list_logical_devices("GPU"):
        return None
    return int(tf.config.experimental.get_memory_info("GPU:0")["peak"])


def main() -> None:
    import model as resnet
    import train

    driver = Driver.start("resnet50", CASE_DIR)
    loop, spec = setup(driver)
    driver.init_end(world_size=driver.dist.world_size, num_classes=spec.num_classes,
                    train_images=len(loop.train), val_images=len(loop.val),
                    parameters=resnet.parameter_counts(loop.model)["total"],
                    published_architecture=spec.published)
    progress = train.run(driver, loop)
    samples = int(train.all_reduce_sum(loop.strategy, [float(progress.samples)])[0])
    cfg = driver.config
    driver.finish(work_done=samples, work_unit="samples",
                  metric=Metric("top1", progress.accuracy, cfg.target_accuracy),
                  flops_per_unit=resnet.train_flops(loop.model), dtype=cfg.dtype,
                  peak_memory_bytes=peak_memory_bytes())


if __name__ == "__main__":
    run_case(main)
