"""The tree's one ResNet-50 (chipperf_runtime.models.resnet: torchvision's, built by the resnet50
training and inference cases): state-dict names and shapes, parameter count, analytic FLOPs."""

from __future__ import annotations

import pytest
import torch

from chipperf_runtime.models import resnet as model

BN = ("weight", "bias", "running_mean", "running_var", "num_batches_tracked")


def meta_resnet(classes: int = 1000):
    with torch.device("meta"):
        return model.resnet50(classes)


def test_imagenet_model_has_torchvisions_parameter_count() -> None:
    net = meta_resnet()
    assert sum(p.numel() for p in net.parameters()) == 25_557_032
    assert all(p.device.type == "meta" for p in net.parameters())


def torchvision_keys() -> list[str]:
    """``torchvision.models.resnet50().state_dict()``'s keys, in order, from its layout: stem,
    four stages of (3, 4, 6, 3) bottlenecks (downsample in each stage's first block), fc."""
    keys = ["conv1.weight", *(f"bn1.{b}" for b in BN)]
    for stage, blocks in enumerate((3, 4, 6, 3), start=1):
        for block in range(blocks):
            prefix = f"layer{stage}.{block}"
            for i in (1, 2, 3):
                keys += [f"{prefix}.conv{i}.weight", *(f"{prefix}.bn{i}.{b}" for b in BN)]
            if block == 0:
                keys += [f"{prefix}.downsample.0.weight",
                         *(f"{prefix}.downsample.1.{b}" for b in BN)]
    return [*keys, "fc.weight", "fc.bias"]


def test_state_dict_has_torchvisions_names_in_its_order() -> None:
    state = meta_resnet().state_dict()
    assert list(state) == torchvision_keys()
    assert len(state) == 320          # 161 parameters + 159 BatchNorm buffers
    assert [len(layer) for layer in model.layers(meta_resnet())] == [3, 4, 6, 3]
    assert meta_resnet(10).fc.out_features == 10


@pytest.mark.parametrize("key,shape", [
    ("conv1.weight", (64, 3, 7, 7)),
    ("layer1.0.downsample.0.weight", (256, 64, 1, 1)),
    ("layer2.0.conv1.weight", (128, 256, 1, 1)),
    ("layer2.0.conv2.weight", (128, 128, 3, 3)),
    ("layer3.5.conv3.weight", (1024, 256, 1, 1)),
    ("layer4.2.bn3.running_var", (2048,)),
    ("fc.weight", (1000, 2048)),
])
def test_shapes_match_torchvision(key: str, shape: tuple[int, ...]) -> None:
    assert tuple(meta_resnet().state_dict()[key].shape) == shape


def test_v1_5_strides_on_the_3x3_conv() -> None:
    block = meta_resnet().layer2[0]
    assert (block.conv1.stride, block.conv2.stride) == ((1, 1), (2, 2))
    assert block.downsample[0].stride == (2, 2)


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
    assert model.forward_macs(net, size, size) == measured_macs(net, size)


def test_imagenet_flops_are_the_known_figure() -> None:
    flops = model.flops_per_sample(meta_resnet(), 224)
    assert flops.forward_macs == 4_089_184_256          # ~4.1 GMACs, torchvision's "4.09 GFLOPS"
    assert flops.forward == 2 * flops.forward_macs      # ~8.2 GFLOPs
    assert flops.training == 3 * flops.forward          # forward + backward (2x forward)


def test_forward_shape_and_zero_init_residual() -> None:
    torch.manual_seed(0)
    net = model.resnet50(10).eval()
    assert net(torch.randn(2, 3, 32, 32)).shape == (2, 10)
    assert all(int(torch.count_nonzero(b.bn3.weight.detach())) == 0
               for layer in model.layers(net) for b in layer)


def test_torchvision_initialisation_without_zero_init_residual() -> None:
    """What the inference case builds: every BatchNorm starts at weight 1, bias 0."""
    net = model.resnet50(10, zero_init_residual=False)
    norms = [m for m in net.modules() if isinstance(m, torch.nn.BatchNorm2d)]
    assert len(norms) == 53
    assert all(bool((m.weight == 1).all()) and bool((m.bias == 0).all()) for m in norms)


def test_it_is_torchvisions_model_with_the_momentum_given() -> None:
    net = model.resnet50(10, bn_momentum=0.01)
    assert type(net) is model.tv_resnet.ResNet
    assert {m.momentum for m in net.modules() if isinstance(m, torch.nn.BatchNorm2d)} == {0.01}
