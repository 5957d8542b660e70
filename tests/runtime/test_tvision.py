"""chipperf_runtime.models.tvision: torchvision imported whether or not its compiled ops load.

The import itself is process-wide state, so those tests run a fresh python each. They need
torchvision installed (``torchvision==0.28.0``, the torch 2.13.0 pair) and are skipped
without it; the pieces that decide (finding and loading the extension, defining schemas)
are tested on stand-ins and need only torch.
"""

from __future__ import annotations

import ast
import importlib.machinery
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
needs_torchvision = pytest.mark.skipif(importlib.util.find_spec("torchvision") is None,
                                       reason="torchvision is not installed in this python")


def fresh_python(code: str) -> dict:
    """Run ``code`` in a new interpreter (chipperf importable); its last stdout line as JSON."""
    path = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": path}, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


IMPORT_TWICE = """
import json, sys, torch
from chipperf_runtime.models import tvision
tv = tvision.import_torchvision()
again = tvision.import_torchvision()
rebound_by_import = tv.ops.nms is tvision.nms or tv.ops.boxes.nms is tvision.nms
impl = tvision.use_operator_fallbacks()
net = tv.models.resnet50(weights=None)
boxes = torch.tensor([[0., 0, 10, 10], [1, 1, 10, 10], [20, 20, 30, 30]])
scores = torch.tensor([0.9, 0.8, 0.7])
try:
    tv.ops.deform_conv2d(torch.rand(1, 1, 4, 4), torch.zeros(1, 18, 2, 2), torch.rand(1, 1, 3, 3))
    deform = "ran"
except RuntimeError as e:
    deform = str(e)
print(json.dumps({"same": tv is again, "has_ops": tv.extension._has_ops(),
                  "rebound_by_import": rebound_by_import, "impl": impl,
                  "defined_here": len(tvision._defined), "kernels": len(tvision._kernels),
                  "missing": tvision.missing_ops(),
                  "params": sum(p.numel() for p in net.parameters()),
                  "nms": tv.ops.nms(boxes, scores, 0.5).tolist(),
                  "batched": tv.ops.batched_nms(boxes, scores, torch.tensor([0, 1, 0]), 0.5).tolist(),
                  "deform": deform}))
"""


@needs_torchvision
def test_torchvision_imports_twice_and_builds_resnet50() -> None:
    """Where the compiled ops load, nothing is defined here; where they do not (torch
    2.13.0+cpu beside PyPI's GPU-build torchvision 0.28.0), the two schemas and the CPU nms
    kernel are defined once, the models build, and the other compiled operators say
    torchvision's own 'Couldn't load custom C++ ops'. nms and batched_nms run in both."""
    out = fresh_python(IMPORT_TWICE)
    assert out["same"] and out["missing"] == [] and out["params"] == 25_557_032
    assert out["rebound_by_import"] is False       # nothing of torchvision changes on import
    assert out["nms"] == [0, 2] and out["batched"] == [0, 1, 2]
    if out["has_ops"]:
        assert out["defined_here"] == 0 and out["kernels"] == 0 and out["deform"] == "ran"
        assert out["impl"]["nms"] == "torchvision (compiled)"
    else:
        assert out["defined_here"] == 1 and out["kernels"] == 1
        assert "Couldn't load custom C++ ops" in out["deform"]
        assert out["impl"]["nms"].startswith("chipperf nms_kernel")
        assert out["impl"]["roi_align"].startswith("chipperf roi_align_fallback")


DETECTOR_FIRST = """
import json, torch
from chipperf_runtime.models.tvision import prepare_torchvision, use_operator_fallbacks
prepare_torchvision()
import torchvision
use_operator_fallbacks()    # explicit, as the detection cases do
from torchvision.models.detection import fasterrcnn_resnet50_fpn
torch.manual_seed(0)
net = fasterrcnn_resnet50_fpn(weights=None, weights_backbone=None, min_size=96, max_size=96,
                              num_classes=3)
losses = net([torch.rand(3, 96, 96)], [{"boxes": torch.tensor([[10., 10, 60, 60]]),
                                        "labels": torch.tensor([1])}])
sum(losses.values()).backward()
net.eval()
with torch.no_grad():
    found = net([torch.rand(3, 96, 96)])[0]
print(json.dumps({"losses": sorted(losses), "finite": all(bool(torch.isfinite(v)) for v in losses.values()),
                  "boxes": list(found["boxes"].shape), "nms": torchvision.ops.boxes.nms.__module__}))
"""


@needs_torchvision
def test_a_detector_trains_and_detects_with_the_explicit_fallbacks() -> None:
    """``import torchvision`` after ``prepare_torchvision()`` and ``use_operator_fallbacks()``:
    Faster R-CNN (region proposals through nms, the box head through roi_align) takes a
    training step and detects."""
    out = fresh_python(DETECTOR_FIRST)
    assert out["losses"] == ["loss_box_reg", "loss_classifier", "loss_objectness", "loss_rpn_box_reg"]
    assert out["finite"] and out["boxes"][1] == 4


def loadable_extension() -> bool:
    from chipperf_runtime.models import tvision

    return tvision.load_compiled_ops(tvision.find_extension("torchvision"))


@needs_torchvision
def test_ops_defined_before_the_call_are_left_as_they_are() -> None:
    """What torchvision's loaded extension leaves behind (the two operators defined) stands
    in here for a loadable one: the function defines nothing and imports torchvision. Where
    the real extension loads, torchvision's import would define them a second time (which
    aborts), so the stand-in cannot be used there."""
    if loadable_extension():
        pytest.skip("torchvision's extension loads in this python: the stand-in would clash")
    code = ("import json, torch\nfrom chipperf_runtime.models import tvision\n"
            "lib = torch.library.Library('torchvision', 'FRAGMENT')\n"
            "[lib.define(s) for s in tvision.SCHEMAS.values()]\n"
            "tv = tvision.import_torchvision()\n"
            "print(json.dumps({'defined_here': len(tvision._defined), 'name': tv.__name__}))")
    assert fresh_python(code) == {"defined_here": 0, "name": "torchvision"}


@needs_torchvision
def test_transformers_imports_once_torchvision_is_prepared() -> None:
    """transformers imports torchvision on its own whenever it is installed: with
    ``prepare_torchvision()`` called first, explicitly (as every case entry does), its models
    import and build, and torchvision's model zoo too."""
    code = ("import json\nfrom chipperf_runtime.models.tvision import prepare_torchvision\n"
            "prepare_torchvision()\n"
            "from transformers import ViTConfig, ViTForImageClassification\n"
            "import torchvision\n"
            "resnet = torchvision.models.resnet50(weights=None)\n"
            "net = ViTForImageClassification(ViTConfig(num_hidden_layers=1, hidden_size=32, "
            "num_attention_heads=2, intermediate_size=64, image_size=32, patch_size=8))\n"
            "print(json.dumps({'built': type(net).__name__, "
            "'resnet': sum(p.numel() for p in resnet.parameters())}))")
    assert fresh_python(code) == {"built": "ViTForImageClassification", "resnet": 25_557_032}


def test_import_torchvision_says_what_to_install_where_it_is_missing(monkeypatch) -> None:
    from chipperf_runtime.models import tvision

    real = importlib.util.find_spec
    monkeypatch.setattr(tvision.importlib.util, "find_spec",
                        lambda name, *a: None if name == "torchvision" else real(name, *a))
    monkeypatch.delitem(sys.modules, "torchvision", raising=False)
    with pytest.raises(ModuleNotFoundError, match=r"torchvision is not installed in .*requirements"):
        tvision.import_torchvision()
    tvision.prepare()  # nothing to prepare: no error


def fake_package(root: Path, name: str, extension: bytes | None) -> Path:
    package = root / name
    package.mkdir()
    (package / "__init__.py").write_text("")
    if extension is not None:
        (package / f"_C{importlib.machinery.EXTENSION_SUFFIXES[0]}").write_bytes(extension)
    return package


def test_the_extension_is_found_without_importing_the_package(tmp_path, monkeypatch) -> None:
    from chipperf_runtime.models.tvision import find_extension

    monkeypatch.syspath_prepend(str(tmp_path))
    package = fake_package(tmp_path, "visionwithext", b"not a shared library")
    fake_package(tmp_path, "visionwithout", None)
    assert find_extension("visionwithext") == package / f"_C{importlib.machinery.EXTENSION_SUFFIXES[0]}"
    assert find_extension("visionwithout") is None
    assert "visionwithext" not in sys.modules
    assert find_extension("novision") is None


def test_the_stable_abi_extension_comes_first(tmp_path, monkeypatch) -> None:
    """torchvision 0.29 loads ``_C_stable`` (its wheels have no ``_C``): that is the one to
    load first, or the schemas defined here would clash with it in torchvision's import."""
    from chipperf_runtime.models.tvision import find_extension

    monkeypatch.syspath_prepend(str(tmp_path))
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    both = fake_package(tmp_path, "visionboth", b"not a shared library")
    (both / f"_C_stable{suffix}").write_bytes(b"not a shared library either")
    stable_only = tmp_path / "visionstable"
    stable_only.mkdir()
    (stable_only / "__init__.py").write_text("")
    (stable_only / f"_C_stable{suffix}").write_bytes(b"")
    assert find_extension("visionboth") == both / f"_C_stable{suffix}"
    assert find_extension("visionstable") == stable_only / f"_C_stable{suffix}"


def test_an_extension_that_does_not_load_is_reported_not_raised(tmp_path) -> None:
    from chipperf_runtime.models.tvision import load_compiled_ops

    broken = fake_package(tmp_path, "brokenvision", b"not a shared library")
    assert load_compiled_ops(next(broken.glob("_C*"))) is False
    assert load_compiled_ops(None) is False


def test_define_schemas_defines_only_what_it_is_given() -> None:
    from chipperf_runtime.models import tvision

    before = len(tvision._defined)
    tvision.define_schemas([])
    assert len(tvision._defined) == before
    assert set(tvision.SCHEMAS) == {"nms", "qnms"}
    assert all(s.startswith(f"{name}(Tensor dets, Tensor scores, float iou_threshold)")
               for name, s in tvision.SCHEMAS.items())


IMPORT_ORDER = """
import importlib.abc, json, runpy, sys
seen = []
class Recorder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        top = name.partition(".")[0]
        if name == "chipperf_runtime.models.tvision" and name not in seen:
            seen.append(name)
        if top in ("transformers", "torchvision") and top not in seen:
            seen.append(top)
        return None
sys.meta_path.insert(0, Recorder())
script = sys.argv[1]
sys.path[:0] = [script.rpartition("/")[0]]
runpy.run_path(script, run_name="imports_only")
print(json.dumps(seen))
"""
ENTRIES = sorted(str(p.relative_to(REPO)) for p in [
    *REPO.glob("training/benchmarks/*/*/run_pretraining.py"),
    *REPO.glob("inference/benchmarks/*/*/run_inference.py")])
PREPARE = ("from chipperf_runtime.models.tvision import", "prepare_torchvision()")


def opens_with_the_prepare(entry: str) -> bool:
    """Whether the entry's first two statements (after its docstring and ``__future__``) import
    chipperf_runtime.models.tvision and call ``prepare_torchvision()``: then nothing the script
    imports can reach transformers or torchvision before the prepare."""
    tree = ast.parse((REPO / entry).read_text())
    body = [s for s in tree.body
            if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
            and not (isinstance(s, ast.ImportFrom) and s.module == "__future__")]
    first, second = (ast.unparse(s) for s in body[:2])
    return first.startswith(PREPARE[0]) and second == PREPARE[1]


def import_order(entry: str) -> list[str]:
    """The first import of chipperf_runtime.models.tvision, transformers and torchvision
    when the entry script's imports run in a fresh python (its ``__main__`` block does not)."""
    proc = subprocess.run([sys.executable, "-c", IMPORT_ORDER, str(REPO / entry)], cwd=REPO,
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(
                              p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)})
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("entry", ENTRIES)
def test_every_case_entry_prepares_torchvision_before_transformers_or_torchvision(entry) -> None:
    """A case's process prepares torchvision's import explicitly (chipperf_runtime.models.tvision,
    no import hook anywhere) before anything imports transformers or torchvision. An entry
    that opens with the prepare passes on its source (a fresh python per entry costs a torch
    import, ~3 s each); any other entry's imports run in a fresh python and must reach neither
    (the TensorFlow and Paddle cases)."""
    if not opens_with_the_prepare(entry):
        assert import_order(entry) == []


@pytest.mark.parametrize("entry", ["training/benchmarks/resnet50/pytorch/run_pretraining.py",
                                   "training/benchmarks/gpt2/pytorch/run_pretraining.py"])
def test_an_entry_that_opens_with_the_prepare_imports_it_first(entry) -> None:
    """The rule above holds for real: importing chipperf_runtime.models.tvision reaches neither
    transformers nor torchvision, so the prepare runs before both."""
    assert opens_with_the_prepare(entry)
    order = import_order(entry)
    assert order[0] == "chipperf_runtime.models.tvision" and len(order) > 1, order
