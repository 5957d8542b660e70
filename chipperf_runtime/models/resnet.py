"""ResNet-50 v1.5 (stride on the 3x3 conv): torchvision's ``resnet50``, and its FLOPs.

The one ResNet-50 of the tree: the training case (``training/benchmarks/resnet50/pytorch``)
and the inference case (``inference/benchmarks/resnet50/pytorch``) both build it with
``resnet50()``: ``torchvision.models.resnet50(weights=None)`` with the class count and
``zero_init_residual`` given, imported through ``chipperf_runtime.models.tvision`` (so that it
imports beside the CPU torch of the cpu vendor's ``pytorch_2.13`` images too). The
1000-class model has 25,557,032 parameters; its state dict is torchvision's (320 keys).

Initialisation is torchvision's: Kaiming-normal (fan_out) convolutions, BatchNorm weight 1
and bias 0, PyTorch's default for fc, and with ``zero_init_residual`` (the training case's
setting) each block's last BatchNorm weight 0, so every block starts as the identity. It is
the same as the written-out model this replaced, drawn in the same order: with one seed the
two give the same weights. ``bn_momentum`` sets every BatchNorm's momentum after building.
``forward_macs`` counts the multiply-accumulates of every convolution and the fc layer from
the layer shapes alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from torch import nn

from chipperf_runtime.models.tvision import import_torchvision

tv_resnet = import_torchvision().models.resnet


def resnet50(num_classes: int = 1000, zero_init_residual: bool = True,
             bn_momentum: float = 0.1) -> nn.Module:
    """torchvision's ResNet-50, untrained, ``num_classes`` outputs."""
    net = tv_resnet.resnet50(weights=None, num_classes=num_classes,
                             zero_init_residual=zero_init_residual)
    for m in net.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.momentum = bn_momentum  # weight of the newest batch in the running stats
    return net


def layers(net: nn.Module) -> list[nn.Sequential]:
    """The four stages of bottleneck blocks."""
    tv: Any = net
    return [tv.layer1, tv.layer2, tv.layer3, tv.layer4]


def conv_out(size: int, kernel: int, stride: int, padding: int) -> int:
    return (size + 2 * padding - kernel) // stride + 1


def conv_macs(conv: nn.Conv2d, h: int, w: int) -> tuple[int, int, int]:
    """(MACs, out_h, out_w) of one convolution on an h x w input."""
    kh, kw = conv.kernel_size
    sh, sw = conv.stride
    ph, pw = (int(p) for p in conv.padding)  # every conv here has numeric padding
    oh, ow = conv_out(h, kh, sh, ph), conv_out(w, kw, sw, pw)
    per_output = kh * kw * conv.in_channels // conv.groups
    return per_output * conv.out_channels * oh * ow, oh, ow


def block_macs(block: Any, h: int, w: int) -> tuple[int, int, int]:
    """(MACs, out_h, out_w) of one bottleneck: its three convolutions and the downsample's."""
    m1, h1, w1 = conv_macs(block.conv1, h, w)
    m2, h2, w2 = conv_macs(block.conv2, h1, w1)
    m3, h3, w3 = conv_macs(block.conv3, h2, w2)
    down = 0 if block.downsample is None else conv_macs(block.downsample[0], h, w)[0]
    return m1 + m2 + m3 + down, h3, w3


def forward_macs(net: Any, height: int, width: int) -> int:
    """Multiply-accumulates of one forward pass of ``resnet50()``'s ``net`` on one height x
    width image."""
    macs, h, w = conv_macs(net.conv1, height, width)
    h, w = conv_out(h, 3, 2, 1), conv_out(w, 3, 2, 1)  # maxpool
    for layer in layers(net):
        for block in layer:
            m, h, w = block_macs(block, h, w)
            macs += m
    return macs + net.fc.in_features * net.fc.out_features


@dataclass(frozen=True)
class Flops:
    forward_macs: int

    @property
    def forward(self) -> int:
        return 2 * self.forward_macs

    @property
    def training(self) -> int:
        """Forward + backward (which costs twice the forward): 3 x forward FLOPs."""
        return 3 * self.forward


def flops_per_sample(net: nn.Module, image_size: int) -> Flops:
    return Flops(forward_macs(net, image_size, image_size))
