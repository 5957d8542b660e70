"""mask_rcnn and detr at full size, built on the meta device from their cases' presets:
case.yaml's parameter counts are the built models', and the published counts hold.

(Their training FLOPs in case.yaml are counted on real tensors by
``python tests/cases/detection_probe.py full-size mask_rcnn detr``, too slow for CI; retinanet
and faster_rcnn's are checked that way by tests/cases/test_detection_pytorch.py.)
"""

from __future__ import annotations

import pytest
import yaml
from casemodules import BENCHMARKS, load_case_module

pytest.importorskip("torchvision")
pytest.importorskip("transformers")

# torchvision's maskrcnn_resnet50_fpn as published (its frozen BatchNorm holds no parameters)
MASK_RCNN_PUBLISHED = 44_401_393
# DETR's own count for detr_resnet50 (facebookresearch/detr's main.py prints "number of params:
# 41302368": its trained parameters; the stem and first ResNet stage are frozen)
DETR_PUBLISHED_TRAINED = 41_302_368


def built(case: str) -> tuple[int, int, int]:
    """(parameters, of them trained, of them in trainable BatchNorm) of the full-size model."""
    import torch

    from chipperf_runtime.training.detection.models import ARCHS

    module = load_case_module(f"{case}/pytorch", "run_pretraining", f"detection_full_{case}")
    full = module.FULL_SIZE
    with torch.device("meta"):
        net = ARCHS[case](module.PRESETS[full["model_size"]], full["classes"], full["min_size"], 1333)
    norm = sum(p.numel() for m in net.modules() if isinstance(m, torch.nn.BatchNorm2d)
               for p in m.parameters())
    return (sum(p.numel() for p in net.parameters()),
            sum(p.numel() for p in net.parameters() if p.requires_grad), norm)


def case_yaml_params(case: str) -> int:
    return yaml.safe_load((BENCHMARKS / case / "pytorch" / "case.yaml").read_text())["full_size"]["params"]


def test_mask_rcnn_is_torchvisions_with_trainable_batchnorm() -> None:
    params, trained, norm = built("mask_rcnn")
    assert params == trained == case_yaml_params("mask_rcnn") == 44_454_513
    assert params - norm == MASK_RCNN_PUBLISHED


def test_detr_trains_detrs_published_parameters() -> None:
    params, trained, norm = built("detr")
    assert params == case_yaml_params("detr") == 41_524_768 and norm == 0   # frozen BatchNorm
    assert trained == DETR_PUBLISHED_TRAINED
