"""Vendor ``metax``: MetaX GPUs (C500 family) through MetaX's CUDA-compatible PyTorch build
(MACA): device ``cuda``, collective backend ``nccl`` (MCCL behind the same name).

Container options as FlagPerf's test_conf.py writes them for metax:
``--device=/dev/dri --device=/dev/mxcd --group-add video`` (plus ``/dev/infiniband`` for
multi-node runs, which chipperf leaves to ACCE_CONTAINER_OPT since not every node has
it). Visible devices: ``CUDA_VISIBLE_DEVICES`` (the MACA build honours the CUDA name).
Telemetry: the ``mx-smi`` table.
"""

from __future__ import annotations

import re
from typing import Any

from chipperf_runtime.vendors import _smi
from chipperf_runtime.vendors.base import ChipSpec, SmiToolSampler, Vendor

CHIPS = {
    # MetaX publishes no C500 datasheet with peak FLOP/s, bandwidth or TDP that we could
    # find: those are not set. Memory is what mx-smi reports as a C500's total (65536 MiB,
    # tests/unit/data/smi/mx-smi_c500.txt; FlagPerf's training/metax/README.md names the card
    # "曦云®C500 64G"); its 350 W there is a cap setting, not a TDP. FlagPerf's base/ READMEs
    # rate the C550 (TDP 450 W, memory bandwidth 1.8 TB/s), a different chip: not carried over.
    "C500": ChipSpec("C500", memory_bytes=65536 * 2**20,
                     source="mx-smi 2.2.12 output on a C500 (memory total); "
                            "no public datasheet for peak FLOP/s, bandwidth or TDP"),
}

_BOARD = re.compile(r"^(?P<board>\d+)\s+(?P<name>.+?)\s+(?P<gpu>\d+)\s+(On|Off)\s+"
                    r"(?P<bus>[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.\d)\s+(?P<util>\d+)%")
_USAGE = re.compile(r"^(?P<power>\d+(?:\.\d+)?)W\s*/\s*\d+(?:\.\d+)?W\s+(?P<temp>\d+(?:\.\d+)?)C\s+"
                    r"\S+\s+(?P<mem>\d+\s*/\s*\d+)\s*MiB")


def _container_options(nproc: int) -> str:
    return ("--device=/dev/dri --device=/dev/mxcd --group-add video "
                          "--ipc=host --ulimit memlock=-1 --ulimit stack=67108864")


def parse_mx_smi(text: str) -> tuple[list[dict[str, Any]], list[str]]:
    """The ``mx-smi`` device table (with or without its box characters) -> per GPU."""
    devices: list[dict[str, Any]] = []
    problems: list[str] = []
    board = None
    for raw in text.splitlines():
        line = raw.strip().strip("|").strip()
        if line.startswith(("Sliced GPU", "Process")):
            break
        match = _BOARD.match(line)
        if match:
            board = match
            continue
        usage = _USAGE.match(line)
        if board is not None and usage:
            sample: dict[str, Any] = {"index": int(board["gpu"]), "util_pct": float(board["util"]),
                                      "power_w": float(usage["power"]), "temp_c": float(usage["temp"])}
            sample.update(_smi.memory(*_smi.used_total_mib(usage["mem"], "Memory-Usage")))
            devices.append(sample)
            board = None
        elif board is not None and line:
            problems.append(f"mx-smi: no usage row after board row {board.group(0)!r}: {line!r}")
            board = None
    return devices, _smi.no_devices(devices, problems, "mx-smi")


def _sampler() -> SmiToolSampler:
    return SmiToolSampler(["mx-smi"], parse_mx_smi, {"tool": "mx-smi"})


VENDOR = Vendor(
    name="metax",
    visible_devices_env="CUDA_VISIBLE_DEVICES",
    chips=CHIPS,
    container_options=_container_options,
    accelerator_sampler=_sampler,
    device="cuda",
)
