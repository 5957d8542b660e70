"""resnet50 / PyTorch model: torchvision-equivalent shape, parameter count, analytic FLOPs."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
import torch

CASE = Path(__file__).resolve().parents[2] / "training" / "benchmarks" / "resnet50" / "pytorch"


def load(name: str):
    """The case's module by path, under a unique name (other cases also have a model.py)."""
    key = f"chipperf_case_resnet50_pytorch_{name}"
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(key, CASE / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[key] = module
        spec.loader.exec_module(module)
    return sys.modules[key]


model = load("model")


def meta_resnet(classes: int = 1000):
    with torch.device("meta"):
        return model.ResNet50(classes)


def test_imagenet_model_has_torchvisions_parameter_count() -> None:
    net = meta_resnet()
    assert sum(p.numel() for p in net.parameters()) == 25_557_032
    assert all(p.device.type == "meta" for p in net.parameters())


def test_layout_matches_torchvision_names() -> None:
    names = {n for n, _ in meta_resnet().named_parameters()}
    for expected in ("conv1.weight", "bn1.weight", "layer1.0.downsample.0.weight",
                     "layer3.5.conv3.weight", "layer4.2.bn3.bias", "fc.weight", "fc.bias"):
        assert expected in names
    assert [len(layer) for layer in meta_resnet().layers()] == [3, 4, 6, 3]
    assert meta_resnet(10).fc.out_features == 10


def measured_macs(net, size: int) -> int:
    """MACs from the output shapes a real (meta-device) forward produces."""
    total = 0

    def conv_hook(m, inputs, out):
        nonlocal total
        kh, kw = m.kernel_size
        total += out.numel() * kh * kw * m.in_channels // m.groups

    def fc_hook(m, inputs, out):
        nonlocal total
        total += out.numel() * m.in_features

    for m in net.modules():
        if isinstance(m, torch.nn.Conv2d):
            m.register_forward_hook(conv_hook)
        elif isinstance(m, torch.nn.Linear):
            m.register_forward_hook(fc_hook)
    net.eval()(torch.empty(1, 3, size, size, device="meta"))
    return total


@pytest.mark.parametrize("size", [224, 32, 17])
def test_analytic_macs_match_a_measured_forward(size: int) -> None:
    net = meta_resnet()
    assert net.forward_macs(size, size) == measured_macs(net, size)


def test_imagenet_flops_are_the_known_figure() -> None:
    flops = model.flops_per_sample(meta_resnet(), 224)
    assert flops.forward_macs == 4_089_184_256          # ~4.1 GMACs, torchvision's "4.09 GFLOPS"
    assert flops.forward == 2 * flops.forward_macs      # ~8.2 GFLOPs
    assert flops.training == 3 * flops.forward          # forward + backward (2x forward)


def test_forward_shape_and_zero_init_residual() -> None:
    torch.manual_seed(0)
    net = model.ResNet50(10).eval()
    assert net(torch.randn(2, 3, 32, 32)).shape == (2, 10)
    assert all(int(torch.count_nonzero(b.bn3.weight.detach())) == 0 for layer in net.layers() for b in layer)
