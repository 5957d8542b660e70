"""The training loop under MultiWorkerMirroredStrategy: one worker process per rank, one
replica per worker, gradients all-reduced (summed) by the optimizer; per-epoch top-1."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Any, Callable

import data
import folders
import keras
import tensorflow as tf
import xla_step

from chipperf_runtime.training.driver import Driver, Metric

# config dtype -> Keras dtype policy
POLICIES = {"fp32": "float32", "tf32": "float32", "bf16": "mixed_bfloat16",
            "fp16": "mixed_float16"}


class WarmupCosine(keras.optimizers.schedules.LearningRateSchedule):
    """Linear warmup from 0 to ``peak`` over ``warmup_steps``, then cosine to 0 at ``total``."""

    def __init__(self, peak: float, warmup_steps: int, total_steps: int):
        self.peak = float(peak)
        self.warmup_steps = int(warmup_steps)
        self.total_steps = max(int(total_steps), self.warmup_steps + 1)

    def __call__(self, step: Any) -> tf.Tensor:
        step = tf.cast(step, tf.float32) + 1.0
        warm = self.peak * step / max(1, self.warmup_steps)
        progress = (step - self.warmup_steps) / (self.total_steps - self.warmup_steps)
        cosine = 0.5 * self.peak * (1.0 + tf.cos(math.pi * tf.minimum(progress, 1.0)))
        return tf.where(step <= self.warmup_steps, warm, cosine)

    def get_config(self) -> dict[str, Any]:
        return {"peak": self.peak, "warmup_steps": self.warmup_steps,
                "total_steps": self.total_steps}


@dataclass
class Loop:
    """What the loop needs besides the driver (built by run_pretraining.setup)."""

    strategy: tf.distribute.Strategy
    model: keras.Model
    optimizer: keras.optimizers.Optimizer
    train: folders.Split
    val: folders.Split
    shard: folders.Shard
    per_rank_batch: int
    global_batch: int
    steps_per_epoch: int
    train_step: Callable[[tf.Tensor, tf.Tensor], tf.Tensor] = field(init=False)
    eval_step: Callable[[tf.Tensor, tf.Tensor], tf.Tensor] = field(init=False)
    compiler: dict[str, Any] = field(init=False)    # xla_step's record of how the step compiled


@dataclass
class Progress:
    epoch: int = 0
    step: int = 0
    samples: int = 0                      # trained on this rank
    accuracy: float = float("nan")
    history: list[float] = field(default_factory=list)


def make_strategy(collective: str, tpu_resolver: Any = None) -> tf.distribute.Strategy:
    """One replica per worker process, on the one device the device layer left visible
    (chipperf_runtime.device.tensorflow.open_tf_device runs first); on a TPU host, TPUStrategy
    over the TPU system the device layer initialised (one replica per TPU core group)."""
    if tpu_resolver is not None:
        return tf.distribute.TPUStrategy(tpu_resolver)
    implementation = {
        "auto": tf.distribute.experimental.CommunicationImplementation.AUTO,
        "ring": tf.distribute.experimental.CommunicationImplementation.RING,
        "nccl": tf.distribute.experimental.CommunicationImplementation.NCCL,
    }[collective]
    options = tf.distribute.experimental.CommunicationOptions(implementation=implementation)
    return tf.distribute.MultiWorkerMirroredStrategy(communication_options=options)


def make_optimizer(cfg: Any, schedule: WarmupCosine, model: keras.Model,
                   dtype: str) -> keras.optimizers.Optimizer:
    """SGD with momentum; decoupled weight decay on kernels only (not biases or BatchNorm)."""
    optimizer = keras.optimizers.SGD(learning_rate=schedule, momentum=cfg.momentum,
                                     nesterov=cfg.nesterov, weight_decay=cfg.weight_decay)
    optimizer.exclude_from_weight_decay(
        var_list=[v for v in model.trainable_variables if len(v.shape) <= 1])
    if dtype == "fp16":
        optimizer = keras.optimizers.LossScaleOptimizer(optimizer)
    return optimizer


def compile_steps(loop: Loop, num_classes: int, label_smoothing: float,
                  jit_compile: bool) -> None:
    """Attach the tf.function train and eval steps to ``loop``, traced; with ``jit_compile``
    the train step is compiled whole by XLA, and proven so (xla_step)."""
    loss_fn = keras.losses.CategoricalCrossentropy(
        from_logits=True, label_smoothing=label_smoothing, reduction=None)
    model, optimizer, strategy = loop.model, loop.optimizer, loop.strategy

    def replica_step(images: tf.Tensor, labels: tf.Tensor) -> tf.Tensor:
        with tf.GradientTape() as tape:
            logits = model(images, training=True)
            per_sample = loss_fn(tf.one_hot(labels, num_classes), logits)
            loss = tf.nn.compute_average_loss(per_sample, global_batch_size=loop.global_batch)
            scaled = optimizer.scale_loss(loss)
        grads = tape.gradient(scaled, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    size, batch = model.input_shape[1], loop.per_rank_batch
    specs = [tf.TensorSpec([batch, size, size, 3], tf.float32), tf.TensorSpec([batch], tf.int32)]
    on_tpu = isinstance(strategy, tf.distribute.TPUStrategy)

    @tf.function(input_signature=specs, jit_compile=jit_compile and not on_tpu)
    def train_step(images: tf.Tensor, labels: tf.Tensor) -> tf.Tensor:
        losses = strategy.run(replica_step, args=(images, labels))
        return strategy.reduce(tf.distribute.ReduceOp.SUM, losses, axis=None)

    @tf.function(input_signature=[tf.TensorSpec([None, size, size, 3], tf.float32),
                                  tf.TensorSpec([None], tf.int32)])
    def eval_step(images: tf.Tensor, labels: tf.Tensor) -> tf.Tensor:
        predicted = tf.argmax(model(images, training=False), axis=-1, output_type=tf.int32)
        return tf.reduce_sum(tf.cast(tf.equal(predicted, labels), tf.float64))

    # Trace both graphs now (part of initialisation, like building the model), not inside
    # the first timed step; graph optimisation still happens on the first call.
    train_step.get_concrete_function()
    eval_step.get_concrete_function()
    loop.train_step, loop.eval_step = train_step, eval_step
    loop.compiler = (xla_step.tpu_record() if on_tpu else
                     xla_step.compiled_record(train_step, specs) if jit_compile else
                     xla_step.plain_record())


def build_loop(cfg: Any, strategy: tf.distribute.Strategy, spec: Any, train: folders.Split,
               val: folders.Split, shard: folders.Shard, per_rank_batch: int) -> Loop:
    """Model, optimizer and compiled steps, created under ``strategy``."""
    import model as resnet

    steps = folders.steps_per_epoch(len(train), shard.world_size, per_rank_batch)
    lr = cfg.base_lr * cfg.global_batch_size / cfg.lr_reference_batch
    schedule = WarmupCosine(lr, round(cfg.warmup_epochs * steps), cfg.max_epochs * steps)
    with strategy.scope():
        keras_model = resnet.build(spec)
        optimizer = make_optimizer(cfg, schedule, keras_model, cfg.dtype)
    loop = Loop(strategy, keras_model, optimizer, train, val, shard, per_rank_batch,
                cfg.global_batch_size, steps)
    compile_steps(loop, spec.num_classes, cfg.label_smoothing, cfg.jit_compile)
    return loop


def all_reduce_sum(strategy: tf.distribute.Strategy, values: list[float]) -> list[float]:
    """Sum a few numbers over all workers (each worker holds one replica)."""

    @tf.function
    def reduce(local: tf.Tensor) -> tf.Tensor:
        per_replica = strategy.run(tf.identity, args=(local,))
        return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)

    return reduce(tf.constant(values, dtype=tf.float64)).numpy().tolist()


def evaluate(loop: Loop, image_size: int, crop_ratio: float) -> float:
    """Top-1 accuracy on the whole val split (each rank holds a disjoint shard)."""
    correct, total = 0.0, 0.0
    for images, labels in data.val_dataset(loop.val, loop.shard, loop.per_rank_batch,
                                           image_size, crop_ratio):
        correct += float(loop.eval_step(images, labels))
        total += int(labels.shape[0])
    correct, total = all_reduce_sum(loop.strategy, [correct, total])
    return correct / total if total else float("nan")


def train_epoch(driver: Driver, loop: Loop, progress: Progress, max_steps: int | None) -> None:
    """One pass over this rank's shard of train, or up to max_steps optimizer steps."""
    cfg, every = driver.config, driver.log.step_every
    batches = data.train_dataset(loop.train, loop.shard, loop.per_rank_batch, cfg.image_size,
                                 cfg.train_augment, cfg.seed, progress.epoch)
    for images, labels in batches:
        with driver.compute():
            loss = loop.train_step(images, labels)
        progress.step += 1
        progress.samples += int(labels.shape[0])
        if progress.step % every == 0:
            lr = float(loop.optimizer.learning_rate)
            driver.step_end(progress.step, work=progress.samples, epoch=progress.epoch,
                            loss=float(loss), lr=lr)
        if driver.step_done(progress.step, progress.samples):
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
            progress.history.append(progress.accuracy)
            driver.evaluate(epoch, Metric("top1", progress.accuracy, target),
                            step=progress.step)
        driver.epoch_end(epoch, step=progress.step)
        if out_of_steps or Metric("top1", progress.accuracy, target).reached():
            break
    driver.train_end(epochs=progress.epoch, steps=progress.step)
    return progress
