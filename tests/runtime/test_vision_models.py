"""The vision cases built by torchvision through imagecls.models: case.yaml's full-size numbers
are the built model's, the published parameter counts hold, and the FLOP counter agrees with
resnet50's analytic one."""

from __future__ import annotations

from types import ModuleType

import pytest
import yaml
from casemodules import BENCHMARKS, load_case_module

# published sizes: timm/torchvision's vit_base_patch16_224, mobilenet_v2, efficientnet_v2_s,
# swin_t model cards; bigtransfer: FlagPerf's own BiT-M-R152x2, ResNetV2([3, 8, 36, 3], 2, 1000)
# (its model/models.py built on the meta device; timm's card: 236.3 M)
PUBLISHED_PARAMS = {"vit": 86_567_656, "mobilenetv2": 3_504_872, "efficientnet": 21_458_488,
                    "swin_transformer": 28_288_354, "bigtransfer": 236_335_208}


def entry(case: str) -> ModuleType:
    return load_case_module(f"{case}/pytorch", "run_pretraining", f"vision_models_{case}")


@pytest.mark.parametrize("case", sorted(PUBLISHED_PARAMS))
def test_case_yaml_holds_the_full_size_model_built_on_meta(case: str) -> None:
    import torch

    from chipperf_runtime.training.imagecls.models import count_forward_flops

    module = entry(case)
    full = module.FULL_SIZE
    with torch.device("meta"):
        net = module.PRESETS[full["model_size"]](full["classes"], full["image_size"])
    params = sum(p.numel() for p in net.parameters())
    meta = yaml.safe_load((BENCHMARKS / case / "pytorch" / "case.yaml").read_text())
    assert meta["work_unit"] == "samples"
    assert meta["full_size"] == {
        "params": params, "flops_per_unit": 3 * count_forward_flops(net, full["image_size"])}
    assert params == PUBLISHED_PARAMS[case]


def test_flop_counter_matches_resnet50s_analytic_count() -> None:
    """The counter the vision cases use gives resnet50's hand-derived 2 x 4,089,184,256."""
    import torch

    from chipperf_runtime.models.resnet import flops_per_sample, resnet50
    from chipperf_runtime.training.imagecls.models import count_forward_flops

    with torch.device("meta"):
        net = resnet50(1000)
    assert count_forward_flops(net, 224) == flops_per_sample(net, 224).forward == 8_178_368_512


def test_an_unknown_model_size_is_refused_with_the_choices() -> None:
    from chipperf_runtime.training.driver import ConfigError
    from chipperf_runtime.training.imagecls.models import preset_of

    class Cfg:
        model_size = "huge"

    with pytest.raises(ConfigError, match=r"model_size 'huge' is unknown: use one of \['base', 'tiny'\]"):
        preset_of(Cfg(), entry("vit").PRESETS)  # type: ignore[arg-type]
