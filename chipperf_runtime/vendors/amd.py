"""Vendor ``amd``: AMD Instinct GPUs through ROCm's PyTorch build, which answers to
``torch.cuda`` (device ``cuda``; its ``nccl`` backend is RCCL).

Container options as AMD's ROCm Docker guide writes them: ``--device=/dev/kfd
--device=/dev/dri --group-add video --security-opt seccomp=unconfined``. Visible devices:
``HIP_VISIBLE_DEVICES``. Telemetry: AMD's Python library ``amdsmi`` (PyPI ``amdsmi``;
it loads ``libamd_smi.so`` from the ROCm install), imported inside the sampler.
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable

from chipperf_runtime.vendors.base import ChipSpec, SampleError, SamplerUnavailable, Vendor

_TF = 1e12

CHIPS = {
    # AMD Instinct MI300X data sheet: dense peak FP64 vector 81.7 TF, FP32 163.4 TF,
    # TF32 653.7 TF, FP16/BF16 1307.4 TF, FP8 2614.9 TF; 192 GB HBM3, 5.3 TB/s, 750 W.
    "MI300X": ChipSpec("MI300X", {"fp64": 81.7 * _TF, "fp32": 163.4 * _TF, "tf32": 653.7 * _TF,
                                  "fp16": 1307.4 * _TF, "bf16": 1307.4 * _TF, "fp8": 2614.9 * _TF},
                       memory_bytes=192 * 10**9, tdp_watts=750, memory_bandwidth=5.3e12,
                       source="AMD Instinct MI300X data sheet, dense (no sparsity)"),
    # AMD Instinct MI250X data sheet: FP64/FP32 vector 47.9 TF, FP16/BF16 383 TF;
    # 128 GB HBM2e, 3.2 TB/s, 500 W (560 W peak).
    "MI250X": ChipSpec("MI250X", {"fp64": 47.9 * _TF, "fp32": 47.9 * _TF, "fp16": 383 * _TF,
                                  "bf16": 383 * _TF},
                       memory_bytes=128 * 10**9, tdp_watts=500, memory_bandwidth=3.2e12,
                       source="AMD Instinct MI250X data sheet"),
}


def _container_options(nproc: int) -> str:
    return ("--device=/dev/kfd --device=/dev/dri --group-add video "
                          "--security-opt seccomp=unconfined --ipc=host "
                          "--ulimit memlock=-1 --ulimit stack=67108864")


# amdsmi's Python API (amdsmi 7.0.2, amdsmi_interface.py) turns only 0xFFFF into "N/A"; the
# C library sets an unsupported member to UINT32_MAX (amdsmi.h: "Unsupported struct members are
# set to UINT32_MAX"). Neither is a reading: any value at or above 0xFFFF is left out.
_UNSUPPORTED = 0xFFFF


def _reading(value: Any) -> float | None:
    """A number amdsmi reported, or None for "N/A" and the unsupported sentinels."""
    if isinstance(value, (int, float)) and 0 <= value < _UNSUPPORTED:
        return float(value)
    return None


def _activity(smi: Any, h: Any) -> dict[str, Any]:
    value = _reading(smi.amdsmi_get_gpu_activity(h)["gfx_activity"])
    if value is None:
        raise SampleError("amdsmi reports no gfx_activity on this GPU")
    return {"util_pct": value}


def _vram(smi: Any, h: Any) -> dict[str, Any]:
    usage = smi.amdsmi_get_gpu_vram_usage(h)  # MB
    return {"mem_used_bytes": int(usage["vram_used"]) * 2**20,
            "mem_total_bytes": int(usage["vram_total"]) * 2**20}


def _power(smi: Any, h: Any) -> dict[str, Any]:
    """W: MI300 and later report current_socket_power, MI200 and earlier average_socket_power;
    socket_power (newer libraries) last. A zero is taken as a reading only from the last."""
    info = smi.amdsmi_get_power_info(h)
    for key in ("current_socket_power", "average_socket_power", "socket_power"):
        value = _reading(info.get(key))
        if value is not None and (value > 0 or key == "socket_power"):
            return {"power_w": value}
    raise SampleError("amdsmi power info has no current, average or socket power")


def _temp(smi: Any, h: Any) -> dict[str, Any]:
    return {"temp_c": float(smi.amdsmi_get_temp_metric(
        h, smi.AmdSmiTemperatureType.HOTSPOT, smi.AmdSmiTemperatureMetric.CURRENT))}


_READERS: tuple[tuple[str, Callable[[Any, Any], dict[str, Any]]], ...] = (
    ("util_pct", _activity), ("mem_used_bytes", _vram), ("power_w", _power), ("temp_c", _temp))


class AmdSmiSampler:
    """Every AMD GPU on the node through amdsmi: initialised once, one read per tick.
    A reader that fails at setup is left out of the samples and listed as unsupported."""

    def __init__(self) -> None:
        try:
            import amdsmi
        except (ImportError, OSError) as e:
            raise SamplerUnavailable(f"amdsmi is not importable (pip install amdsmi; needs "
                                     f"ROCm's libamd_smi.so): {e}") from e
        self._smi: Any = amdsmi
        try:
            amdsmi.amdsmi_init()
            self._handles = list(amdsmi.amdsmi_get_processor_handles())
        except amdsmi.AmdSmiException as e:
            self.close()
            raise SamplerUnavailable(f"amdsmi init failed: {e}") from e
        if not self._handles:
            self.close()
            raise SamplerUnavailable("amdsmi sees no GPU")
        self._skip = self._probe()

    def info(self) -> dict[str, Any]:
        names = []
        for h in self._handles:
            try:
                names.append(str(self._smi.amdsmi_get_gpu_asic_info(h)["market_name"]))
            except self._smi.AmdSmiException as e:
                names.append(f"unknown ({e})")
        return {"model": ", ".join(sorted(set(names))), "count": len(self._handles),
                "devices": [{"index": i, "name": n} for i, n in enumerate(names)],
                "unsupported": {k: f"amdsmi: {why}" for k, why in self._skip.items()}}

    def read(self) -> list[dict[str, Any]]:
        return [self._read(i, h) for i, h in enumerate(self._handles)]

    def close(self) -> None:
        if self._smi is not None:
            with contextlib.suppress(Exception):
                self._smi.amdsmi_shut_down()
            self._smi = None

    def _probe(self) -> dict[str, str]:
        skip: dict[str, str] = {}
        for key, reader in _READERS:
            try:
                reader(self._smi, self._handles[0])
            except (self._smi.AmdSmiException, SampleError, KeyError, ValueError) as e:
                skip[key] = str(e)
        return skip

    def _read(self, index: int, handle: Any) -> dict[str, Any]:
        sample: dict[str, Any] = {"index": index}
        for key, reader in _READERS:
            if key in self._skip:
                continue
            try:
                sample.update(reader(self._smi, handle))
            except (self._smi.AmdSmiException, KeyError, ValueError) as e:
                raise SampleError(f"GPU {index} {key}: {e}") from e
        return sample


VENDOR = Vendor(
    name="amd",
    visible_devices_env="HIP_VISIBLE_DEVICES",
    chips=CHIPS,
    container_options=_container_options,
    accelerator_sampler=AmdSmiSampler,
    device="cuda",
)
