"""chipperf_runtime.models.tvision.roi_align_fallback: RoIAlign as torchvision's compiled CPU kernel
computes it, forward and input gradient.

References: ``loop_roi_align``, the C++ kernel's rule transliterated to Python loops (small
cases, out-of-map samples included), everywhere; torchvision's own pure-torch ``_roi_align``
(uncompiled) for RoIs inside the map (outside it, that code clamps where the C++ kernel
counts zero, so the two differ there by design); torchvision's compiled ``roi_align``
wherever its extension loads (``python -m pytest tests/runtime/test_roi_align.py`` in a venv with
torch 2.14.1 + torchvision 0.29.1 from PyPI).
"""

from __future__ import annotations

import importlib
import math

import pytest

torch = pytest.importorskip("torch")
torchvision = pytest.importorskip("torchvision")

from chipperf_runtime.models.tvision import roi_align_fallback  # noqa: E402

CONFIGS = [(scale, out, ratio, aligned) for scale in (1.0, 0.25) for out in (2, 7)
           for ratio in (1, 2, 0) for aligned in (False, True)]     # 0: adaptive


def loop_roi_align(input, rois, scale, pooled, ratio, aligned):
    """The C++ CPU kernel's arithmetic, one sample at a time (ratio <= 0: adaptive, per RoI
    ceil(height / pooled) samples down each bin and ceil(width / pooled) across)."""
    _, channels, height, width = input.shape
    out = torch.zeros(rois.shape[0], channels, pooled, pooled, dtype=torch.float64)
    offset = 0.5 if aligned else 0.0
    for k, (b, x1, y1, x2, y2) in enumerate(rois.tolist()):
        x1, y1, x2, y2 = (v * scale - offset for v in (x1, y1, x2, y2))
        w, h = x2 - x1, y2 - y1
        if not aligned:
            w, h = max(w, 1.0), max(h, 1.0)
        down, across = (ratio, ratio) if ratio > 0 else (math.ceil(h / pooled), math.ceil(w / pooled))
        for c in range(channels):
            plane = input[int(b), c].double()
            for py in range(pooled):
                for px in range(pooled):
                    total = 0.0
                    for iy in range(down):
                        for ix in range(across):
                            y = y1 + py * h / pooled + (iy + 0.5) * h / pooled / down
                            x = x1 + px * w / pooled + (ix + 0.5) * w / pooled / across
                            if y < -1 or y > height or x < -1 or x > width:
                                continue
                            y, x = min(max(y, 0.0), height - 1), min(max(x, 0.0), width - 1)
                            y0, x0 = int(math.floor(y)), int(math.floor(x))
                            y_1, x_1 = min(y0 + 1, height - 1), min(x0 + 1, width - 1)
                            ly, lx = y - y0, x - x0
                            total += float((1 - ly) * (1 - lx) * plane[y0, x0]
                                           + (1 - ly) * lx * plane[y0, x_1]
                                           + ly * (1 - lx) * plane[y_1, x0]
                                           + ly * lx * plane[y_1, x_1])
                    out[k, c, py, px] = total / max(down * across, 1)
    return out.float()


def compiled():
    return torch.ops.torchvision.roi_align if torchvision.extension._has_ops() else None


def torchvision_eager():
    own = importlib.import_module("torchvision.ops.roi_align")._roi_align
    if own is roi_align_fallback:   # bound in its place: torchvision's is kept aside
        from chipperf_runtime.models.tvision import _torchvision_roi_align
        own = _torchvision_roi_align[0]
    return getattr(own, "__wrapped__", own)


def random_rois(k: int, images: int, extent: float, seed: int, inside: bool):
    g = torch.Generator().manual_seed(seed)
    if inside:
        corner = torch.rand(k, 2, generator=g) * extent * 0.6
        size = torch.rand(k, 2, generator=g) * extent * 0.35 + 1
    else:
        corner = torch.rand(k, 2, generator=g) * extent * 1.4 - extent * 0.3
        size = torch.rand(k, 2, generator=g) * extent * 0.8
    index = torch.randint(0, images, (k, 1), generator=g).float()
    return torch.cat([index, corner, corner + size], dim=1)


@pytest.mark.parametrize("scale,out,ratio,aligned", CONFIGS)
def test_small_cases_match_the_kernels_rule_and_the_compiled_op(scale, out, ratio, aligned) -> None:
    x = torch.rand(2, 2, 6, 9, generator=torch.Generator().manual_seed(1))
    rois = random_rois(5, 2, 9 / scale, seed=2, inside=False)
    got = roi_align_fallback(x, rois, scale, out, out, ratio, aligned)
    torch.testing.assert_close(got, loop_roi_align(x, rois, scale, out, ratio, aligned),
                               rtol=1e-5, atol=1e-5)
    if compiled() is not None:
        torch.testing.assert_close(got, compiled()(x, rois, scale, out, out, ratio, aligned),
                                   rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("inside", [True, False])
def test_a_box_heads_worth_forward_and_gradient(inside: bool) -> None:
    """512 RoIs over 8 images of 64 channels at 16 x 16, 7 x 7 bins, 2 x 2 samples (Faster
    R-CNN's MultiScaleRoIAlign at the CI size): outputs and the input's gradient."""
    x = torch.rand(8, 64, 16, 16, generator=torch.Generator().manual_seed(3))
    rois = random_rois(512, 8, 64.0, seed=4, inside=inside)
    weights = torch.rand(512, 64, 7, 7, generator=torch.Generator().manual_seed(5))
    references = [compiled()] if compiled() is not None else []
    if inside:
        references.append(torchvision_eager())
    mine = x.clone().requires_grad_()
    got = roi_align_fallback(mine, rois, 0.25, 7, 7, 2, False)
    (got * weights).sum().backward()
    for reference in references:
        theirs = x.clone().requires_grad_()
        expected = reference(theirs, rois, 0.25, 7, 7, 2, False)
        (expected * weights).sum().backward()
        torch.testing.assert_close(got, expected, rtol=1e-5, atol=1e-5)
        torch.testing.assert_close(mine.grad, theirs.grad, rtol=1e-4, atol=1e-4)


def test_torchvision_roi_align_takes_the_fallback_where_the_extension_did_not_load() -> None:
    """Once a case asks for the fallbacks (explicitly: ``use_operator_fallbacks()``)."""
    from torchvision.ops import MultiScaleRoIAlign, roi_align

    from chipperf_runtime.models.tvision import use_operator_fallbacks

    use_operator_fallbacks()
    bound = importlib.import_module("torchvision.ops.roi_align")._roi_align
    if torchvision.extension._has_ops():
        assert bound is not roi_align_fallback
    else:
        assert bound is roi_align_fallback
    x = torch.rand(1, 3, 8, 8)
    boxes = [torch.tensor([[1.0, 1.0, 6.0, 6.0]])]
    assert roi_align(x, boxes, 2, 1.0, 2).shape == (1, 3, 2, 2)
    pool = MultiScaleRoIAlign(["0"], 7, 2)
    assert pool({"0": x}, boxes, [(8, 8)]).shape == (1, 3, 7, 7)


def test_no_rois() -> None:
    assert roi_align_fallback(torch.rand(1, 3, 8, 8), torch.zeros(0, 5), 1.0, 7, 7, 2,
                              False).shape == (0, 3, 7, 7)
