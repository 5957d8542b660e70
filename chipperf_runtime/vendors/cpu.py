"""Reference vendor ``cpu``: runs every case on CPU cores, no accelerator.

Chip names describe the host CPU family; their spec sheets carry no peak FLOP/s
(it depends on the SKU, core count and clocks), so MFU is reported as not
measurable rather than guessed. The case benchmarks measure a GEMM peak instead.

A chip here is a config key (``config_xeonx1x2.py`` runs on any x86-64 host, an AMD EPYC
one too): reports name the CPU the nodes reported beside it, "AMD EPYC 7B13 64-Core
Processor (xeon)" (chipperf/results/read/hostchip.py).
"""

from chipperf_runtime.vendors.base import ChipSpec, HardwareValidation, Vendor

VENDOR = Vendor(
    name="cpu",
    visible_devices_env=None,
    chips={
        "xeon": ChipSpec("xeon", source="generic x86-64 server CPU; peak depends on the SKU"),
        "epyc": ChipSpec("epyc", source="generic x86-64 server CPU; peak depends on the SKU"),
        "x86": ChipSpec("x86", source="any x86-64 CPU"),
    },
    device="cpu",
    pjrt_device="CPU",     # pytorch_xla_<version>: torch_xla on XLA's CPU backend
    # Every cpu case runs in CI on the build machine's own CPU (the simulated cluster's
    # hosts share it), whatever the chip label says: so for every chip.
    validated_on_hardware=HardwareValidation(
        ran=True, note="CI runs every cpu case on this machine's CPU, on the simulated cluster"),
)
