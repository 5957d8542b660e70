"""The device layer: what case, benchmark and operator code runs on (DESIGN.md "Devices").

Shipped into every container with the rest of ``chipperf``. This module is pure (standard
library only): the table of device kinds and the request the engine makes in the launch
environment. The framework side lives one level down and imports its framework:

    from chipperf_runtime.device.torch import open_torch_device      # PyTorch cases
    from chipperf_runtime.device.paddle import open_paddle_device    # Paddle cases
    from chipperf_runtime.device.tensorflow import open_tf_device    # TensorFlow cases

The engine names the device from the vendor module (``CHIPPERF_DEVICE=npu`` ...), with
the vendor's plug-in and collective backend where they differ from the kind's defaults.
A device that is named and cannot be seen is a ``DeviceError``; nothing falls back to the
CPU. ``CHIPPERF_DEVICE=cpu`` is the cpu vendor's device, named like any other.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Optional

ENV_VENDOR = "CHIPPERF_VENDOR"
ENV_DEVICE = "CHIPPERF_DEVICE"            # a key of DEVICE_KINDS
ENV_PLUGIN = "CHIPPERF_DEVICE_PLUGIN"     # module to import first ("" = none); default: the kind's
ENV_BACKEND = "CHIPPERF_DIST_BACKEND"     # torch.distributed backend; default: the kind's


def usable_cores() -> int:
    """CPUs this process may run on (its affinity mask, so a container's cpuset counts)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return cores or 1


class DeviceError(Exception):
    """The named device cannot be used here. str() names vendor, device and what is missing."""


@dataclass(frozen=True)
class DeviceKind:
    """One kind of device as the frameworks name it.

    ``torch_plugin`` is the module that registers the kind with PyTorch (None: built in);
    ``torch_backend`` the ``torch.distributed`` backend for it; ``paddle_type`` and
    ``tf_type`` the names Paddle (``paddle.set_device("npu:0")``) and TensorFlow
    (``tf.config.list_physical_devices("GPU")``) use, None where that framework has no
    build for the kind."""

    name: str
    torch_plugin: Optional[str]
    torch_backend: str
    paddle_type: Optional[str]
    tf_type: Optional[str]
    what: str

    @property
    def is_accelerator(self) -> bool:
        return self.name != "cpu"


# cuda covers NVIDIA and the CUDA-compatible builds (iluvatar, metax, hygon dcu, AMD ROCm:
# ROCm's PyTorch answers to torch.cuda and its "nccl" backend is RCCL). xpu is Intel's
# (built into torch >= 2.4, backend xccl) and Kunlunxin's (plug-in torch_xmlir; its vendor
# module names the plug-in and backend).
DEVICE_KINDS: Mapping[str, DeviceKind] = {k.name: k for k in (
    DeviceKind("cpu", None, "gloo", "cpu", "CPU", "host CPU cores"),
    DeviceKind("cuda", None, "nccl", "gpu", "GPU", "CUDA (and ROCm/CUDA-compatible) GPUs"),
    DeviceKind("npu", "torch_npu", "hccl", "npu", "NPU", "Huawei Ascend NPUs (torch_npu)"),
    DeviceKind("mlu", "torch_mlu", "cncl", "mlu", "MLU", "Cambricon MLUs (torch_mlu)"),
    DeviceKind("musa", "torch_musa", "mccl", None, "MUSA", "Moore Threads GPUs (torch_musa)"),
    DeviceKind("xpu", None, "xccl", "xpu", "XPU", "XPUs (Intel's torch.xpu, Kunlunxin's torch_xmlir)"),
    DeviceKind("hpu", "habana_frameworks.torch.core", "hccl", None, "HPU",
               "Intel Gaudi HPUs (habana_frameworks)"),
    # TPUs: TensorFlow's TPU devices appear once the TPU system is initialised
    # (device.tensorflow); JAX's through its tpu backend. PyTorch reaches them as kind xla.
    DeviceKind("tpu", "torch_xla", "xla", None, "TPU", "Google TPUs (libtpu)"),
    # torch_xla's lazy XLA device (device.xla) on the PJRT device PJRT_DEVICE names (TPU, or
    # CPU: XLA's CPU backend); the engine names it for a pytorch_xla_<version> framework.
    DeviceKind("xla", "torch_xla", "xla", None, None,
               "XLA devices through torch_xla's PJRT runtime (PJRT_DEVICE)"),
)}

TORCH_XLA_FRAMEWORK = "pytorch_xla"     # the case key's framework: pytorch_xla_<version>


def torch_xla_framework(framework: str) -> bool:
    """Whether a case key's framework runs PyTorch through torch_xla (``pytorch_xla_2.9``)."""
    return framework == TORCH_XLA_FRAMEWORK or framework.startswith(TORCH_XLA_FRAMEWORK + "_")


@dataclass(frozen=True)
class DeviceRequest:
    """What the engine asked for in the launch environment."""

    vendor: str
    kind: DeviceKind
    plugin: Optional[str]
    backend: str

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> DeviceRequest:
        vendor = environ.get(ENV_VENDOR, "") or "(no CHIPPERF_VENDOR)"
        name = environ.get(ENV_DEVICE, "")
        if not name:
            raise DeviceError(f"vendor {vendor!r}: {ENV_DEVICE} is not set: the engine sets it from "
                              "the vendor module; to run on the host CPU set it to 'cpu' explicitly")
        if name not in DEVICE_KINDS:
            raise DeviceError(f"vendor {vendor!r}: {ENV_DEVICE}={name!r} is not a device kind: use "
                              f"one of {', '.join(DEVICE_KINDS)}")
        kind = DEVICE_KINDS[name]
        plugin = environ.get(ENV_PLUGIN, kind.torch_plugin or "") or None
        return cls(vendor, kind, plugin, environ.get(ENV_BACKEND, "") or kind.torch_backend)

    def missing(self, what: str) -> DeviceError:
        """The error for a device this framework build cannot use."""
        return DeviceError(f"vendor {self.vendor!r} names device {self.kind.name!r} "
                           f"({self.kind.what}), but {what}: run in the vendor's image on the "
                           "vendor's hardware (the case does not fall back to the CPU)")


def launch_env(vendor: str, device: str, plugin: Optional[str] = None,
               backend: Optional[str] = None) -> dict[str, str]:
    """The launch-environment variables that name a vendor's device (engine side)."""
    env = {ENV_VENDOR: vendor, ENV_DEVICE: device}
    if plugin is not None:
        env[ENV_PLUGIN] = plugin
    if backend is not None:
        env[ENV_BACKEND] = backend
    return env
