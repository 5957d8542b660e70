"""torchvision, imported and able to run its detectors where its compiled ops do not load.

``import_torchvision()`` returns the ``torchvision`` module. Where torchvision's compiled
extension (``torchvision/_C.so``; ``_C_stable.so`` from 0.29) loads, as beside the GPU build
of torch (NGC's images), nothing else happens: the extension defines torchvision's operators
and torchvision imports as it always does. Where it does not load, the function first defines
the schemas of the two operators that torchvision's import needs and a CPU kernel for one of
them (``nms``), then imports it. ``use_operator_fallbacks()``, called by a detection case,
then points ``torchvision.ops.nms`` at that kernel and ``roi_align``'s pure-torch path at
``roi_align_fallback``, and says which implementation runs.

Why: PyPI's torchvision wheels (0.28.0 is the torch 2.13.0 pair) are built for the GPU build
of torch. Beside its CPU build (2.13.0+cpu: the cpu vendor's ``pytorch_2.13`` images, the test
venv) their ``_C.so`` fails to load (it needs the GPU build's libtorch); torchvision handles that
(``torchvision.extension._has_ops()`` is False), but its ``_meta_registrations`` then calls
``torch.library.register_fake("torchvision::nms")`` and ``("torchvision::qnms")``
unguarded, which raise "operator torchvision::nms does not exist", and ``import
torchvision`` fails. With the two schemas defined first, the import succeeds, and so do the
model zoo (``torchvision.models``: resnet50, vit_b_16, swin_t, ... build, train and run on the
CPU) and transforms.

The detectors (``torchvision.models.detection``: the retinanet and faster_rcnn cases) need two
compiled operators besides. ``nms`` (every detector's post-processing, Faster R-CNN's region
proposals) has no pure-torch path in torchvision: ``nms_kernel`` here is torchvision's CPU
kernel written with torch's operators (the same order, IoU and comparison, so the same boxes
are kept: tests/runtime/test_nms.py), registered as the ``torchvision::nms`` CPU kernel.
torchvision's ``nms()`` refuses to call any operator when its extension did not load, so after
the import ``torchvision.ops.nms`` and the name its ``batched_nms`` calls
(``torchvision.ops.boxes.nms``) are bound to ``nms``, the same function without that
refusal. ``roi_align`` (Faster R-CNN's box head) has a pure-torch path of torchvision's own,
which it takes whenever the extension did not load; but that code is compiled by
``torch.compile`` on its first call (the images have no C++ compiler for it) and is slow eager,
so the name it calls (``torchvision.ops.roi_align._roi_align``) is bound to
``roi_align_fallback``: the C++ kernel's arithmetic from ``grid_sample`` and an average pool,
the same outputs and gradients as the compiled operator (tests/runtime/test_roi_align.py), as fast
as it on the CPU. Every other compiled operator (``deform_conv2d``, ``roi_pool``,
``ps_roi_align``, the quantized ones) still raises torchvision's own "Couldn't load custom C++
ops".

transformers imports torchvision whenever it is installed (``transformers.image_utils``,
reached from ``modeling_utils``), so a case process calls ``import_torchvision()`` before
anything imports transformers or torchvision (every case entry script does, first: a test
checks it). That call changes nothing where torchvision's extension loads, and where it does
not it only defines what its import needs; the detectors' operator fallbacks are bound only
by ``use_operator_fallbacks()``, which the detection cases call and record. Nothing here
acts on import.

How the ops are found: torchvision's extension is loaded the way torchvision's own import
loads it (``torch.ops.load_library`` on the installed package's ``_C_stable`` extension
module, from torchvision 0.29, or its ``_C``, before); a second load by torchvision's import
is a no-op. torchvision's files are not
touched. Calling the function again, or after torchvision was imported, returns the module.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Callable

import torch
import torch.nn.functional as F

# torchvision's own schemas of the operators its import registers fake kernels for unguarded
SCHEMAS = {
    "nms": "nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor",
    "qnms": "qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor",
}
# torchvision's compiled operator library, by the names it has had: ``_C_stable`` from 0.29
# (built on libtorch's stable ABI; 0.29.1's wheels have no ``_C``), ``_C`` before. Loading
# the one torchvision will load matters: schemas defined here beside an extension that
# torchvision then loads would be defined twice, which aborts the process.
EXTENSIONS = ("_C_stable", "_C")
# the Library holding the schemas defined here: kept alive, as a collected Library drops them
_defined: list[torch.library.Library] = []
# the Library holding nms_kernel where it is registered
_kernels: list[torch.library.Library] = []
# torchvision's own pure-torch roi_align, where roi_align_fallback took its place
_torchvision_roi_align: list[Callable[..., torch.Tensor]] = []


def import_torchvision() -> ModuleType:
    """The ``torchvision`` module, with the two schemas defined first where its compiled
    ops do not load (see the module's docstring). Nothing of torchvision is rebound: where
    its extension does not load, its detectors still refuse to run until the case asks for
    ``use_operator_fallbacks()``. Idempotent."""
    if importlib.util.find_spec("torchvision") is None:
        raise ModuleNotFoundError(
            f"torchvision is not installed in {sys.executable}: add torchvision==0.28.0 (the "
            "torch 2.13.0 pair) to the image's requirements.txt", name="torchvision")
    prepare()
    return importlib.import_module("torchvision")


def use_operator_fallbacks() -> dict[str, str]:
    """What a case that runs torchvision's detectors calls, explicitly, after
    ``import_torchvision()``: where torchvision's compiled extension did not load, bind
    ``torchvision.ops.nms`` (and the name its ``batched_nms`` calls) to the CPU kernel
    registered here and ``roi_align``'s pure-torch path to ``roi_align_fallback``. A kernel
    that loaded is never replaced. Returns which implementation of each operator runs, for
    the case's SUBMIT_INFO (``operator_implementations``)."""
    torchvision = import_torchvision()
    complete(torchvision)
    return implementations(torchvision)


def implementations(torchvision: ModuleType) -> dict[str, str]:
    """Which code runs ``nms`` and ``roi_align`` in this process."""
    if torchvision.extension._has_ops():
        return {"nms": "torchvision (compiled)", "roi_align": "torchvision (compiled)"}
    roi = importlib.import_module("torchvision.ops.roi_align").__dict__["_roi_align"]
    return {"nms": "chipperf nms_kernel (torchvision's C++ CPU kernel in torch ops)"
            if _kernels else "unavailable (torchvision's compiled ops did not load)",
            "roi_align": "chipperf roi_align_fallback (grid_sample + avg_pool)"
            if roi is roi_align_fallback else "torchvision (pure-torch path)"}


def prepare_torchvision() -> None:
    """What a case entry script calls first, before anything imports transformers or
    torchvision: ``prepare()``; does nothing where torchvision is not installed or its
    compiled ops load."""
    prepare()


def prepare() -> None:
    """Before torchvision's first import: load its compiled ops as its import would, and
    where they do not load, define the two schemas its import needs (and the CPU ``nms``
    kernel for the schema defined here: no other kernel exists to replace). Does nothing
    once torchvision is imported or the operators exist."""
    if "torchvision" in sys.modules or importlib.util.find_spec("torchvision") is None:
        return
    if missing_ops() and not load_compiled_ops(find_extension("torchvision")):
        define_schemas(missing_ops())
        register_nms_kernel()


def complete(torchvision: ModuleType) -> None:
    """Where torchvision's extension did not load and ``nms_kernel`` is the
    ``torchvision::nms`` CPU kernel, bind ``torchvision.ops.nms`` and the name its
    ``batched_nms`` calls to ``nms``, and the pure-torch path of ``roi_align`` to
    ``roi_align_fallback``. Idempotent; does nothing where the extension loaded."""
    if torchvision.extension._has_ops() or not _kernels:
        return
    for name in ("torchvision.ops.boxes", "torchvision.ops"):
        importlib.import_module(name).__dict__["nms"] = nms
    module = importlib.import_module("torchvision.ops.roi_align")
    if module.__dict__["_roi_align"] is not roi_align_fallback:
        _torchvision_roi_align.append(module.__dict__["_roi_align"])
        module.__dict__["_roi_align"] = roi_align_fallback


def missing_ops() -> list[str]:
    """The operators of ``SCHEMAS`` that no library has defined in this process yet."""
    return [name for name in SCHEMAS if not hasattr(torch.ops.torchvision, name)]


def find_extension(package: str, names: tuple[str, ...] = EXTENSIONS) -> Path | None:
    """``package``'s compiled operator library, found without importing the package (as
    torchvision's ``_get_extension_path`` finds it): the first of ``names`` it has; None
    where it has none."""
    spec = importlib.util.find_spec(package)
    if spec is None:
        return None
    loader = (importlib.machinery.ExtensionFileLoader, importlib.machinery.EXTENSION_SUFFIXES)
    for name in names:
        for folder in spec.submodule_search_locations or []:
            found = importlib.machinery.FileFinder(folder, loader).find_spec(f"{package}.{name}")
            if found is not None and found.origin:
                return Path(found.origin)
    return None


def load_compiled_ops(extension: Path | None) -> bool:
    """Load ``extension`` into torch's operator registry as torchvision does; True when it
    loaded and defined every operator of ``SCHEMAS``."""
    if extension is None:
        return False
    try:
        torch.ops.load_library(str(extension))
    except (ImportError, OSError):  # e.g. a GPU build's _C.so beside a CPU torch
        return False
    return not missing_ops()


def define_schemas(names: list[str]) -> None:
    """Define the ``torchvision::<name>`` schemas (no kernels) in one kept-alive Library."""
    if not names:
        return
    library = torch.library.Library("torchvision", "FRAGMENT")
    for name in names:
        library.define(SCHEMAS[name])
    _defined.append(library)


def register_nms_kernel() -> None:
    """Register ``nms_kernel`` as the CPU kernel of the ``torchvision::nms`` schema defined
    here (no other library gave it one). Once per process."""
    if _kernels or not _defined or torch._C._dispatch_has_kernel_for_dispatch_key("torchvision::nms", "CPU"):
        return
    library = torch.library.Library("torchvision", "IMPL", "CPU")
    library.impl("nms", nms_kernel)
    _kernels.append(library)


def nms(boxes: torch.Tensor, scores: torch.Tensor, iou_threshold: float) -> torch.Tensor:
    """``torchvision.ops.nms`` without its refusal to run when the extension did not load:
    the ``torchvision::nms`` operator (``nms_kernel`` on the CPU)."""
    return torch.ops.torchvision.nms(boxes, scores, iou_threshold)


def nms_kernel(dets: torch.Tensor, scores: torch.Tensor, iou_threshold: float) -> torch.Tensor:
    """Non-maximum suppression as torchvision's CPU kernel does it: boxes ``(x1, y1, x2,
    y2)`` taken by descending score (a stable sort: equal scores keep their order); each one
    not yet suppressed is kept and suppresses every later box whose IoU with it is above
    ``iou_threshold``. IoU in the boxes' dtype (intersection over ``area_i + area_j -
    intersection``), compared with the threshold as a double, as the C++ does. Returns the
    kept boxes' indices (int64), highest score first.

    One pass per kept box, each a few vectorised operations over the boxes still in play:
    memory grows with the number of boxes, not its square."""
    torch._check(dets.dim() == 2 and dets.size(1) == 4,
                 lambda: f"nms: boxes must be [N, 4], got {list(dets.shape)}")
    torch._check(scores.dim() == 1 and scores.size(0) == dets.size(0),
                 lambda: f"nms: scores must be [{dets.size(0)}], got {list(scores.shape)}")
    torch._check(dets.dtype == scores.dtype,
                 lambda: f"nms: boxes are {dets.dtype} but scores are {scores.dtype}")
    if dets.numel() == 0:
        return torch.empty(0, dtype=torch.long, device=dets.device)
    order = torch.sort(scores, stable=True, descending=True).indices
    boxes = dets[order]
    areas = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    keep = []
    live = torch.arange(order.numel(), device=dets.device)
    while live.numel():
        first, rest = live[0], live[1:]
        keep.append(first)
        top_left = torch.maximum(boxes[first, :2], boxes[rest, :2])
        bottom_right = torch.minimum(boxes[first, 2:], boxes[rest, 2:])
        sides = (bottom_right - top_left).clamp(min=0)
        inter = sides[:, 0] * sides[:, 1]
        iou = inter / (areas[first] + areas[rest] - inter)
        live = rest[~(iou.double() > iou_threshold)]
    return order[torch.stack(keep)]


def roi_align_fallback(input: torch.Tensor, rois: torch.Tensor, spatial_scale: float,
                       pooled_height: int, pooled_width: int, sampling_ratio: int,
                       aligned: bool) -> torch.Tensor:
    """RoIAlign as torchvision's C++ CPU kernel computes it, from torch's native operators:
    the path ``torchvision.ops.roi_align`` takes when its extension did not load (in place of
    torchvision's own pure-torch ``_roi_align``, which is compiled by ``torch.compile`` on
    its first call, so needs a C++ compiler the images do not have, and eager took 1.5 s per
    forward and backward of a Faster R-CNN box head's 512 RoIs where this takes 0.10 s and
    the compiled operator 0.095 s: /tmp/roi_cmp.py of the session note, one thread; eager,
    Mask R-CNN's 30 mask targets of 28 x 28 from 64 x 64 masks took 100 s on this loaded
    2-core machine).

    ``rois`` is ``[K, 5]`` (image index, x1, y1, x2, y2) in input coordinates. Each output
    bin averages ``sampling_ratio`` x ``sampling_ratio`` bilinear samples at the centres of
    its sub-cells; a sample more than one pixel outside the feature map counts as zero, one
    within clamps to the edge (the C++ kernel's rule). The samples of one image's RoIs are
    one ``grid_sample`` call (bilinear, corners aligned: pixel i at coordinate i), the bins
    an average pool, so autograd runs native kernels both ways. ``sampling_ratio`` <= 0 is
    adaptive, the kernel's rule per RoI: ceil(RoI height / pooled_height) samples down each
    bin and ceil(RoI width / pooled_width) across (Mask R-CNN's mask targets); RoIs with the
    same grid are sampled together."""
    if sampling_ratio > 0 or rois.shape[0] == 0:
        ratio = max(sampling_ratio, 1)
        return _roi_align_grid(input, rois, spatial_scale, pooled_height, pooled_width,
                               (ratio, ratio), aligned)
    grids = _adaptive_grids(rois, spatial_scale, pooled_height, pooled_width, aligned)
    pieces, order = [], []
    for grid in torch.unique(grids, dim=0).tolist():
        picked = (grids == grids.new_tensor(grid)).all(1).nonzero().squeeze(1)
        out = _roi_align_grid(input, rois[picked], spatial_scale, pooled_height, pooled_width,
                              (max(grid[0], 1), max(grid[1], 1)), aligned)
        pieces.append(out if min(grid) > 0 else torch.zeros_like(out))   # no samples: 0
        order.append(picked)
    return torch.cat(pieces)[torch.argsort(torch.cat(order))]


def _roi_extent(rois: torch.Tensor, spatial_scale: float, aligned: bool
                ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """Each RoI's top-left corner, width and height in feature-map pixels (the kernel's)."""
    offset = 0.5 if aligned else 0.0
    x1, y1, x2, y2 = (rois[:, k] * spatial_scale - offset for k in range(1, 5))
    roi_w, roi_h = x2 - x1, y2 - y1
    if not aligned:
        roi_w, roi_h = roi_w.clamp(min=1.0), roi_h.clamp(min=1.0)
    return x1, y1, roi_w, roi_h


def _adaptive_grids(rois: torch.Tensor, spatial_scale: float, pooled_height: int,
                    pooled_width: int, aligned: bool) -> torch.Tensor:
    """[K, 2]: samples down and across each bin when sampling_ratio <= 0 (the kernel's ceil)."""
    _, _, roi_w, roi_h = _roi_extent(rois, spatial_scale, aligned)
    return torch.stack([torch.ceil(roi_h / pooled_height), torch.ceil(roi_w / pooled_width)],
                       dim=1).long()


def _roi_align_grid(input: torch.Tensor, rois: torch.Tensor, spatial_scale: float,
                    pooled_height: int, pooled_width: int, ratio: tuple[int, int],
                    aligned: bool) -> torch.Tensor:
    """RoIAlign with ``ratio`` (down, across) samples per bin for every RoI."""
    _, channels, height, width = input.shape
    x1, y1, roi_w, roi_h = _roi_extent(rois, spatial_scale, aligned)
    rows, cols = pooled_height * ratio[0], pooled_width * ratio[1]
    row_at = (torch.arange(rows, dtype=input.dtype, device=input.device) + 0.5) / rows
    col_at = (torch.arange(cols, dtype=input.dtype, device=input.device) + 0.5) / cols
    ys = y1[:, None] + roi_h[:, None] * row_at          # [K, rows]
    xs = x1[:, None] + roi_w[:, None] * col_at          # [K, cols]
    inside = (((ys >= -1) & (ys <= height))[:, :, None]
              & ((xs >= -1) & (xs <= width))[:, None, :])  # [K, rows, cols]
    gy = _to_grid(ys.clamp(0, height - 1), height)
    gx = _to_grid(xs.clamp(0, width - 1), width)
    image_of = rois[:, 0].long()
    pieces, order = [], []
    for image in torch.unique(image_of).tolist():
        picked = (image_of == image).nonzero().squeeze(1)
        grid = torch.stack(torch.broadcast_tensors(gx[picked][:, None, :], gy[picked][:, :, None]), -1)
        samples = F.grid_sample(input[image:image + 1], grid.reshape(1, -1, cols, 2),
                                mode="bilinear", padding_mode="border", align_corners=True)
        samples = samples.reshape(channels, picked.numel(), rows, cols).transpose(0, 1)
        samples = samples * inside[picked][:, None].to(input.dtype)
        pieces.append(F.avg_pool2d(samples, ratio))
        order.append(picked)
    if not pieces:
        return input.new_zeros(0, channels, pooled_height, pooled_width)
    out = torch.cat(pieces)
    return out[torch.argsort(torch.cat(order))]


def _to_grid(pixel: torch.Tensor, size: int) -> torch.Tensor:
    """Pixel coordinates (pixel i at i) as grid_sample's [-1, 1] with corners aligned."""
    return pixel * (2 / (size - 1)) - 1 if size > 1 else torch.zeros_like(pixel)
