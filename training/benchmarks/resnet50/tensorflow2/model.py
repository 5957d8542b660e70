"""ResNet-50 v1: ``keras.applications.ResNet50``, built untrained, and its FLOPs.

The full-size model is Keras' own (biased convolutions, stride on the first 1x1 convolution
of a stage's first block, BatchNorm epsilon 1.001e-5): 25,636,712 parameters with 1000
classes (25,583,592 trainable + 53,120 BatchNorm moving statistics). ``PRESETS["tiny"]``
(CI) is built by the same Keras code, ``keras.src.applications.resnet.ResNet`` (the builder
behind ``ResNet50``; not in Keras' public API, so pinned with Keras in the image), with one
block per stage and narrower stages; its 7x7 stem stays 64 wide, as that builder fixes it.

What this module sets on Keras' model: logits out (no softmax), the BatchNorm moving-average
momentum (0.99 in Keras, a hyper-parameter here), and under a mixed precision policy a
float32 cast of the logits (Keras' advice for mixed precision outputs).

``forward_flops`` counts 2 FLOPs per multiply-accumulate of every convolution and the
classifier, from the built model's layer shapes (BatchNorm, ReLU, pooling, adds and biases
are left out, as in the usual ResNet-50 figure).
"""

from __future__ import annotations

from dataclasses import dataclass

import keras
from arch import PUBLISHED_BLOCKS, PUBLISHED_WIDTH
from keras import layers
from keras.src.applications import resnet as keras_resnet


@dataclass(frozen=True)
class ResNetSpec:
    num_classes: int = 1000
    image_size: int = 224
    blocks: tuple[int, ...] = (3, 4, 6, 3)
    base_width: int = 64     # bottleneck width of the first stage; doubles every stage
    bn_momentum: float = 0.99
    dtype_policy: str = "float32"

    @property
    def published(self) -> bool:
        """True for the published ResNet-50 shape (any class count and resolution)."""
        return self.blocks == PUBLISHED_BLOCKS and self.base_width == PUBLISHED_WIDTH

    def __post_init__(self) -> None:
        if self.num_classes < 1 or self.base_width < 1 or not self.blocks:
            raise ValueError(f"invalid ResNet spec {self}")
        if any(b < 1 for b in self.blocks):
            raise ValueError(f"every stage needs at least one block: {self.blocks}")
        if self.image_size < 32:
            raise ValueError(f"image_size {self.image_size} is below ResNet's minimum of 32")


def build_resnet(spec: ResNetSpec) -> keras.Model:
    """Keras' ResNet-50 (or the CI shape from the same builder), logits out; under a mixed
    precision policy the logits are cast to float32."""
    shape = (spec.image_size, spec.image_size, 3)
    if spec.published:
        net = keras.applications.ResNet50(weights=None, input_shape=shape,
                                          classes=spec.num_classes, classifier_activation=None)
    else:
        def stages(x):
            for index, blocks in enumerate(spec.blocks):
                x = keras_resnet.stack_residual_blocks_v1(
                    x, spec.base_width * 2**index, blocks, stride1=1 if index == 0 else 2,
                    name=f"conv{index + 2}")
            return x

        net = keras_resnet.ResNet(stages, preact=False, use_bias=True, weights=None,
                                  input_shape=shape, classes=spec.num_classes,
                                  classifier_activation=None, name="resnet50")
    for layer in net.layers:
        if isinstance(layer, layers.BatchNormalization):
            layer.momentum = spec.bn_momentum
    if keras.config.dtype_policy().compute_dtype == "float32":
        return net
    logits = layers.Activation("linear", dtype="float32", name="logits_float32")(net.output)
    return keras.Model(net.input, logits, name=net.name)


def build(spec: ResNetSpec) -> keras.Model:
    """``build_resnet`` under ``spec.dtype_policy`` (the global policy is restored after)."""
    previous = keras.config.dtype_policy()
    keras.config.set_dtype_policy(spec.dtype_policy)
    try:
        return build_resnet(spec)
    finally:
        keras.config.set_dtype_policy(previous)


def forward_flops(model: keras.Model) -> int:
    """Forward FLOPs per sample: 2 x MACs of every Conv2D and Dense layer."""
    total = 0
    for layer in model.layers:
        if isinstance(layer, layers.Conv2D):
            kh, kw, cin, cout = layer.kernel.shape
            _, oh, ow, _ = layer.output.shape
            total += 2 * kh * kw * cin * cout * oh * ow
        elif isinstance(layer, layers.Dense):
            fan_in, fan_out = layer.kernel.shape
            total += 2 * fan_in * fan_out
    return int(total)


def train_flops(model: keras.Model) -> int:
    """Training FLOPs per sample: forward + backward (2 x forward) = 3 x forward."""
    return 3 * forward_flops(model)


def parameter_counts(model: keras.Model) -> dict[str, int]:
    """Keras' count: trainable, non-trainable (BatchNorm moving statistics) and total."""
    trainable = sum(int(w.numpy().size) for w in model.trainable_weights)
    frozen = sum(int(w.numpy().size) for w in model.non_trainable_weights)
    return {"trainable": trainable, "non_trainable": frozen, "total": trainable + frozen}
