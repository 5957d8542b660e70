"""The accelerator source: the vendor plugin's sampler driven by the common loop.

The vendor module (``chipperf_runtime/vendors/<name>.py``) holds only what differs: its
``VENDOR.accelerator_sampler`` factory sets up once and reads one sample per call
(see ``chipperf_runtime.vendors.base.AcceleratorSampler`` and docs/adding-a-vendor.md).
Lines go to ``<vendor>_monitor.log`` as ``{"ts_ms", "source": "<vendor>",
"devices": [{"index": 0, "util_pct": .., "power_w": .., ...}, ...]}``.
"""

from __future__ import annotations

from typing import Any, Callable

from chipperf_runtime.monitors.source import SampleError, SamplerUnavailable
from chipperf_runtime.vendors.base import AcceleratorSampler


class AcceleratorSource:
    def __init__(self, vendor: str, factory: Callable[[], AcceleratorSampler]):
        self.name = vendor
        self.file = f"{vendor}_monitor.log"
        self._factory = factory
        self._sampler: AcceleratorSampler | None = None

    def setup(self) -> dict[str, Any]:
        try:
            self._sampler = self._factory()
        except SamplerUnavailable:
            raise
        except Exception as e:  # a broken vendor library is this source's problem only
            raise SamplerUnavailable(f"{self.name} sampler setup failed: "
                                     f"{type(e).__name__}: {e}") from e
        return self._sampler.info()

    def sample(self) -> dict[str, Any] | None:
        if self._sampler is None:
            raise SampleError("sampler not set up")
        devices = self._sampler.read()
        if not devices:
            raise SampleError(f"{self.name} sampler returned no device")
        return {"devices": devices}

    def close(self) -> None:
        if self._sampler is not None:
            self._sampler.close()
            self._sampler = None
