"""The vendors' own inference engines (issue 39, item 3) load their SDK or refuse by name.

None of the SDKs (XTCL, IxRT, MACA's ONNX Runtime, TopsInference, tcinfer) is installed here,
and an SDK module that is present on some machine is made absent with ``sys.modules[name] =
None``, so each adapter's refusal is what runs: one CaseError naming the engine, the SDK, its
module, the vendor and what to install, before any model is exported or built."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest
import torch

from chipperf_runtime.device import DEVICE_KINDS, DeviceRequest
from chipperf_runtime.device.torch import TorchDevice
from chipperf_runtime.inference.engines import get_engine
from chipperf_runtime.inference.engines.base import EngineOptions
from chipperf_runtime.inference.errors import CaseError
from chipperf_runtime.inference.runner import open_device
from chipperf_runtime.inference.vendor_engines import VENDOR_ENGINES


def device_of(vendor: str) -> TorchDevice:
    """A host-CPU device under ``vendor``'s name: the adapters' checks read only the vendor."""
    request = DeviceRequest(vendor, DEVICE_KINDS["cpu"], None, "gloo")
    return TorchDevice(request, torch.device("cpu"), None)


def options(tmp_path: Path, vendor: str, **engine_options) -> EngineOptions:
    return EngineOptions(device=device_of(vendor), work_dir=tmp_path, input_names=("image",),
                         batch_size=4, engine_options=engine_options)


@pytest.mark.parametrize("engine", sorted(VENDOR_ENGINES))
def test_an_absent_sdk_is_refused_naming_sdk_vendor_and_install(tmp_path, monkeypatch,
                                                                engine) -> None:
    spec = VENDOR_ENGINES[engine]
    monkeypatch.setitem(sys.modules, spec.module, None)   # absent, even where it is installed
    with pytest.raises(CaseError) as err:
        get_engine(engine, options(tmp_path, spec.vendor)).check("fp16")
    text = str(err.value)
    assert text.startswith(f"engine {engine!r} needs {spec.sdk}, whose Python module "
                           f"{spec.module!r} is not importable here (")
    assert f"vendor {spec.vendor!r}: run in the vendor's image with {spec.install}" in text
    assert not any(tmp_path.iterdir())   # nothing exported or built


def test_nvidias_tensorrt_module_without_ixrtexec_is_not_ixrt(tmp_path, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "tensorrt", types.ModuleType("tensorrt"))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(CaseError) as err:
        get_engine("ixrt", options(tmp_path, "iluvatar")).check("fp16")
    assert "its engine builder ixrtexec is not on PATH nor at /usr/local/corex/bin/ixrtexec" \
        in str(err.value)


def test_onnxruntime_without_the_maca_provider_is_not_macart(tmp_path, monkeypatch) -> None:
    fake = types.ModuleType("onnxruntime")
    fake.get_available_providers = lambda: ["CPUExecutionProvider"]   # PyPI's build
    monkeypatch.setitem(sys.modules, "onnxruntime", fake)
    with pytest.raises(CaseError) as err:
        get_engine("macart", options(tmp_path, "metax")).check("fp16")
    assert "(this onnxruntime offers CPUExecutionProvider, not MACAExecutionProvider); vendor " \
        "'metax'" in str(err.value)


def test_upstream_tvm_without_xtcls_passes_is_not_xtcl(tmp_path, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "tvm", types.ModuleType("tvm"))
    monkeypatch.setitem(sys.modules, "tvm.contrib.xpu_config", None)
    with pytest.raises(CaseError) as err:
        get_engine("xtcl", options(tmp_path, "kunlunxin")).check("fp32")
    assert "module 'tvm' is not importable here" in str(err.value)


def test_another_vendors_run_is_refused_before_the_sdk_is_looked_for(tmp_path) -> None:
    with pytest.raises(CaseError) as err:
        get_engine("zxrt", options(tmp_path, "cpu")).check("fp16")
    assert str(err.value) == ("engine 'zxrt' is Tencent Zixiao ZXRT (the TopsInference Python "
                              "package), which drives vendor 'zixiao''s chips only, and this "
                              "run's vendor is 'cpu': set engine to eager, compile or onnxruntime")


def test_hx_infexec_needs_the_engine_file_hexaflakes_tools_built(tmp_path, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "tcinfer", types.ModuleType("tcinfer"))
    with pytest.raises(CaseError) as err:
        get_engine("hx_infexec", options(tmp_path, "hexaflake")).check("fp16")
    assert "engine 'hx_infexec' needs engine_options.engine_file: the path of a ResNet-50 " \
        "engine file compiled by Hexaflake's tools" in str(err.value)


def test_a_host_fed_engine_keeps_pytorch_on_the_host_under_the_vendors_name(monkeypatch) -> None:
    """XTCL's image has a CPU PyTorch: the kunlunxin launch environment's xpu and torch_xmlir
    are not opened for a host-fed engine; the vendor's name stays on the device."""
    monkeypatch.setenv("CHIPPERF_VENDOR", "kunlunxin")
    monkeypatch.setenv("CHIPPERF_DEVICE", "xpu")
    monkeypatch.setenv("CHIPPERF_DEVICE_PLUGIN", "torch_xmlir")
    settings = types.SimpleNamespace(device=None)
    device = open_device(settings, on_host=True)   # type: ignore[arg-type]
    assert (device.vendor, device.type) == ("kunlunxin", "cpu")
