"""chipperf_runtime.models.tvision.nms_kernel: the same boxes kept as torchvision's CPU kernel.

Two references: ``loop_nms``, torchvision's C++ CPU kernel transliterated to Python loops
(one box pair at a time, in the boxes' dtype), everywhere; and torchvision's compiled
``torchvision::nms`` itself wherever its extension loads (beside the GPU build of torch:
``python -m pytest tests/runtime/test_nms.py`` in a venv with torch 2.14.1 + torchvision
0.29.1 from PyPI). Cases: random boxes at several densities, equal scores (the stable
order), zero-area and touching boxes, thresholds 0 and 1 and ones that float32 rounds up.
"""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from chipperf_runtime.models.tvision import nms_kernel  # noqa: E402

THRESHOLDS = (0.0, 0.3, 0.5, 0.7, 1.0, 0.1 + 0.2, 2 / 3)


def loop_nms(dets, scores, iou_threshold: float) -> list[int]:
    """torchvision's CPU kernel (nms_kernel.cpp) box pair by box pair, in the boxes' dtype
    (numpy scalars of it)."""
    order = torch.sort(scores, stable=True, descending=True).indices.tolist()
    x1, y1, x2, y2 = (dets[:, k].numpy() for k in range(4))
    areas = (x2 - x1) * (y2 - y1)
    zero = x1.dtype.type(0)
    suppressed = [False] * len(order)
    keep = []
    for at, i in enumerate(order):
        if suppressed[i]:
            continue
        keep.append(i)
        for j in order[at + 1:]:
            if suppressed[j]:
                continue
            w = max(zero, min(x2[i], x2[j]) - max(x1[i], x1[j]))
            h = max(zero, min(y2[i], y2[j]) - max(y1[i], y1[j]))
            inter = w * h
            with np.errstate(invalid="ignore"):     # 0 / 0 for zero-area boxes: NaN, kept
                iou = inter / (areas[i] + areas[j] - inter)
            if float(iou) > iou_threshold:
                suppressed[j] = True
    return keep


def compiled_nms():
    """torchvision's compiled operator where its extension loads here; else None."""
    if importlib.util.find_spec("torchvision") is None:
        return None
    import torchvision

    return torch.ops.torchvision.nms if torchvision.extension._has_ops() else None


def random_boxes(n: int, spread: float, seed: int, dtype=torch.float32, tie_levels: int = 0):
    g = torch.Generator().manual_seed(seed)
    corner = torch.rand(n, 2, generator=g) * spread
    size = torch.rand(n, 2, generator=g) * 20
    dets = torch.cat([corner, corner + size], dim=1).to(dtype)
    scores = torch.rand(n, generator=g)
    if tie_levels:
        scores = torch.floor(scores * tie_levels) / tie_levels
    return dets, scores.to(dtype)


CASES = [(n, spread, seed, dtype, ties) for n in (1, 7, 60, 300) for spread in (10.0, 100.0)
         for seed in (0, 1) for dtype in (torch.float32, torch.float64) for ties in (0, 4)]


@pytest.mark.parametrize("n,spread,seed,dtype,ties", CASES)
def test_random_boxes_keep_what_torchvision_keeps(n, spread, seed, dtype, ties) -> None:
    dets, scores = random_boxes(n, spread, seed, dtype, ties)
    compiled = compiled_nms()
    for threshold in THRESHOLDS:
        kept = nms_kernel(dets, scores, threshold)
        assert kept.dtype == torch.long
        assert kept.tolist() == loop_nms(dets, scores, threshold), threshold
        if compiled is not None:
            assert kept.tolist() == compiled(dets, scores, threshold).tolist(), threshold


def test_zero_area_touching_and_identical_boxes() -> None:
    dets = torch.tensor([[0, 0, 10, 10], [0, 0, 10, 10], [10, 0, 20, 10], [5, 5, 5, 5],
                         [5, 5, 5, 5], [0, 0, 10, 5], [0, 0, 0, 0]], dtype=torch.float32)
    scores = torch.tensor([0.9, 0.9, 0.8, 0.7, 0.7, 0.6, 0.5])
    compiled = compiled_nms()
    for threshold in THRESHOLDS:
        kept = nms_kernel(dets, scores, threshold).tolist()
        assert kept == loop_nms(dets, scores, threshold), threshold
        if compiled is not None:
            assert kept == compiled(dets, scores, threshold).tolist(), threshold
    # the equal-scored twin goes; the touching box (IoU 0), the zero-area boxes (IoU NaN) and
    # the half box (IoU exactly 0.5, not above it) stay
    assert nms_kernel(dets, scores, 0.5).tolist() == [0, 2, 3, 4, 5, 6]


def test_no_boxes_and_bad_shapes() -> None:
    assert nms_kernel(torch.zeros(0, 4), torch.zeros(0), 0.5).tolist() == []
    with pytest.raises(RuntimeError, match=r"boxes must be \[N, 4\], got \[3, 5\]"):
        nms_kernel(torch.zeros(3, 5), torch.zeros(3), 0.5)
    with pytest.raises(RuntimeError, match=r"scores must be \[3\], got \[2\]"):
        nms_kernel(torch.zeros(3, 4), torch.zeros(2), 0.5)
    with pytest.raises(RuntimeError, match="boxes are torch.float64 but scores are torch.float32"):
        nms_kernel(torch.zeros(3, 4, dtype=torch.float64), torch.zeros(3), 0.5)
