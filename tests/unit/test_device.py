"""The device layer (chipperf_runtime.device): what the engine names, what the framework must see.

PyTorch is the CPU build here, so every accelerator kind must end in a DeviceError that names
the vendor, the device and what is missing; the cpu kind must work, and nothing falls back.
"""

from __future__ import annotations

import pytest

from chipperf_runtime.device import DEVICE_KINDS, DeviceError, DeviceRequest, launch_env
from chipperf_runtime.perflog import case_error
from chipperf_runtime.vendors import get_vendor, vendor_names


def env(device: str, vendor: str = "somevendor", **extra: str) -> dict[str, str]:
    return {"CHIPPERF_VENDOR": vendor, "CHIPPERF_DEVICE": device, **extra}


def test_an_unset_device_is_an_error_not_the_cpu() -> None:
    with pytest.raises(DeviceError, match=r"vendor 'x': CHIPPERF_DEVICE is not set.*'cpu'"):
        DeviceRequest.from_env({"CHIPPERF_VENDOR": "x"})


def test_an_unknown_device_kind_lists_the_known_ones() -> None:
    with pytest.raises(DeviceError, match=r"CHIPPERF_DEVICE='gpu' is not a device kind: use one "
                                          r"of cpu, cuda, npu, mlu, musa, xpu, hpu"):
        DeviceRequest.from_env(env("gpu"))


def test_the_request_takes_the_kinds_defaults_unless_the_vendor_overrides_them() -> None:
    npu = DeviceRequest.from_env(env("npu"))
    assert (npu.plugin, npu.backend) == ("torch_npu", "hccl")
    kunlun = DeviceRequest.from_env(env("xpu", CHIPPERF_DEVICE_PLUGIN="torch_xmlir",
                                        CHIPPERF_DIST_BACKEND="xccl"))
    assert (kunlun.plugin, kunlun.backend) == ("torch_xmlir", "xccl")
    assert DeviceRequest.from_env(env("cuda")).plugin is None


def test_launch_env_round_trips_through_the_request() -> None:
    request = DeviceRequest.from_env(launch_env("ascend", "npu", None, "hccl"))
    assert (request.vendor, request.kind.name, request.backend) == ("ascend", "npu", "hccl")


def test_every_vendor_names_a_known_device_kind() -> None:
    for name in vendor_names():
        vendor = get_vendor(name)
        assert vendor.device in DEVICE_KINDS, f"{name}: device {vendor.device!r}"
    assert get_vendor("cpu").device == "cpu" and get_vendor("nvidia").device == "cuda"


torch = pytest.importorskip("torch")


@pytest.mark.parametrize("kind", [k for k in DEVICE_KINDS if k != "cpu"])
def test_each_accelerator_kind_this_build_lacks_is_an_error_naming_vendor_and_device(
        kind: str) -> None:
    from chipperf_runtime.device.torch import open_torch_device

    with pytest.raises(DeviceError) as info:
        open_torch_device(0, env(kind, vendor="acme"))
    message = str(info.value)
    assert message.startswith(f"vendor 'acme' names device '{kind}'")
    assert "does not fall back to the CPU" in message
    plugin = DEVICE_KINDS[kind].torch_plugin
    if kind == "xla":    # torch_xla's release is checked against torch's before its import
        assert f"torch_xla is not installed beside torch {torch.__version__}" in message
    elif plugin:
        assert f"its PyTorch plug-in '{plugin}' does not import" in message
    else:
        assert f"torch.{kind}.is_available() is False" in message


def test_a_plugin_that_imports_but_registers_no_device_is_still_an_error() -> None:
    from chipperf_runtime.device.torch import open_torch_device

    with pytest.raises(DeviceError, match=r"torch.npu"):
        open_torch_device(0, env("npu", CHIPPERF_DEVICE_PLUGIN="json"))


def test_the_cpu_device_is_named_and_has_no_device_memory_reading() -> None:
    from chipperf_runtime.device.torch import open_torch_device

    device = open_torch_device(0, env("cpu", vendor="cpu"))
    assert device.device == torch.device("cpu") and device.backend == "gloo"
    assert (device.is_accelerator, device.pin_memory, device.autocast_type) == (False, False, "cpu")
    assert device.max_memory_allocated() is None
    device.synchronize()
    assert device.describe()["vendor"] == "cpu"


def test_case_error_lines_are_found_in_training_and_inference_logs() -> None:
    lines = ["step 1", "chipperf case error: vendor 'a' names device 'npu' (x), but y", "bye"]
    assert case_error(lines) == "vendor 'a' names device 'npu' (x), but y"
    assert case_error(["chipperf inference case resnet50: error: no engine"]) == "no engine"
    assert case_error(["a traceback", "RuntimeError: boom"]) is None
