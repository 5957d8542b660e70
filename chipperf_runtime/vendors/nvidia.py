"""Vendor ``nvidia``: GPUs through the NVIDIA container toolkit, telemetry from NVML.

The sampler needs ``pynvml`` (PyPI package ``nvidia-ml-py``) in the image and the
driver's ``libnvidia-ml.so`` (the container toolkit mounts it when the container's
driver capabilities include ``utility``, as they do by default). The chips' spec sheets
(per board: SXM, PCIe, NVL; each figure with its datasheet) are in ``_nvidia_sheets``.
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable

from chipperf_runtime.vendors._nvidia_sheets import CHIPS
from chipperf_runtime.vendors.base import HardwareValidation, SampleError, SamplerUnavailable, Vendor


def _container_options(nproc: int) -> str:
    return "--gpus all --ipc=host --ulimit memlock=-1 --ulimit stack=67108864"


def _monitor_options(nproc: int) -> str:
    """NVML sees every GPU with the driver's utility capability alone (nvidia-smi, libnvidia-ml):
    the sidecar gets no compute access to the GPUs the case uses."""
    return "--gpus all,capabilities=utility"


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _memory(nv: Any, handle: Any) -> dict[str, Any]:
    info = nv.nvmlDeviceGetMemoryInfo(handle)
    return {"mem_used_bytes": int(info.used), "mem_total_bytes": int(info.total)}


# Metric readers: (keys they fill, NVML call). NVML power is mW, energy mJ since driver load.
_READERS: tuple[tuple[tuple[str, ...], Callable[[Any, Any], dict[str, Any]]], ...] = (
    (("util_pct",), lambda nv, h: {"util_pct": nv.nvmlDeviceGetUtilizationRates(h).gpu}),
    (("mem_used_bytes", "mem_total_bytes"), _memory),
    (("power_w",), lambda nv, h: {"power_w": nv.nvmlDeviceGetPowerUsage(h) / 1000.0}),
    (("energy_mj",), lambda nv, h: {"energy_mj": int(nv.nvmlDeviceGetTotalEnergyConsumption(h))}),
    (("temp_c",), lambda nv, h: {"temp_c": nv.nvmlDeviceGetTemperature(h, nv.NVML_TEMPERATURE_GPU)}),
    (("sm_clock_mhz",), lambda nv, h: {"sm_clock_mhz": nv.nvmlDeviceGetClockInfo(h, nv.NVML_CLOCK_SM)}),
)


class NvmlSampler:
    """Every GPU on the node through NVML: initialised once, one read per tick.

    Metrics a device does not support (NVML says NOT_SUPPORTED when probed at setup)
    are left out of its samples and listed in ``info()["unsupported"]``.
    """

    def __init__(self) -> None:
        try:
            import pynvml
        except ImportError as e:
            raise SamplerUnavailable(f"pynvml is not importable (pip install nvidia-ml-py): {e}") from e
        self._nv = pynvml
        try:
            pynvml.nvmlInit()
        except pynvml.NVMLError as e:
            raise SamplerUnavailable(f"NVML init failed: {e}") from e
        try:
            self._handles = [pynvml.nvmlDeviceGetHandleByIndex(i)
                             for i in range(pynvml.nvmlDeviceGetCount())]
            if not self._handles:
                raise SamplerUnavailable("NVML sees no GPU")
            self._skip = self._probe()
        except SamplerUnavailable:
            self.close()
            raise
        except pynvml.NVMLError as e:
            self.close()
            raise SamplerUnavailable(f"NVML device enumeration failed: {e}") from e

    def info(self) -> dict[str, Any]:
        nv = self._nv
        devices = [self._device_info(i, h) for i, h in enumerate(self._handles)]
        cuda = nv.nvmlSystemGetCudaDriverVersion_v2()
        unsupported: dict[str, list[int]] = {}
        for index, key in sorted(self._skip):
            unsupported.setdefault(key, []).append(index)
        return {"model": ", ".join(sorted({d["name"] for d in devices})), "count": len(devices),
                "driver_version": _text(nv.nvmlSystemGetDriverVersion()),
                "runtime_version": f"CUDA {cuda // 1000}.{cuda % 1000 // 10} (driver API)",
                "nvml_version": _text(nv.nvmlSystemGetNVMLVersion()), "devices": devices,
                "unsupported": {k: f"NVML: not supported on device(s) {v}"
                                for k, v in unsupported.items()}}

    def read(self) -> list[dict[str, Any]]:
        return [self._read_device(i, h) for i, h in enumerate(self._handles)]

    def close(self) -> None:
        if self._nv is not None:
            with contextlib.suppress(self._nv.NVMLError):
                self._nv.nvmlShutdown()
            self._nv = None

    def _probe(self) -> set[tuple[int, str]]:
        skip: set[tuple[int, str]] = set()
        for index, handle in enumerate(self._handles):
            for keys, reader in _READERS:
                try:
                    reader(self._nv, handle)
                except self._nv.NVMLError as e:
                    if getattr(e, "value", None) != self._nv.NVML_ERROR_NOT_SUPPORTED:
                        raise
                    skip.update((index, key) for key in keys)
        return skip

    def _read_device(self, index: int, handle: Any) -> dict[str, Any]:
        sample: dict[str, Any] = {"index": index}
        for keys, reader in _READERS:
            if (index, keys[0]) in self._skip:
                continue
            try:
                sample.update(reader(self._nv, handle))
            except self._nv.NVMLError as e:
                raise SampleError(f"GPU {index} {'/'.join(keys)}: {e}") from e
        return sample

    def _device_info(self, index: int, handle: Any) -> dict[str, Any]:
        nv = self._nv
        facts = {"index": index, "name": _text(nv.nvmlDeviceGetName(handle)),
                 "uuid": _text(nv.nvmlDeviceGetUUID(handle)),
                 "pci_bus_id": _text(nv.nvmlDeviceGetPciInfo(handle).busId)}
        try:
            facts["power_limit_w"] = nv.nvmlDeviceGetEnforcedPowerLimit(handle) / 1000.0
        except nv.NVMLError as e:
            facts["power_limit_w_unavailable"] = str(e)
        return facts


VENDOR = Vendor(
    name="nvidia",
    visible_devices_env="CUDA_VISIBLE_DEVICES",
    chips=CHIPS,
    container_options=_container_options,
    monitor_options=_monitor_options,
    accelerator_sampler=NvmlSampler,
    device="cuda",
    validated_on_hardware=HardwareValidation(
        ran=False, note="run on one H100 SXM in in-container mode only (2026-11-27, cb8485b, no "
        "Docker: chipperf selftest, base/, resnet50, gpt2 and llama training, resnet50 inference "
        "and a serving point worked; docs/validation.md); the nvidia image, multi-GPU and "
        "multi-node runs are untested"),
)
