"""resnet50 (JAX): train ResNet-50 v1.5 (Flax) on an ImageNet-layout folder to a top-1 target
with optax SGD, one jit-compiled XLA step data-parallel over a Mesh of every device of every
process (``jax.distributed`` joins the processes from the launcher's environment).

    python3 run_pretraining.py --data_dir D [--extern_config_dir DIR --extern_config_file F]
                               [--output_dir O] [--set name=value ...]

See README.md for the dataset layout, the target and the FLOPs formula.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from chipperf_runtime.device import DeviceError
from chipperf_runtime.training.driver import (
    Config,
    ConfigError,
    DataError,
    DistEnv,
    Driver,
    Metric,
    run_case,
    split_batch,
)
from chipperf_runtime.training.driver.errors import DeviceUnavailable

# arch and images are this folder's JAX-free modules; model, train and xla_record import JAX,
# so they are imported only once the configuration and the data dir have been checked.
CASE_DIR = Path(__file__).resolve().parent
DTYPES = ("fp32", "bf16")


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
    for name in ("max_epochs", "eval_every_epochs", "image_size", "decode_threads"):
        if cfg[name] < 1:
            problems.append(f"{name} = {cfg[name]} must be at least 1")
    if problems:
        raise ConfigError("configuration problems:\n" + "\n".join(f"  - {p}" for p in problems))


def check_sizes(train: Any, val: Any, cfg: Config, world_size: int) -> None:
    if len(train) < cfg.global_batch_size:
        raise DataError(f"train/ holds {len(train)} images, fewer than one global batch "
                        f"({cfg.global_batch_size}): lower global_batch_size or add data")
    if len(val) < world_size:
        raise DataError(f"val/ holds {len(val)} images, fewer than the {world_size} processes")
    if cfg.num_classes is not None and cfg.num_classes != len(train.classes):
        raise DataError(f"num_classes = {cfg.num_classes} but train/ has {len(train.classes)} "
                        "class folders")


def check_devices(cfg: Config, devices: int) -> None:
    """The global batch is split over every device of the mesh."""
    if cfg.global_batch_size % devices:
        raise ConfigError(f"global_batch_size = {cfg.global_batch_size} does not divide over the "
                          f"{devices} devices of the mesh: use a multiple of {devices}")


def open_device(dist: DistEnv) -> Any:
    """Pin JAX to the vendor's platform and join the other processes (several ranks)."""
    from chipperf_runtime.device.jax import Coordinator, open_jax_device

    coordinator = (Coordinator(f"{dist.master_addr}:{dist.master_port}", dist.world_size,
                               dist.rank, dist.local_rank, dist.nproc_per_node)
                   if dist.distributed else None)
    try:
        return open_jax_device(coordinator=coordinator)
    except DeviceError as exc:
        raise DeviceUnavailable(str(exc)) from exc


def setup(driver: Driver) -> tuple[Any, Any]:
    """(train.Loop, the process's JaxDevice): everything before TRAIN_START; raises a CaseError
    on any bad input, on every process, before training."""
    cfg, dist = driver.config, driver.dist
    import arch
    import images

    check_config(cfg, arch.PRESETS)
    per_process_batch = split_batch(cfg.global_batch_size, dist.world_size)
    images.check_augment(cfg.train_augment)
    train_split, val_split = images.read_splits(driver.args.data_dir)
    check_sizes(train_split, val_split, cfg, dist.world_size)
    images.check_decodable(train_split, "train")
    images.check_decodable(val_split, "val")
    device = open_device(dist)
    import jax
    import jax.numpy as jnp
    import model as resnet
    import train

    check_devices(cfg, jax.device_count())
    blocks, width = arch.PRESETS[cfg.model_size]
    spec = resnet.ResNetSpec(num_classes=len(train_split.classes), image_size=cfg.image_size,
                             blocks=blocks, base_width=width, bn_momentum=cfg.bn_momentum,
                             dtype=jnp.bfloat16 if cfg.dtype == "bf16" else jnp.float32)
    loop = train.build_loop(cfg, spec, train_split, val_split,
                            images.Shard(dist.rank, dist.world_size), per_process_batch)
    driver.set_sync(lambda: jax.block_until_ready(loop.state))
    return loop, device


def main(argv: list[str] | None = None) -> None:
    driver = Driver.start("resnet50", CASE_DIR, argv)
    cfg = driver.config
    loop, device = setup(driver)
    import model as resnet
    import train

    target = float(cfg.target_accuracy[cfg.model_size])
    parameters = resnet.parameter_count(resnet.abstract_variables(loop.spec))
    driver.executed(xla=loop.compiler)
    driver.init_end(model_size=cfg.model_size, num_classes=loop.spec.num_classes,
                    xla=loop.compiler, parameters=parameters, train_images=len(loop.train),
                    val_images=len(loop.val), steps_per_epoch=loop.steps_per_epoch,
                    **device.describe())
    progress = train.run(driver, loop, target)
    loop.loader.close()
    driver.finish(work_done=progress.samples, work_unit="samples",
                  metric=Metric("top1", progress.accuracy, target),
                  flops_per_unit=resnet.train_flops(loop.spec), dtype=cfg.dtype,
                  peak_memory_bytes=device.max_memory_allocated())


if __name__ == "__main__":
    run_case(main)
