"""Vendor ``nvidia``: GPUs through the NVIDIA container toolkit, telemetry from NVML."""

from __future__ import annotations

from typing import Any, Mapping

from chipperf.vendors.base import ChipSpec, Vendor

_TF = 1e12

# Dense (no sparsity) peak FLOP/s from NVIDIA's datasheets.
CHIPS = {
    "A100": ChipSpec("A100", {"fp64": 9.7 * _TF, "fp32": 19.5 * _TF, "tf32": 156 * _TF,
                              "bf16": 312 * _TF, "fp16": 312 * _TF},
                     memory_bytes=80 * 2**30, tdp_watts=400,
                     source="NVIDIA A100 datasheet (SXM4 80GB), dense"),
    "H100": ChipSpec("H100", {"fp64": 34 * _TF, "fp32": 67 * _TF, "tf32": 494.5 * _TF,
                              "bf16": 989.5 * _TF, "fp16": 989.5 * _TF, "fp8": 1979 * _TF},
                     memory_bytes=80 * 2**30, tdp_watts=700,
                     source="NVIDIA H100 datasheet (SXM5), dense"),
    "H200": ChipSpec("H200", {"fp64": 34 * _TF, "fp32": 67 * _TF, "tf32": 494.5 * _TF,
                              "bf16": 989.5 * _TF, "fp16": 989.5 * _TF, "fp8": 1979 * _TF},
                     memory_bytes=141 * 10**9, tdp_watts=700,
                     source="NVIDIA H200 datasheet (SXM), dense"),
}


def _container_options(nproc: int) -> Mapping[str, Any]:
    import docker.types  # imported here: the sidecar imports this module without docker

    return {
        "device_requests": [docker.types.DeviceRequest(count=-1, capabilities=[["gpu"]])],
        "ipc_mode": "host",
        "ulimits": [docker.types.Ulimit(name="memlock", soft=-1, hard=-1),
                    docker.types.Ulimit(name="stack", soft=67108864, hard=67108864)],
    }


VENDOR = Vendor(
    name="nvidia",
    visible_devices_env="CUDA_VISIBLE_DEVICES",
    chips=CHIPS,
    container_options=_container_options,
)
