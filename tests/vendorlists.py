"""Vendor lists for tests, derived from the vendor registry (chipperf_runtime.vendors: a vendor
is a module there), never written by hand: a new vendor is tested without editing a test."""

from __future__ import annotations

from pathlib import Path

from chipperf_runtime.vendors import get_vendor, vendor_names

# The vendors whose accelerator sampler reads no command-line tool: cpu has none, nvidia reads
# NVML (pynvml); and those with no sampler at all (zixiao, hexaflake: no published sample of
# their tools' output, their modules say).
NO_SAMPLER_TOOL = ("cpu", "nvidia", *(v for v in vendor_names()
                                      if v != "cpu" and get_vendor(v).accelerator_sampler is None))


def chip_vendors() -> list[str]:
    """Every vendor with an accelerator (all but cpu)."""
    return [v for v in vendor_names() if v != "cpu"]


def tool_vendors() -> list[str]:
    """The vendors whose sampler reads a command-line tool (all but cpu and nvidia's NVML)."""
    return [v for v in vendor_names() if v not in NO_SAMPLER_TOOL]


def inference_vendor_files(config_dir: Path) -> list[str]:
    """The vendors of the inference ``*_configuration.yaml`` files in ``config_dir``'s
    vendor_config folder, sorted."""
    return sorted(p.name.removesuffix("_configuration.yaml")
                  for p in (config_dir / "vendor_config").glob("*_configuration.yaml"))
