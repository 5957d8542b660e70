"""ResNet-50 v1.5 in Flax (linen), the torchvision / NVIDIA layout of the resnet50/pytorch case:
no convolution biases, the stride on each stage's first 3x3 convolution, a 1x1 projection
(convolution + BatchNorm) where the shape changes, BatchNorm epsilon 1e-5, NHWC.

With ``blocks=(3, 4, 6, 3)``, ``width=64`` and 1000 classes it has torchvision's 25,557,032
parameters (BatchNorm running statistics are state, not parameters, as in torchvision's count).
Counts and FLOPs come from abstract shapes (``jax.eval_shape``): nothing is materialised.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import flax.linen as nn
import jax
import jax.numpy as jnp

EXPANSION = 4


@dataclass(frozen=True)
class ResNetSpec:
    num_classes: int
    image_size: int
    blocks: Sequence[int] = (3, 4, 6, 3)
    base_width: int = 64
    bn_momentum: float = 0.9          # Flax's: running = momentum * running + (1 - momentum) * batch
    dtype: Any = jnp.float32          # compute dtype (parameters stay float32)


class Bottleneck(nn.Module):
    width: int
    stride: int
    norm: Any
    dtype: Any

    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        conv = lambda features, kernel, stride, name: nn.Conv(  # noqa: E731
            features, (kernel, kernel), (stride, stride), padding=[(kernel // 2,) * 2] * 2,
            use_bias=False, dtype=self.dtype, name=name)
        out = nn.relu(self.norm(name="bn1")(conv(self.width, 1, 1, "conv1")(x)))
        out = nn.relu(self.norm(name="bn2")(conv(self.width, 3, self.stride, "conv2")(out)))
        out = self.norm(name="bn3", scale_init=nn.initializers.zeros)(
            conv(self.width * EXPANSION, 1, 1, "conv3")(out))
        if self.stride != 1 or x.shape[-1] != self.width * EXPANSION:
            x = self.norm(name="downsample_bn")(
                conv(self.width * EXPANSION, 1, self.stride, "downsample_conv")(x))
        return nn.relu(out + x)


class ResNet(nn.Module):
    spec: ResNetSpec

    @nn.compact
    def __call__(self, images: jax.Array, train: bool) -> jax.Array:
        spec = self.spec
        norm = lambda **kw: nn.BatchNorm(  # noqa: E731
            use_running_average=not train, momentum=spec.bn_momentum, epsilon=1e-5,
            dtype=spec.dtype, **kw)
        x = nn.Conv(spec.base_width, (7, 7), (2, 2), padding=[(3, 3), (3, 3)], use_bias=False,
                    dtype=spec.dtype, name="conv1")(images.astype(spec.dtype))
        x = nn.relu(norm(name="bn1")(x))
        x = nn.max_pool(x, (3, 3), (2, 2), padding=[(1, 1), (1, 1)])
        for stage, count in enumerate(spec.blocks):
            for block in range(count):
                stride = 2 if stage > 0 and block == 0 else 1
                x = Bottleneck(spec.base_width * 2**stage, stride, norm, spec.dtype,
                               name=f"layer{stage + 1}_{block}")(x)
        x = jnp.mean(x, axis=(1, 2))
        return nn.Dense(spec.num_classes, dtype=spec.dtype, name="fc")(x).astype(jnp.float32)


def abstract_variables(spec: ResNetSpec) -> Any:
    """The model's variables as shapes only (``jax.eval_shape`` of ``init``)."""
    model = ResNet(spec)
    images = jax.ShapeDtypeStruct((1, spec.image_size, spec.image_size, 3), jnp.float32)
    return jax.eval_shape(lambda x: model.init(jax.random.PRNGKey(0), x, train=False), images)


def parameter_count(variables: Any) -> int:
    """Parameters (the ``params`` collection; BatchNorm running statistics are not counted)."""
    return sum(math.prod(leaf.shape) for leaf in jax.tree_util.tree_leaves(variables["params"]))


def forward_flops(spec: ResNetSpec) -> int:
    """Forward FLOPs per sample of the convolutions and the classifier (2 per multiply-add),
    from each layer's kernel and output shapes; BatchNorm, ReLU, pooling and adds left out."""
    model = ResNet(spec)
    images = jax.ShapeDtypeStruct((1, spec.image_size, spec.image_size, 3), jnp.float32)
    wanted = lambda module, method: isinstance(module, (nn.Conv, nn.Dense))  # noqa: E731

    def forward(x: jax.Array) -> Any:
        variables = model.init(jax.random.PRNGKey(0), x, train=False)
        _, state = model.apply(variables, x, train=False, capture_intermediates=wanted,
                               mutable=["intermediates"])
        return variables["params"], state["intermediates"]

    params, outputs = jax.eval_shape(forward, images)
    return sum(_layer_flops(params, outputs, path) for path in _layer_paths(params))


def train_flops(spec: ResNetSpec) -> int:
    """Training FLOPs per sample: 3 x forward (backward = 2 x forward)."""
    return 3 * forward_flops(spec)


def _layer_paths(params: Any, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Paths of every module holding a ``kernel``."""
    if not isinstance(params, Mapping):
        return []
    if "kernel" in params:
        return [prefix]
    return [p for name, sub in params.items() for p in _layer_paths(sub, prefix + (name,))]


def _layer_flops(params: Any, outputs: Any, path: tuple[str, ...]) -> int:
    kernel, out = params, outputs
    for name in path:
        kernel, out = kernel[name], out[name]
    output_shape = out["__call__"][0].shape
    spatial = math.prod(output_shape[1:-1]) if len(output_shape) > 2 else 1
    return 2 * math.prod(kernel["kernel"].shape) * spatial
