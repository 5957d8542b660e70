"""Reference vendor ``cpu``: runs every case on CPU cores, no accelerator.

Chip names describe the host CPU family; their spec sheets carry no peak FLOP/s
(it depends on the SKU, core count and clocks), so MFU is reported as not
measurable rather than guessed. The case benchmarks measure a GEMM peak instead.
"""

from chipperf.vendors.base import ChipSpec, Vendor

VENDOR = Vendor(
    name="cpu",
    visible_devices_env=None,
    chips={
        "xeon": ChipSpec("xeon", source="generic x86-64 server CPU; peak depends on the SKU"),
        "epyc": ChipSpec("epyc", source="generic x86-64 server CPU; peak depends on the SKU"),
        "x86": ChipSpec("x86", source="any x86-64 CPU"),
    },
    device="cpu",
)
