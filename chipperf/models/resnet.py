"""ResNet-50 (v1.5: stride on the 3x3 conv) in torchvision's layout, written out here.

The one ResNet-50 of the tree: the training case (``training/benchmarks/resnet50/pytorch``)
and the inference case (``inference/benchmarks/resnet50/pytorch``) both build this class.
It is written out because torchvision (and timm, which needs it) cannot be imported in the
cpu vendor's ``pytorch_2.13`` images, training's and inference's: they carry torch
2.13.0+cpu, and PyPI's torchvision wheel of that release is built against the GPU build of
torch (its compiled ops fail to load: "operator torchvision::nms does not exist").

Parameter and buffer names and shapes match ``torchvision.models.resnet50`` (conv1, bn1,
layer1..4, fc), so the 1000-class model has 25,557,032 parameters and a torchvision state
dict loads unchanged. ``zero_init_residual`` (training's default) starts every block as the
identity; ``False`` is torchvision's default initialisation. ``forward_macs`` counts the
multiply-accumulates of every convolution and the fc layer from the layer shapes alone.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

LAYERS = (3, 4, 6, 3)
WIDTHS = (64, 128, 256, 512)
EXPANSION = 4


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


class Bottleneck(nn.Module):
    def __init__(self, inplanes: int, width: int, stride: int):
        super().__init__()
        out = width * EXPANSION
        self.conv1 = nn.Conv2d(inplanes, width, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = nn.Conv2d(width, width, 3, stride=stride, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(width)
        self.conv3 = nn.Conv2d(width, out, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(out)
        self.relu = nn.ReLU(inplace=True)
        self.downsample: nn.Sequential | None = None
        if stride != 1 or inplanes != out:
            self.downsample = nn.Sequential(nn.Conv2d(inplanes, out, 1, stride=stride, bias=False),
                                            nn.BatchNorm2d(out))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x if self.downsample is None else self.downsample(x)
        y = self.relu(self.bn1(self.conv1(x)))
        y = self.relu(self.bn2(self.conv2(y)))
        y = self.bn3(self.conv3(y))
        return self.relu(y + identity)

    def macs(self, h: int, w: int) -> tuple[int, int, int]:
        m1, h1, w1 = conv_macs(self.conv1, h, w)
        m2, h2, w2 = conv_macs(self.conv2, h1, w1)
        m3, h3, w3 = conv_macs(self.conv3, h2, w2)
        down = 0
        if self.downsample is not None:
            down = conv_macs(self.downsample[0], h, w)[0]  # type: ignore[arg-type]
        return m1 + m2 + m3 + down, h3, w3


def make_layer(inplanes: int, width: int, blocks: int, stride: int) -> nn.Sequential:
    """One stage: the first block changes width (and stride), the rest keep it."""
    layer = [Bottleneck(inplanes, width, stride)]
    layer += [Bottleneck(width * EXPANSION, width, 1) for _ in range(blocks - 1)]
    return nn.Sequential(*layer)


class ResNet50(nn.Module):
    def __init__(self, num_classes: int = 1000, zero_init_residual: bool = True,
                 bn_momentum: float = 0.1):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(3, stride=2, padding=1)
        self.layer1 = make_layer(64, WIDTHS[0], LAYERS[0], stride=1)
        self.layer2 = make_layer(WIDTHS[0] * EXPANSION, WIDTHS[1], LAYERS[1], stride=2)
        self.layer3 = make_layer(WIDTHS[1] * EXPANSION, WIDTHS[2], LAYERS[2], stride=2)
        self.layer4 = make_layer(WIDTHS[2] * EXPANSION, WIDTHS[3], LAYERS[3], stride=2)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(WIDTHS[3] * EXPANSION, num_classes)
        self._init_weights(zero_init_residual, bn_momentum)

    def _init_weights(self, zero_init_residual: bool, bn_momentum: float) -> None:
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, nn.BatchNorm2d):
                m.momentum = bn_momentum  # weight of the newest batch in the running stats
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)
        if zero_init_residual:  # each block starts as identity (Goyal et al. 2017)
            for m in self.modules():
                if isinstance(m, Bottleneck):
                    nn.init.zeros_(m.bn3.weight)

    def layers(self) -> list[nn.Sequential]:
        return [self.layer1, self.layer2, self.layer3, self.layer4]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        for layer in self.layers():
            x = layer(x)
        return self.fc(torch.flatten(self.avgpool(x), 1))

    def forward_macs(self, height: int, width: int) -> int:
        """Multiply-accumulates of one forward pass on one height x width image."""
        macs, h, w = conv_macs(self.conv1, height, width)
        h, w = conv_out(h, 3, 2, 1), conv_out(w, 3, 2, 1)  # maxpool
        for layer in self.layers():
            for block in layer:
                m, h, w = block.macs(h, w)  # type: ignore[operator]
                macs += m
        return macs + self.fc.in_features * self.fc.out_features


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


def flops_per_sample(model: ResNet50, image_size: int) -> Flops:
    return Flops(model.forward_macs(image_size, image_size))
