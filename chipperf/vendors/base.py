"""What a vendor plugin says: container device options, visible-devices variable,
how to read one accelerator sample, and its chips' spec sheets.

Vendor modules run inside containers too (the monitor sidecar imports them), so
they import only the standard library at module level; a vendor library such as
``pynvml`` is imported inside the sampler.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Optional


@dataclass(frozen=True)
class ChipSpec:
    """One chip's spec sheet. ``peak_flops`` maps dtype -> dense FLOP/s per chip."""

    name: str
    peak_flops: Mapping[str, float] = field(default_factory=dict)
    memory_bytes: Optional[int] = None
    tdp_watts: Optional[float] = None
    source: str = ""  # where the numbers come from (datasheet name / URL)


# A sampler reads one sample of every accelerator on the node: a list of
# per-device dicts (see chipperf.monitors for the keys). It raises
# ``SamplerUnavailable`` with the reason when the source is missing.
AcceleratorSampler = Callable[[], "list[dict[str, Any]]"]


class SamplerUnavailable(Exception):
    """The accelerator telemetry source is not available on this node."""


@dataclass(frozen=True)
class Vendor:
    name: str
    visible_devices_env: Optional[str]
    chips: Mapping[str, ChipSpec]
    # docker SDK keyword arguments for containers.run(): device_requests, devices, ipc_mode ...
    container_options: Callable[[int], Mapping[str, Any]] = lambda nproc: {}
    # Factory of the accelerator sampler (None: the vendor has no accelerator telemetry).
    accelerator_sampler: Optional[Callable[[], AcceleratorSampler]] = None
    # Value of the visible-devices variable for nproc processes on a node.
    visible_devices: Callable[[int], str] = lambda nproc: ",".join(str(i) for i in range(nproc))

    def chip(self, name: str) -> Optional[ChipSpec]:
        return self.chips.get(name) or self.chips.get(name.lower()) or next(
            (c for k, c in self.chips.items() if k.lower() == name.lower()), None)
