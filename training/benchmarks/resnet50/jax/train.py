"""The training loop: one jit-compiled step (forward, backward, optax update) over a
``Mesh`` of every device of every process, the batch split over the ``data`` axis
(``NamedSharding``), parameters and optimizer state replicated; XLA inserts the gradient
all-reduce. BatchNorm statistics are over the global batch (the step sees one array)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import flax.linen as nn
import images
import jax
import jax.numpy as jnp
import numpy as np
import optax
import xla_record
from flax.training import train_state
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P
from model import ResNet, ResNetSpec

from chipperf_runtime.training.driver import Driver, Metric

DATA_AXIS = "data"


class TrainState(train_state.TrainState):
    batch_stats: Any = None


@dataclass
class Loop:
    """What the loop needs besides the driver (built by ``build_loop``)."""

    spec: ResNetSpec
    train: images.Split
    val: images.Split
    shard: images.Shard
    per_process_batch: int
    global_batch: int
    steps_per_epoch: int
    loader: images.Loader
    batch_sharding: NamedSharding
    schedule: Any
    state: TrainState = field(init=False)
    train_step: Any = field(init=False)       # the compiled step
    eval_step: Any = field(init=False)
    compiler: dict[str, Any] = field(init=False)

    def global_array(self, local: np.ndarray) -> jax.Array:
        """This process's rows -> one array over every process's devices."""
        return jax.make_array_from_process_local_data(self.batch_sharding, local)


@dataclass
class Progress:
    epoch: int = 0
    step: int = 0
    samples: int = 0                      # trained, all processes together
    accuracy: float = float("nan")


def make_mesh() -> Mesh:
    return Mesh(np.array(jax.devices()), (DATA_AXIS,))


def make_optimizer(cfg: Any, schedule: Any) -> optax.GradientTransformation:
    """SGD with momentum; L2 weight decay added to the gradients of kernels only (not biases
    or BatchNorm), as PyTorch's SGD ``weight_decay`` on the resnet50/pytorch case's groups."""
    kernels = lambda params: jax.tree_util.tree_map_with_path(  # noqa: E731
        lambda path, _: getattr(path[-1], "key", "") == "kernel", params)
    return optax.chain(optax.add_decayed_weights(cfg.weight_decay, mask=kernels),
                       optax.sgd(schedule, momentum=cfg.momentum, nesterov=cfg.nesterov))


def loss_and_updates(model: nn.Module, params: Any, batch_stats: Any, images_: jax.Array,
                     labels: jax.Array, num_classes: int, smoothing: float) -> Any:
    logits, updates = model.apply({"params": params, "batch_stats": batch_stats}, images_,
                                  train=True, mutable=["batch_stats"])
    targets = optax.smooth_labels(jax.nn.one_hot(labels, num_classes), smoothing)
    return optax.softmax_cross_entropy(logits, targets).mean(), updates["batch_stats"]


def step_functions(model: nn.Module, num_classes: int, smoothing: float) -> tuple[Any, Any]:
    """(train_step, eval_step), pure functions for jit."""

    def train_step(state: TrainState, x: jax.Array, y: jax.Array) -> tuple[TrainState, jax.Array]:
        grad_fn = jax.value_and_grad(
            lambda p: loss_and_updates(model, p, state.batch_stats, x, y, num_classes, smoothing),
            has_aux=True)
        (loss, batch_stats), grads = grad_fn(state.params)
        return state.apply_gradients(grads=grads, batch_stats=batch_stats), loss

    def eval_step(state: TrainState, x: jax.Array, y: jax.Array, mask: jax.Array) -> jax.Array:
        logits = model.apply({"params": state.params, "batch_stats": state.batch_stats}, x,
                             train=False)
        return jnp.sum((jnp.argmax(logits, -1) == y) * mask), jnp.sum(mask)

    return train_step, eval_step


def initial_state(cfg: Any, model: nn.Module, spec: ResNetSpec, tx: Any,
                  replicated: NamedSharding) -> TrainState:
    """Parameters and optimizer state from ``seed`` (the same on every process), made by one
    compiled program on every device (the ``rbg`` generator: XLA's RngBitGenerator, which
    compiles in a fraction of threefry's time on the CPU)."""
    sample = jnp.zeros((1, spec.image_size, spec.image_size, 3), jnp.float32)

    def create(key: jax.Array) -> TrainState:
        variables = model.init(key, sample, train=False)
        return TrainState.create(apply_fn=model.apply, params=variables["params"], tx=tx,
                                 batch_stats=variables["batch_stats"])

    return jax.jit(create, out_shardings=replicated)(jax.random.key(cfg.seed, impl="rbg"))


def build_loop(cfg: Any, spec: ResNetSpec, train: images.Split, val: images.Split,
               shard: images.Shard, per_process_batch: int) -> Loop:
    """Model, optimizer state and the compiled steps (compiled here, before TRAIN_START)."""
    mesh = make_mesh()
    replicated, batch = NamedSharding(mesh, P()), NamedSharding(mesh, P(DATA_AXIS))
    steps = images.steps_per_epoch(len(train), shard.world_size, per_process_batch)
    lr = cfg.base_lr * cfg.global_batch_size / cfg.lr_reference_batch
    schedule = optax.warmup_cosine_decay_schedule(
        0.0, lr, round(cfg.warmup_epochs * steps), max(cfg.max_epochs * steps, 1), end_value=0.0)
    loop = Loop(spec, train, val, shard, per_process_batch, cfg.global_batch_size, steps,
                images.Loader(cfg.decode_threads), batch, schedule)
    model = ResNet(spec)
    loop.state = initial_state(cfg, model, spec, make_optimizer(cfg, schedule), replicated)
    train_fn, eval_fn = step_functions(model, spec.num_classes, cfg.label_smoothing)
    x, y, mask = example_batch(loop)
    loop.train_step, loop.compiler = xla_record.compile_step(
        jax.jit(train_fn, out_shardings=(replicated, replicated), donate_argnums=0),
        loop.state, x, y)
    loop.eval_step = jax.jit(eval_fn, out_shardings=(replicated, replicated)).lower(
        loop.state, x, y, mask).compile()
    return loop


def example_batch(loop: Loop) -> tuple[jax.Array, jax.Array, jax.Array]:
    size, n = loop.spec.image_size, loop.per_process_batch
    return (loop.global_array(np.zeros((n, size, size, 3), np.float32)),
            loop.global_array(np.zeros(n, np.int32)), loop.global_array(np.zeros(n, np.float32)))


def evaluate(loop: Loop, image_size: int, crop_ratio: float) -> float:
    """Top-1 over the whole val split (each process feeds its share; sums are global)."""
    correct, total = 0.0, 0.0
    for x, y, mask in loop.loader.val_batches(loop.val, loop.shard, loop.per_process_batch,
                                              image_size, crop_ratio):
        hits, count = loop.eval_step(loop.state, loop.global_array(x), loop.global_array(y),
                                     loop.global_array(mask))
        correct, total = correct + float(hits), total + float(count)
    return correct / total if total else float("nan")


def train_epoch(driver: Driver, loop: Loop, progress: Progress, max_steps: int | None) -> None:
    """One pass over this process's share of train, or up to max_steps optimizer steps."""
    cfg, every = driver.config, driver.log.step_every
    for x, y in loop.loader.train_batches(loop.train, loop.shard, loop.per_process_batch,
                                          cfg.image_size, cfg.train_augment, cfg.seed,
                                          progress.epoch):
        batch = loop.global_array(x), loop.global_array(y)
        with driver.compute():
            loop.state, loss = loop.train_step(loop.state, *batch)
        progress.step += 1
        progress.samples += loop.global_batch
        if progress.step % every == 0:
            driver.step_end(progress.step, work=progress.samples / loop.shard.world_size,
                            epoch=progress.epoch, loss=float(loss),
                            lr=float(loop.schedule(progress.step)))
        if driver.step_done(progress.step, progress.samples / loop.shard.world_size):
            return
        if max_steps is not None and progress.step >= max_steps:
            return


def run(driver: Driver, loop: Loop, target: float) -> Progress:
    """Train until the target top-1 is reached, max_epochs, or max_steps; in performance
    mode (driver.run_mode) for its warm-up + timed steps, without evaluation."""
    cfg = driver.config
    progress = Progress()
    performance = driver.run_mode.performance
    max_steps = driver.stop_after(cfg.max_steps)
    driver.train_start(global_batch_size=loop.global_batch, steps_per_epoch=loop.steps_per_epoch,
                       work_unit="samples")
    epochs = itertools.count(1) if performance else range(1, cfg.max_epochs + 1)
    for epoch in epochs:
        progress.epoch = epoch
        driver.epoch_begin(epoch)
        train_epoch(driver, loop, progress, max_steps)
        out_of_steps = max_steps is not None and progress.step >= max_steps
        if not performance and (epoch % cfg.eval_every_epochs == 0 or epoch == cfg.max_epochs
                                or out_of_steps):
            with driver.evaluation():
                progress.accuracy = evaluate(loop, cfg.image_size, cfg.val_crop_ratio)
            driver.evaluate(epoch, Metric("top1", progress.accuracy, target), step=progress.step)
        driver.epoch_end(epoch, step=progress.step)
        if out_of_steps or Metric("top1", progress.accuracy, target).reached():
            break
    driver.train_end(epochs=progress.epoch, steps=progress.step)
    return progress
