"""PyTorch on an XLA device through torch_xla's PJRT runtime (device kind ``xla``).

torch_xla traces the tensor operations a step issues into one lazy graph; ``mark_step``
(``torch_xla.sync()``) cuts it, XLA compiles a graph the first time it sees its shape and runs
it on the PJRT device that ``PJRT_DEVICE`` names (``TPU`` on a Cloud TPU VM, ``CPU``: XLA's CPU
backend, where chipperf proves the path). An operation torch_xla cannot lower runs instead on
the CPU in eager PyTorch, copying its tensors off the device and back; torch_xla counts each
such call in its metrics as a counter named ``aten::<op>``. ``fallback_ops`` reads them, so a
case can stop instead of silently measuring a partly non-XLA step.

``XlaModule`` answers what ``chipperf_runtime.device.torch.TorchDevice`` asks of a device module
(``synchronize``, ``device_count``, memory, name). torch_xla is imported only when a rank opens
this device; the version check comes first, because a torch_xla built for another torch fails
on import with an undefined symbol rather than a sentence.
"""

from __future__ import annotations

import importlib.metadata
from typing import Any, Optional

import torch

from chipperf_runtime.device.xlametrics import fallback_ops, metric_seconds

# torch_xla's metrics of the XLA compilations and executions (nanoseconds accumulated)
_COMPILE, _EXECUTE = "CompileTime", "ExecuteTime"


def installed_torch_xla() -> Optional[str]:
    try:
        return importlib.metadata.version("torch_xla")
    except importlib.metadata.PackageNotFoundError:
        return None


class XlaModule:
    """The device module of kind ``xla``: torch_xla's answers to the device layer's questions."""

    def __init__(self) -> None:
        import torch_xla
        import torch_xla.core.xla_model as xm
        import torch_xla.debug.metrics as met
        import torch_xla.runtime as xr

        self._torch_xla, self._xm, self._met, self._xr = torch_xla, xm, met, xr

    def is_available(self) -> bool:
        return self.device_count() > 0

    def device_count(self) -> int:
        return int(self._xr.addressable_runtime_device_count())

    def device(self) -> torch.device:
        return self._torch_xla.device()

    def set_device(self, device: torch.device) -> None:
        """One process drives the PJRT client's devices; nothing to make current."""

    def synchronize(self, device: Optional[torch.device] = None) -> None:
        """Cut the pending graph and wait until the device has run everything queued."""
        self._torch_xla.sync()
        self._xm.wait_device_ops()

    def mark_step(self) -> None:
        """End this step's lazy graph: compiled when new, then launched (not waited for)."""
        self._torch_xla.sync()

    def pjrt_device(self) -> str:
        return str(self._xr.device_type())

    def get_device_name(self, device: torch.device) -> str:
        return f"{self.pjrt_device()} through PJRT (torch_xla {self._torch_xla.__version__})"

    def max_memory_allocated(self, device: torch.device) -> Optional[int]:
        """Peak bytes the PJRT device reports (TPU HBM); None where it reports none (CPU)."""
        try:
            info = self._xm.get_memory_info(device)
        except Exception:  # noqa: BLE001 - the CPU client has no memory statistics
            return None
        peak = info.get("peak_bytes_used", info.get("bytes_used"))
        return int(peak) if peak is not None else None

    def counters(self) -> dict[str, int]:
        return {name: int(self._met.counter_value(name) or 0) for name in self._met.counter_names()}

    def fallback_ops(self) -> dict[str, int]:
        return fallback_ops(self.counters())

    def record(self) -> dict[str, Any]:
        """What XLA has done in this process so far, for INIT_END and FINISHED's ``xla``."""
        compiles, compile_s = metric_seconds(self._met.metric_data(_COMPILE))
        runs, run_s = metric_seconds(self._met.metric_data(_EXECUTE))
        return {"compiler": "XLA", "runtime": "PJRT", "pjrt_device": self.pjrt_device(),
                "device": str(self.device()), "devices": self.device_count(),
                "torch_xla_version": self._torch_xla.__version__,
                "compiles": compiles, "compile_time_s": round(compile_s, 3),
                "executions": runs, "execute_time_s": round(run_s, 3),
                "fallback_ops": self.fallback_ops()}
