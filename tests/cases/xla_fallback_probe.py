"""One step of the image-classification loop on torch_xla's device with a model that calls an
op torch_xla does not lower (``torch.median``: it runs on the CPU in eager PyTorch), under the
case entry's guard (``run_case``). The loop's step boundary must stop it with one message naming
the op (exit 2, ``chipperf case error: ...``); "no fallback was seen" and exit 0 would mean the
check let a partly non-XLA step through. Run by tests/cases/test_resnet50_torch_xla.py inside
the cpu pytorch_xla_2.9 image (CHIPPERF_DEVICE=xla, PJRT_DEVICE=CPU)."""

from __future__ import annotations

import torch
from torch import nn

from chipperf_runtime.device.torch import open_torch_device
from chipperf_runtime.training.driver import run_case
from chipperf_runtime.training.driver.torchxla import step_boundary
from chipperf_runtime.training.imagecls.train import Loop, train_step


class MedianCentred(nn.Module):
    """A linear classifier of inputs centred on their median (an op left out of XLA)."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(16, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x - x.median())


def main() -> None:
    device = open_torch_device(0)
    net = MedianCentred().to(device.device)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    loop = Loop(net, opt, torch.optim.lr_scheduler.LambdaLR(opt, lambda step: 1.0),
                nn.CrossEntropyLoss(), [], [], device.device, "fp32", False,
                boundary=step_boundary(device))
    images = torch.randn(8, 16).to(device.device)
    labels = torch.randint(0, 4, (8,)).to(device.device)
    train_step(loop, images, labels)
    print("no fallback was seen")


if __name__ == "__main__":
    run_case(main)
