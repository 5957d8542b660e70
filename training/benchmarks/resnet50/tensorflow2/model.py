"""ResNet-50 v1 exactly as ``keras.applications.ResNet50`` builds it, written out here.

Same layers, names, order and shapes as Keras' reference (biased convolutions, stride on
the first 1x1 convolution of a stage's first block, BatchNorm epsilon 1.001e-5; the
BatchNorm moving-average momentum, 0.99 in Keras, is a hyper-parameter here),
so the 1000-class model has Keras' 25,636,712 parameters (25,583,592 trainable + 53,120
BatchNorm moving statistics). ``PRESETS["tiny"]`` shrinks the same code for CI.

``forward_flops`` counts 2 FLOPs per multiply-accumulate of every convolution and the
classifier, from the built model's layer shapes (BatchNorm, ReLU, pooling, adds and biases
are left out, as in the usual ResNet-50 figure).
"""

from __future__ import annotations

from dataclasses import dataclass

import keras
from arch import PUBLISHED_BLOCKS, PUBLISHED_WIDTH
from keras import layers

BN_EPSILON = 1.001e-5
EXPANSION = 4
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


def _bn(name: str, momentum: float) -> layers.BatchNormalization:
    return layers.BatchNormalization(axis=3, momentum=momentum, epsilon=BN_EPSILON, name=name)


def bottleneck(x, filters: int, momentum: float, stride: int = 1, conv_shortcut: bool = True,
               name: str = ""):
    """Keras' ``residual_block_v1``."""
    if conv_shortcut:
        shortcut = layers.Conv2D(EXPANSION * filters, 1, strides=stride, name=f"{name}_0_conv")(x)
        shortcut = _bn(f"{name}_0_bn", momentum)(shortcut)
    else:
        shortcut = x
    x = layers.Conv2D(filters, 1, strides=stride, name=f"{name}_1_conv")(x)
    x = layers.Activation("relu", name=f"{name}_1_relu")(_bn(f"{name}_1_bn", momentum)(x))
    x = layers.Conv2D(filters, 3, padding="same", name=f"{name}_2_conv")(x)
    x = layers.Activation("relu", name=f"{name}_2_relu")(_bn(f"{name}_2_bn", momentum)(x))
    x = layers.Conv2D(EXPANSION * filters, 1, name=f"{name}_3_conv")(x)
    x = _bn(f"{name}_3_bn", momentum)(x)
    x = layers.Add(name=f"{name}_add")([shortcut, x])
    return layers.Activation("relu", name=f"{name}_out")(x)


def stage(x, filters: int, blocks: int, stride: int, momentum: float, name: str):
    """Keras' ``stack_residual_blocks_v1``."""
    x = bottleneck(x, filters, momentum, stride=stride, name=f"{name}_block1")
    for i in range(2, blocks + 1):
        x = bottleneck(x, filters, momentum, conv_shortcut=False, name=f"{name}_block{i}")
    return x


def build_resnet(spec: ResNetSpec) -> keras.Model:
    """The model, logits out (no softmax); the classifier stays float32 under mixed precision."""
    inputs = keras.Input((spec.image_size, spec.image_size, 3), name="input_layer")
    x = layers.ZeroPadding2D(((3, 3), (3, 3)), name="conv1_pad")(inputs)
    x = layers.Conv2D(spec.base_width, 7, strides=2, name="conv1_conv")(x)
    x = layers.Activation("relu", name="conv1_relu")(_bn("conv1_bn", spec.bn_momentum)(x))
    x = layers.ZeroPadding2D(((1, 1), (1, 1)), name="pool1_pad")(x)
    x = layers.MaxPooling2D(3, strides=2, name="pool1_pool")(x)
    for index, blocks in enumerate(spec.blocks):
        x = stage(x, spec.base_width * 2**index, blocks, stride=1 if index == 0 else 2,
                  momentum=spec.bn_momentum, name=f"conv{index + 2}")
    x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
    outputs = layers.Dense(spec.num_classes, dtype="float32", name="predictions")(x)
    return keras.Model(inputs, outputs, name="resnet50")


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
