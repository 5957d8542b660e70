"""Paddle side of the device layer: ``paddle.set_device`` on the vendor's device, or an error.

    device = open_paddle_device(local_rank)     # e.g. place "gpu:0", "npu:0", "xpu:1", "cpu"
    device.synchronize(); device.max_memory_allocated()

Paddle names CUDA GPUs ``gpu``, Kunlunxin ``xpu``; other vendors' chips are custom devices
(``npu``, ``mlu``, ... from the vendor's PaddleCustomDevice build).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Optional

import paddle

from chipperf_runtime.device import DeviceError, DeviceRequest

__all__ = ["DeviceError", "PaddleDevice", "open_paddle_device"]


@dataclass(frozen=True)
class PaddleDevice:
    request: DeviceRequest
    place: str                 # what paddle.set_device took: "cpu", "gpu:0", "npu:1", ...

    @property
    def type(self) -> str:
        return self.place.split(":")[0]

    @property
    def is_accelerator(self) -> bool:
        return self.type != "cpu"

    def synchronize(self) -> None:
        if self.is_accelerator:
            paddle.device.synchronize(self.place)

    def max_memory_allocated(self) -> Optional[int]:
        """Peak bytes Paddle's allocator held on this device; None on cpu."""
        if not self.is_accelerator:
            return None
        return int(paddle.device.max_memory_allocated(self.place))

    def describe(self) -> dict[str, str]:
        return {"vendor": self.request.vendor, "device": self.place,
                "paddle_version": paddle.__version__}


def open_paddle_device(local_rank: int = 0, environ: Mapping[str, str] | None = None) -> PaddleDevice:
    """Set and return the device the vendor named for ``local_rank``; ``DeviceError`` if unseen."""
    request = DeviceRequest.from_env(os.environ if environ is None else environ)
    kind = request.kind.paddle_type
    if kind is None:
        raise request.missing("Paddle has no build for this device kind")
    if kind == "cpu":
        paddle.set_device("cpu")
        return PaddleDevice(request, "cpu")
    count = _visible(kind)
    if local_rank >= count:
        raise request.missing(f"Paddle {paddle.__version__} sees {count} {kind!r} device(s) and "
                              f"local rank {local_rank} needs index {local_rank}")
    place = f"{kind}:{local_rank}"
    paddle.set_device(place)
    return PaddleDevice(request, place)


def _visible(kind: str) -> int:
    """How many devices of ``kind`` this Paddle build sees (0 when it was built without them)."""
    if kind == "gpu":
        return paddle.device.cuda.device_count() if paddle.device.is_compiled_with_cuda() else 0
    if kind == "xpu" and paddle.device.is_compiled_with_xpu():
        return int(paddle.device.xpu.device_count())
    if kind not in (paddle.device.get_all_custom_device_type() or []):
        return 0
    return sum(1 for d in paddle.device.get_available_custom_device() or []
               if d.split(":")[0] == kind)
