"""YOLOv5 (v6.0+ architecture), written out from its published model definition.

Ultralytics' implementation (github.com/ultralytics/yolov5, and the ``ultralytics`` and
``yolov5`` packages on PyPI) is AGPL-3.0 / GPL-3.0, which this project's licence does not
admit, so no code of it is used: the network below follows the published ``yolov5s.yaml``
layer table (the same table at every size, scaled by a depth and a width multiple):

    backbone  Conv(64, 6, 2, 2)  Conv(128, 3, 2)  C3(128) x3  Conv(256, 3, 2)  C3(256) x6
              Conv(512, 3, 2)  C3(512) x9  Conv(1024, 3, 2)  C3(1024) x3  SPPF(1024, 5)
    head      Conv(512, 1, 1)  up  cat(P4)  C3(512, no shortcut) x3  Conv(256, 1, 1)  up
              cat(P3)  C3(256) x3 -> P3  Conv(256, 3, 2)  cat(14)  C3(512) x3 -> P4
              Conv(512, 3, 2)  cat(10)  C3(1024) x3 -> P5  Detect(P3, P4, P5)

Conv is convolution (no bias) + BatchNorm (eps 1e-3) + SiLU; repeats are ``max(round(n *
depth), 1)`` and channels ``ceil(c * width / 8) * 8``. Detect has 3 anchors per level
(strides 8, 16, 32) and returns ``[batch, 3 * sum(h * w), 5 + classes]``: box centre and size
in input pixels, objectness and class probabilities (sigmoid). Module names are ultralytics'
(``model.<i>.conv``, ``.bn``, ``.cv1`` ... ``model.24.m``), so a state dict saved from one of
their models has the same keys.
"""

from __future__ import annotations

import math

import torch
from torch import nn

# size -> (depth multiple, width multiple), the yolov5{n,s,m,l,x}.yaml values
SIZES = {"n": (0.33, 0.25), "s": (0.33, 0.50), "m": (0.67, 0.75), "l": (1.0, 1.0),
         "x": (1.33, 1.25)}
ANCHORS = ((10, 13, 16, 30, 33, 23), (30, 61, 62, 45, 59, 119), (116, 90, 156, 198, 373, 326))
STRIDES = (8, 16, 32)


class Conv(nn.Module):
    def __init__(self, c1: int, c2: int, k: int = 1, s: int = 1, p: int | None = None) -> None:
        super().__init__()
        self.conv = nn.Conv2d(c1, c2, k, s, k // 2 if p is None else p, bias=False)
        self.bn = nn.BatchNorm2d(c2, eps=1e-3, momentum=0.03)
        self.act = nn.SiLU()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.act(self.bn(self.conv(x)))


class Bottleneck(nn.Module):
    def __init__(self, c1: int, c2: int, shortcut: bool = True) -> None:
        super().__init__()
        self.cv1, self.cv2 = Conv(c1, c2, 1, 1), Conv(c2, c2, 3, 1)
        self.add = shortcut and c1 == c2

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.cv2(self.cv1(x))
        return x + y if self.add else y


class C3(nn.Module):
    """CSP bottleneck with three convolutions."""

    def __init__(self, c1: int, c2: int, n: int = 1, shortcut: bool = True) -> None:
        super().__init__()
        c_ = c2 // 2
        self.cv1, self.cv2, self.cv3 = Conv(c1, c_, 1, 1), Conv(c1, c_, 1, 1), Conv(2 * c_, c2, 1)
        self.m = nn.Sequential(*(Bottleneck(c_, c_, shortcut) for _ in range(n)))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.cv3(torch.cat((self.m(self.cv1(x)), self.cv2(x)), 1))


class SPPF(nn.Module):
    """Spatial pyramid pooling, fast: three chained 5 x 5 max pools."""

    def __init__(self, c1: int, c2: int, k: int = 5) -> None:
        super().__init__()
        c_ = c1 // 2
        self.cv1, self.cv2 = Conv(c1, c_, 1, 1), Conv(c_ * 4, c2, 1, 1)
        self.m = nn.MaxPool2d(kernel_size=k, stride=1, padding=k // 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.cv1(x)
        y1 = self.m(x)
        y2 = self.m(y1)
        return self.cv2(torch.cat((x, y1, y2, self.m(y2)), 1))


class Concat(nn.Module):
    def forward(self, xs: list[torch.Tensor]) -> torch.Tensor:
        return torch.cat(xs, 1)


class Detect(nn.Module):
    def __init__(self, nc: int, channels: tuple[int, ...]) -> None:
        super().__init__()
        self.nc, self.no, self.na = nc, nc + 5, 3
        self.register_buffer("anchors", torch.tensor(ANCHORS, dtype=torch.float32).view(3, 3, 2)
                             / torch.tensor(STRIDES, dtype=torch.float32).view(3, 1, 1))
        self.m = nn.ModuleList(nn.Conv2d(c, self.no * self.na, 1) for c in channels)
        for conv, stride in zip(self.m, STRIDES):   # YOLOv5's prior: ~8 objects per 640 image
            assert isinstance(conv, nn.Conv2d) and conv.bias is not None
            bias = conv.bias.data.view(self.na, -1)
            bias[:, 4] += math.log(8 / (640 / stride) ** 2)
            bias[:, 5:] += math.log(0.6 / (nc - 0.99)) if nc > 1 else 0.0

    def forward(self, features: list[torch.Tensor]) -> torch.Tensor:
        out = []
        for i, (conv, x) in enumerate(zip(self.m, features)):
            bs, _, ny, nx = x.shape
            y = conv(x).view(bs, self.na, self.no, ny, nx).permute(0, 1, 3, 4, 2).sigmoid()
            gy, gx = torch.meshgrid(torch.arange(ny, device=x.device, dtype=y.dtype),
                                    torch.arange(nx, device=x.device, dtype=y.dtype),
                                    indexing="ij")
            grid = torch.stack((gx, gy), 2).view(1, 1, ny, nx, 2) - 0.5
            anchors: torch.Tensor = self.anchors   # type: ignore[assignment]  # a buffer
            anchor = (anchors[i] * STRIDES[i]).to(y.dtype).view(1, self.na, 1, 1, 2)
            xy = (y[..., :2] * 2 + grid) * STRIDES[i]
            wh = (y[..., 2:4] * 2) ** 2 * anchor
            out.append(torch.cat((xy, wh, y[..., 4:]), 4).view(bs, -1, self.no))
        return torch.cat(out, 1)


# (from, repeats, module, args) per layer of the yolov5*.yaml table; channels before scaling
LAYERS: tuple[tuple, ...] = (
    (-1, 1, Conv, (64, 6, 2, 2)), (-1, 1, Conv, (128, 3, 2)), (-1, 3, C3, (128,)),
    (-1, 1, Conv, (256, 3, 2)), (-1, 6, C3, (256,)), (-1, 1, Conv, (512, 3, 2)),
    (-1, 9, C3, (512,)), (-1, 1, Conv, (1024, 3, 2)), (-1, 3, C3, (1024,)),
    (-1, 1, SPPF, (1024, 5)),
    (-1, 1, Conv, (512, 1, 1)), (-1, 1, nn.Upsample, (None, 2, "nearest")), ((-1, 6), 1, Concat, ()),
    (-1, 3, C3, (512, False)), (-1, 1, Conv, (256, 1, 1)), (-1, 1, nn.Upsample, (None, 2, "nearest")),
    ((-1, 4), 1, Concat, ()), (-1, 3, C3, (256, False)), (-1, 1, Conv, (256, 3, 2)),
    ((-1, 14), 1, Concat, ()), (-1, 3, C3, (512, False)), (-1, 1, Conv, (512, 3, 2)),
    ((-1, 10), 1, Concat, ()), (-1, 3, C3, (1024, False)), ((17, 20, 23), 1, Detect, ()),
)


def scaled(channels: int, width: float) -> int:
    return math.ceil(channels * width / 8) * 8


class YOLOv5(nn.Module):
    """``images [batch, 3, H, W] in [0, 1]`` (H, W multiples of 32) -> detections
    ``[batch, 3 * (H W / 64 + H W / 256 + H W / 1024), 5 + classes]``."""

    def __init__(self, size: str = "l", num_classes: int = 80) -> None:
        super().__init__()
        depth, width = SIZES[size]
        channels: list[int] = [3]
        layers: list[nn.Module] = []
        self.sources: list[int | tuple[int, ...]] = []
        for source, repeats, kind, args in LAYERS:
            module, out = build_layer(kind, source, repeats, args, channels, depth, width,
                                      num_classes)
            layers.append(module)
            self.sources.append(source)
            channels.append(out)
        self.model = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        kept: list[torch.Tensor] = []
        for module, source in zip(self.model, self.sources):
            if isinstance(source, tuple):
                x = module([x if s == -1 else kept[s] for s in source])
            else:
                x = module(x)
            kept.append(x)
        return x


def build_layer(kind: type, source: int | tuple[int, ...], repeats: int, args: tuple,
                channels: list[int], depth: float, width: float, nc: int) -> tuple[nn.Module, int]:
    """One row of the table: (module, its output channels); ``channels[1 + i]`` is layer i's."""
    def of(s: int) -> int:
        return channels[-1] if s == -1 else channels[1 + s]

    n = max(round(repeats * depth), 1) if repeats > 1 else repeats
    if kind is Conv:
        c2 = scaled(args[0], width)
        return Conv(of(-1), c2, *args[1:]), c2
    if kind is C3:
        c2 = scaled(args[0], width)
        return C3(of(-1), c2, n, *args[1:]), c2
    if kind is SPPF:
        c2 = scaled(args[0], width)
        return SPPF(of(-1), c2, args[1]), c2
    if kind is Concat:
        assert isinstance(source, tuple)
        return Concat(), sum(of(s) for s in source)
    if kind is Detect:
        assert isinstance(source, tuple)
        return Detect(nc, tuple(of(s) for s in source)), 0
    return nn.Upsample(scale_factor=args[1], mode=args[2]), of(-1)
