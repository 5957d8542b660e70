"""What tests/cases/test_detection_pytorch.py asks of the detection code, in a fresh python
(torchvision prepared and its operator fallbacks asked for explicitly, as the case does;
pycocotools). Prints one JSON object.

    python3 detection_probe.py full-size [ARCH ...]   the full-size models (all, or the ARCHs):
                                             parameters, training FLOPs
    python3 detection_probe.py box-map       COCO mAP of hand-made detections
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(REPO)]

# first, explicitly, as the detection case does: torchvision's import and its nms/roi_align
# beside a CPU torch (chipperf_runtime.models.tvision)
from chipperf_runtime.models.tvision import prepare_torchvision, use_operator_fallbacks  # noqa: E402

prepare_torchvision()
use_operator_fallbacks()

# isort: split
import torch  # noqa: E402

from chipperf_runtime.training.detection import models  # noqa: E402
from chipperf_runtime.training.detection.cocomap import box_map, coco_results  # noqa: E402

TORCHVISION_FULL = {"backbone": "resnet50", "fpn_channels": 256}


def torchvision_sizes(arch: str, net: torch.nn.Module) -> dict:
    """The case's torchvision detector against torchvision's own builder with weights=None,
    weights_backbone=None: its parameters, the same state-dict shapes, trainable BatchNorm."""
    from torchvision.models import detection as tvd

    reference = {"retinanet": tvd.retinanet_resnet50_fpn, "faster_rcnn": tvd.fasterrcnn_resnet50_fpn,
                 "mask_rcnn": tvd.maskrcnn_resnet50_fpn}[arch]
    with torch.device("meta"):
        theirs = reference(weights=None, weights_backbone=None)
    return {"torchvision_params": sum(p.numel() for p in theirs.parameters()),
            "same_state_dict": {k: list(v.shape) for k, v in net.state_dict().items()}
            == {k: list(v.shape) for k, v in theirs.state_dict().items()},
            "batchnorm_params": sum(p.numel() for m in net.modules()
                                    if isinstance(m, torch.nn.BatchNorm2d) for p in m.parameters())}


def full_size(*archs: str) -> dict:
    """Per arch (default: all): the case's builder at full size (parameters, those trained,
    and, for torchvision's detectors, ``torchvision_sizes``) and forward + backward FLOPs at
    min_size 800 (a 800 x 1067 image)."""
    torch.set_num_threads(max(1, torch.get_num_threads()))
    out = {}
    for arch in archs or tuple(models.ARCHS):
        torch.manual_seed(0)
        preset = {"resnet": {}, "detr": {}} if arch == "detr" else TORCHVISION_FULL
        net = models.ARCHS[arch](preset, 91, 800, 1333)
        out[arch] = {
            "params": sum(p.numel() for p in net.parameters()),
            "trained_params": sum(p.numel() for p in net.parameters() if p.requires_grad),
            **({} if arch == "detr" else torchvision_sizes(arch, net)),
            "flops_per_unit": models.train_flops_per_sample(net, 800, torch.device("cpu")),
        }
    return out


def truth_file(folder: Path) -> Path:
    """Two 100 x 100 images; image 1 has a category-1 box, image 2 a category-2 box."""
    doc = {"images": [{"id": i, "file_name": f"{i}.png", "width": 100, "height": 100} for i in (1, 2)],
           "annotations": [{"id": i, "image_id": i, "category_id": i, "bbox": box, "iscrowd": 0,
                            "area": box[2] * box[3]} for i, box in ((1, [10, 10, 40, 40]),
                                                                    (2, [50, 20, 30, 60]))],
           "categories": [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}]}
    path = folder / "instances_val2017.json"
    path.write_text(json.dumps(doc))
    return path


def outputs(boxes: list[list[float]], labels: list[int]) -> dict[str, torch.Tensor]:
    return {"boxes": torch.tensor(boxes, dtype=torch.float32).reshape(-1, 4),
            "scores": torch.full((len(labels),), 0.9), "labels": torch.tensor(labels)}


def box_maps() -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        truth = truth_file(Path(tmp))
        first, second = [[10, 10, 50, 50]], [[50, 20, 80, 80]]
        exact = coco_results([1, 2], [outputs(first, [1]), outputs(second, [2])])
        wrong_class = coco_results([1, 2], [outputs(first, [2]), outputs(second, [1])])
        one_found = coco_results([1, 2], [outputs(first, [1]), outputs([], [])])
        return {"exact_results": exact,
                "exact": box_map(truth, exact, [1, 2]),
                "wrong_class": box_map(truth, wrong_class, [1, 2]),
                "one_of_two": box_map(truth, one_found, [1, 2]),
                "none": box_map(truth, [], [1, 2])}


if __name__ == "__main__":
    print(json.dumps({"full-size": full_size, "box-map": box_maps}[sys.argv[1]](*sys.argv[2:])))
