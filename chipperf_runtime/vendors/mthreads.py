"""Vendor ``mthreads``: Moore Threads GPUs through torch_musa (device ``musa``, backend mccl).

Container options as FlagPerf's test_conf.py writes them for mthreads:
``--env MTHREADS_VISIBLE_DEVICES=all`` (Moore Threads' container runtime, set as the
Docker default runtime, maps the GPUs). Visible devices inside: ``MUSA_VISIBLE_DEVICES``.

Telemetry: ``mthreads-gmi``'s default table, one three-line block per GPU (ID and name |
bus id | %GPU and ``used MiB(total MiB)``; then device type and perf state | lane width |
temperature). It prints no power, so samples carry utilisation, memory and temperature, and
``info()`` lists power as unsupported.
"""

from __future__ import annotations

import re
from typing import Any

from chipperf_runtime.vendors import _smi
from chipperf_runtime.vendors.base import ChipSpec, SmiToolSampler, Vendor

_TF = 1e12

CHIPS = {
    # Moore Threads MTT S4000 product page: FP32 25 TFLOPS, TF32 50 TFLOPS, FP16/BF16
    # 100 TFLOPS, 48 GB GDDR6, 768 GB/s, 450 W. The 48 GB is 48 GiB: mthreads-gmi shows an S4000
    # with 49152 MiB (tests/unit/data/smi/mthreads-gmi_s4000.txt).
    "S4000": ChipSpec("S4000", {"fp32": 25 * _TF, "tf32": 50 * _TF, "fp16": 100 * _TF,
                                "bf16": 100 * _TF},
                      memory_bytes=48 * 2**30, tdp_watts=450, memory_bandwidth=768e9,
                      source="Moore Threads MTT S4000 product page"),
}


def _container_options(nproc: int) -> str:
    return ("--env MTHREADS_VISIBLE_DEVICES=all --ipc=host "
                          "--ulimit memlock=-1 --ulimit stack=67108864")


# A GPU block's first line: "0    MTT S4000    |00000000:08:00.0    |0%    0MiB(49152MiB)";
# its second: "     Physical      N/A    |16x(16x)    |44C   YES".
_HEAD = re.compile(r"^(\d+)\s+(.+?)\s*\|([^|]*)\|\s*(\S+)\s+(\S+)\s*$")
_MEM = re.compile(r"^(\d+(?:\.\d+)?)MiB\((\d+(?:\.\d+)?)MiB\)$")


def parse_mthreads_gmi(text: str) -> tuple[list[dict[str, Any]], list[str]]:
    """``mthreads-gmi`` (no options) -> one dict per GPU, problems for rows it cannot read."""
    devices: list[dict[str, Any]] = []
    problems: list[str] = []
    lines = text.splitlines()
    for number, line in enumerate(lines):
        head = _HEAD.match(line)
        if head is None:
            continue
        index, _name, _bus, util, mem = head.groups()
        try:
            sample: dict[str, Any] = {"index": int(index),
                                      "util_pct": _smi.number(util, "%GPU")}
            used_total = _MEM.match(mem)
            if used_total is None:
                raise ValueError(f"Mem: expected 'usedMiB(totalMiB)', got {mem!r}")
            sample.update(_smi.memory(int(float(used_total.group(1)) * 2**20),
                                      int(float(used_total.group(2)) * 2**20)))
            second = lines[number + 1].split("|") if number + 1 < len(lines) else []
            if len(second) < 3:
                raise ValueError("the block's second line (perf | lanes | temperature) is missing")
            sample["temp_c"] = _smi.number(second[2].split()[0], "Temp")
            devices.append(sample)
        except (ValueError, IndexError) as e:
            problems.append(f"mthreads-gmi GPU row {line.strip()!r}: {e}")
    return devices, _smi.no_devices(devices, problems, "mthreads-gmi")


def _sampler() -> SmiToolSampler:
    return SmiToolSampler(["mthreads-gmi"], parse_mthreads_gmi,
                          {"tool": "mthreads-gmi", "unsupported": {
                              "power_w": "mthreads-gmi's table shows no power"}})


VENDOR = Vendor(
    name="mthreads",
    visible_devices_env="MUSA_VISIBLE_DEVICES",
    chips=CHIPS,
    container_options=_container_options,
    accelerator_sampler=_sampler,
    device="musa",
)
