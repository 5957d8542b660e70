"""Engines behind one interface, checked against fp32 eager; bad engine choices fail clearly."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "inference" / "benchmarks"))

from chipperf_runtime.device import DEVICE_KINDS, DeviceError, DeviceRequest  # noqa: E402
from chipperf_runtime.device.torch import TorchDevice, open_torch_device  # noqa: E402
from chipperf_runtime.inference.engines import engine_names, get_engine, register  # noqa: E402
from chipperf_runtime.inference.engines.base import EngineOptions  # noqa: E402
from chipperf_runtime.inference.errors import CaseError, EngineBuildError  # noqa: E402

CPU = open_torch_device(0, {"CHIPPERF_VENDOR": "cpu", "CHIPPERF_DEVICE": "cpu"})


class Tiny(nn.Module):
    """Two inputs like BERT: float features and an integer mask."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv1d(4, 8, 3, padding=1)
        self.fc = nn.Linear(8, 5)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        h = torch.relu(self.conv(x)).mean(-1) * mask.to(x.dtype)[:, :1]
        return self.fc(h)


def options(tmp_path: Path, **kw) -> EngineOptions:
    return EngineOptions(device=CPU, work_dir=tmp_path, input_names=("x", "mask"),
                         batch_size=4, **kw)


@pytest.fixture
def model_and_inputs():
    torch.manual_seed(0)
    model = Tiny().eval()
    inputs = (torch.randn(4, 4, 16), torch.ones(4, 3, dtype=torch.long))
    with torch.no_grad():
        reference = model(*inputs)
    return model, inputs, reference


@pytest.fixture(autouse=True)
def _restore_engine_registry():
    """Engines a test registers must not leak into other tests (the registry is global)."""
    from chipperf_runtime.inference.engines import _ENGINES

    saved = dict(_ENGINES)
    yield
    _ENGINES.clear()
    _ENGINES.update(saved)


@pytest.mark.parametrize("name,precision,tol", [
    ("eager", "fp32", 0.0), ("eager", "bf16", 5e-2), ("onnxruntime", "fp32", 1e-5)])


def test_engine_matches_fp32_eager(tmp_path, model_and_inputs, name, precision, tol) -> None:
    model, inputs, reference = model_and_inputs
    engine = get_engine(name, options(tmp_path))
    engine.check(precision)
    run = engine.prepare(model, inputs, precision)
    out = run(*inputs)
    assert out.shape == reference.shape
    assert (out.float() - reference).abs().max() <= tol * reference.abs().max() + 1e-7
    single = run(*(t[:1] for t in inputs))  # dynamic batch: single-stream queries
    assert single.shape == (1, 5)
    assert model.fc.weight.dtype == torch.float32  # the engine did not change the model


def test_onnxruntime_uses_a_given_onnx_file(tmp_path, model_and_inputs) -> None:
    model, inputs, reference = model_and_inputs
    exported = get_engine("onnxruntime", options(tmp_path / "a"))
    exported.prepare(model, inputs, "fp32")
    given = get_engine("onnxruntime", options(tmp_path, onnx_file=str(tmp_path / "a" /
                                                                       "model_fp32.onnx")))
    out = given.prepare(nn.Identity(), inputs, "fp32")(*inputs)  # the model is not exported
    assert torch.allclose(out, reference, atol=1e-5)


def test_unknown_engine_lists_the_known_ones(tmp_path) -> None:
    with pytest.raises(CaseError, match="engine 'trt' is unknown: set engine to one of "
                                        "compile, eager, hx_infexec, ixrt, macart, onnxruntime"):
        get_engine("trt", options(tmp_path))
    assert {"eager", "compile", "onnxruntime", "onnxruntime-trt", "tensorrt"} <= set(engine_names())


@pytest.mark.parametrize("name,precision,message", [
    ("onnxruntime", "bf16", r"precision 'bf16' on cpu \(vendor cpu\): set precision to one of fp32"),
    ("eager", "fp16", r"precision 'fp16' on cpu \(vendor cpu\): set precision to one of fp32, bf16"),
    ("eager", "int8", "cannot run precision 'int8'"),
    ("tensorrt", "fp16", "needs device: cuda"),
    ("onnxruntime-trt", "fp32", "needs an NVIDIA GPU .TensorRT., and vendor cpu names device cpu"),
])
def test_precision_or_device_the_engine_cannot_do(tmp_path, name, precision, message) -> None:
    with pytest.raises(CaseError, match=message):
        get_engine(name, options(tmp_path)).check(precision)


def test_a_gpu_this_host_lacks_stops_before_any_engine_is_built() -> None:
    if torch.cuda.is_available():
        pytest.skip("this check is for hosts without a GPU")
    with pytest.raises(DeviceError,
                       match=r"vendor 'nvidia' names device 'cuda'.*is_available\(\) is False"):
        open_torch_device(0, {"CHIPPERF_VENDOR": "nvidia", "CHIPPERF_DEVICE": "cuda"})


def test_onnxruntime_on_a_device_it_has_no_provider_for_names_vendor_and_device(tmp_path) -> None:
    # An Ascend rank as the engines would see it (built by hand: this host has no NPU).
    npu = TorchDevice(DeviceRequest("ascend", DEVICE_KINDS["npu"], "torch_npu", "hccl"),
                      torch.device("cpu"), None)
    engine = get_engine("onnxruntime", EngineOptions(device=npu, work_dir=tmp_path,
                                                     input_names=("x",)))
    assert engine.precisions(npu) == ()
    with pytest.raises(CaseError, match=r"no ONNX Runtime execution provider for device npu "
                                        r"\(vendor ascend\).*cpu, cuda: use engine eager"):
        engine.check("fp32")


def test_tensorrt_import_is_guarded(tmp_path, monkeypatch) -> None:
    from chipperf_runtime.inference.engines.nvidia import tensorrt_engine

    monkeypatch.setitem(sys.modules, "tensorrt", None)  # import fails as on a host without it
    with pytest.raises(CaseError, match="TensorRT Python package.*nvidia image"):
        tensorrt_engine._trt()


def test_missing_and_broken_onnx_files(tmp_path, model_and_inputs) -> None:
    model, inputs, _ = model_and_inputs
    missing = get_engine("onnxruntime", options(tmp_path, onnx_file=str(tmp_path / "no.onnx")))
    with pytest.raises(CaseError, match="no.onnx does not exist.*onnx_file: null"):
        missing.prepare(model, inputs, "fp32")
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"not a protobuf")
    engine = get_engine("onnxruntime", options(tmp_path, onnx_file=str(broken)))
    with pytest.raises(EngineBuildError, match="ONNX Runtime could not load"):
        engine.prepare(model, inputs, "fp32")


def test_export_failure_is_an_engine_build_error(tmp_path) -> None:
    class Unexportable(nn.Module):
        def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
            return torch.linalg.svdvals(x)  # no ONNX operator for it

    engine = get_engine("onnxruntime", options(tmp_path))
    with pytest.raises(EngineBuildError, match="torch.onnx.export .* failed"):
        engine.prepare(Unexportable(), (torch.randn(2, 3), torch.ones(2, 1)), "fp32")


def test_register_adds_an_engine(tmp_path) -> None:
    class Doubling:
        name = "doubling"

        def __init__(self, opts: EngineOptions) -> None:
            self.opts = opts

        def precisions(self, device: TorchDevice) -> tuple[str, ...]:
            return ("fp32",)

        def check(self, precision: str) -> None: ...

        def prepare(self, model, example_inputs, precision):
            return lambda *xs: model(*xs) * 2

    register("doubling", Doubling)
    run = get_engine("doubling", options(tmp_path)).prepare(nn.Identity(), (), "fp32")
    assert run(torch.ones(1)).item() == 2.0
