"""PyTorch side of the device layer: the device of this local rank, asked of the framework.

    device = open_torch_device(local_rank)          # DeviceError when it cannot be seen
    model.to(device.device)
    tdist.init_process_group(device.backend, ...)
    with torch.autocast(device.autocast_type, dtype=torch.bfloat16): ...
    device.synchronize(); device.max_memory_allocated()

Every accelerator kind answers through its ``torch.<kind>`` module (``torch.cuda``,
``torch.npu`` once torch_npu is imported, ``torch.mlu``, ``torch.musa``, ``torch.xpu``,
``torch.hpu``), found with ``torch.get_device_module``; nothing here names one of them.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Optional

import torch

from chipperf_runtime.device import DeviceError, DeviceRequest
from chipperf_runtime.device.xla import XlaModule, installed_torch_xla
from chipperf_runtime.device.xlametrics import version_mismatch

__all__ = ["DeviceError", "TorchDevice", "open_torch_device"]


@dataclass(frozen=True)
class TorchDevice:
    """The device one rank runs on, and the few things cases ask of it."""

    request: DeviceRequest
    device: torch.device
    module: Optional[Any]          # torch.<kind> (None on cpu)

    @property
    def type(self) -> str:
        """The device kind the vendor named (``cuda``, ``npu``, ..., ``cpu``)."""
        return self.request.kind.name

    @property
    def vendor(self) -> str:
        return self.request.vendor

    @property
    def backend(self) -> str:
        """The torch.distributed backend for this device (nccl, hccl, cncl, mccl, xccl, gloo)."""
        return self.request.backend

    @property
    def autocast_type(self) -> str:
        """``device_type`` for ``torch.autocast`` and ``torch.amp.GradScaler``."""
        return self.device.type

    @property
    def is_accelerator(self) -> bool:
        return self.module is not None

    @property
    def pin_memory(self) -> bool:
        """Whether host batches should be pinned for copies to this device (not for XLA's:
        torch_xla copies from ordinary host memory)."""
        return self.is_accelerator and not self.is_xla

    @property
    def is_xla(self) -> bool:
        """Whether this is a torch_xla device: lazy tensors, one XLA graph per ``mark_step``."""
        return isinstance(self.module, XlaModule)

    def mark_step(self) -> None:
        """End a step: on an XLA device its traced graph is cut, compiled when new and
        launched (``torch_xla.sync()``); every other device ran the step eagerly."""
        if isinstance(self.module, XlaModule):
            self.module.mark_step()

    def synchronize(self) -> None:
        """Wait for all queued work on this device (nothing is queued on the CPU)."""
        if self.module is not None:
            self.module.synchronize(self.device)

    def memory_allocated(self) -> Optional[int]:
        """Bytes the framework's allocator holds now; None where it cannot be read (cpu)."""
        return self._memory("memory_allocated")

    def max_memory_allocated(self) -> Optional[int]:
        """Peak bytes since start (or the last ``reset_peak_memory``); None on cpu."""
        return self._memory("max_memory_allocated")

    def reset_peak_memory(self) -> None:
        reset = getattr(self.module, "reset_peak_memory_stats", None)
        if reset is not None:
            reset(self.device)

    def supports_dtype(self, dtype: torch.dtype) -> bool:
        """Whether the device computes in ``dtype`` (bf16 is asked of the device module)."""
        if dtype == torch.bfloat16 and self.module is not None:
            check = getattr(self.module, "is_bf16_supported", None)
            return bool(check()) if check is not None else True
        return True

    def full_precision_fp32(self) -> None:
        """Make fp32 mean fp32: no reduced-precision matmul or convolution (TF32 and kin)
        behind a float32 tensor, in this process."""
        torch.set_float32_matmul_precision("highest")
        torch.backends.cudnn.allow_tf32 = False

    def int_mm_path(self) -> str:
        """Which implementation ``torch._int_mm`` (int8 x int8 -> int32) dispatches to here."""
        if self.type == "cuda":
            if torch.version.hip:
                return "hipBLASLt int8 GEMM (ROCm)"
            return "cuBLASLt int8 GEMM on the integer tensor cores (IMMA)"
        if self.type == "cpu":
            if torch.backends.mkldnn.is_available() and torch.backends.mkldnn.enabled:
                return "oneDNN s8 x s8 -> s32 matmul on the CPU (no integer tensor cores)"
            return "ATen's int8 loop on the CPU (oneDNN not enabled in this torch)"
        return f"the {self.type} plug-in's torch._int_mm kernel"

    def name(self) -> str:
        """The device's model name as the framework reports it ("cpu" on the CPU)."""
        get_name = getattr(self.module, "get_device_name", None)
        return str(get_name(self.device)) if get_name is not None else self.type

    def describe(self) -> dict[str, Any]:
        """Facts for INIT_END / sys info: vendor, device, name, backend, plug-in, torch version."""
        return {"vendor": self.vendor, "device": str(self.device), "device_name": self.name(),
                "dist_backend": self.backend, "plugin": self.request.plugin,
                "torch_version": torch.__version__}

    def _memory(self, reading: str) -> Optional[int]:
        read = getattr(self.module, reading, None)
        value = read(self.device) if read is not None else None
        return int(value) if value is not None else None


def open_torch_device(local_rank: int = 0, environ: Mapping[str, str] | None = None) -> TorchDevice:
    """The device the vendor named (``CHIPPERF_DEVICE``) for ``local_rank``, made current.

    Raises ``DeviceError`` naming vendor, device and what is missing when the plug-in does not
    import, this PyTorch build has no such device, or fewer devices are visible than ranks."""
    environ = os.environ if environ is None else environ
    request = DeviceRequest.from_env(environ)
    if request.kind.name == "xla":
        return _open_xla(request, local_rank, environ)
    _import_plugin(request)
    if not request.kind.is_accelerator:
        return TorchDevice(request, torch.device("cpu"), None)
    module = _device_module(request)
    count = int(module.device_count())
    if local_rank >= count:
        raise request.missing(f"local rank {local_rank} needs device index {local_rank} and "
                              f"torch.{request.kind.name} sees {count} device(s) (check the "
                              "visible-devices variable and the container's device options)")
    device = torch.device(request.kind.name, local_rank)
    module.set_device(device)
    return TorchDevice(request, device, module)


def _open_xla(request: DeviceRequest, local_rank: int, environ: Mapping[str, str]) -> TorchDevice:
    """torch_xla's device on the PJRT device that ``PJRT_DEVICE`` names (the engine sets it from
    the vendor: CPU, TPU); torch_xla is checked against this torch before it is imported."""
    problem = version_mismatch(torch.__version__, installed_torch_xla())
    if problem is not None:
        raise request.missing(problem)
    wanted = environ.get("PJRT_DEVICE", "")
    if not wanted:
        raise request.missing("PJRT_DEVICE is not set (the engine sets it from the vendor: CPU "
                              "for cpu, TPU for tpu), and torch_xla would choose a device itself")
    _import_plugin(request)
    module = XlaModule()
    if module.pjrt_device() != wanted.upper():
        raise request.missing(f"PJRT_DEVICE={wanted} and torch_xla's runtime is "
                              f"{module.pjrt_device()}")
    if local_rank >= module.device_count():
        raise request.missing(f"local rank {local_rank} needs XLA device index {local_rank} and "
                              f"the PJRT client has {module.device_count()}")
    return TorchDevice(request, module.device(), module)


def _import_plugin(request: DeviceRequest) -> None:
    if not request.plugin:
        return
    try:
        importlib.import_module(request.plugin)
    except Exception as exc:  # an ImportError, or the plug-in failing to find its driver
        raise request.missing(f"its PyTorch plug-in {request.plugin!r} does not import "
                              f"({type(exc).__name__}: {exc})") from exc


def _device_module(request: DeviceRequest) -> Any:
    name = request.kind.name
    try:
        module = torch.get_device_module(name)
    except (RuntimeError, AttributeError) as exc:
        raise request.missing(f"PyTorch {torch.__version__} has no torch.{name} module "
                              f"({exc})") from exc
    available = getattr(module, "is_available", None)
    if available is None or not available():
        raise request.missing(f"torch.{name}.is_available() is False in PyTorch {torch.__version__} "
                              "(no such device is visible in this container, or this build lacks it)")
    return module


