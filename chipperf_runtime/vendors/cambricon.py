"""Vendor ``cambricon``: Cambricon MLUs through torch_mlu (device ``mlu``, backend cncl).

Container: the MLU device nodes (``/dev/cambricon_devN``, ``/dev/cambricon_ctl``) and the
host's ``cnmon`` bound in, as Cambricon's and PaddlePaddle's MLU container guides do
(``-v /usr/bin/cnmon:/usr/bin/cnmon``). Visible devices: ``MLU_VISIBLE_DEVICES`` (FlagPerf
test_conf.py). Telemetry: the ``cnmon`` table (no machine-readable mode is documented).
"""

from __future__ import annotations

from typing import Any

from chipperf_runtime.vendors import _smi
from chipperf_runtime.vendors.base import ChipSpec, SmiToolSampler, Vendor

_TF = 1e12

CHIPS = {
    # Cambricon MLU370-X8 product page: per card FP32 24 TFLOPS, FP16/BF16 96 TFLOPS,
    # 48 GB LPDDR5, 614.4 GB/s, 250 W. The card carries two MLU370 chips and the driver
    # shows each as one device (cnmon lists two 23374 MiB devices per card,
    # tests/unit/data/smi/cnmon_mlu370x8.txt), so one device is half of each figure.
    # TDP not set: cnmon shows a 250 W cap on each device, so how the card's 250 W
    # splits between its chips is not published.
    "MLU370-X8": ChipSpec("MLU370-X8", {"fp32": 12 * _TF, "fp16": 48 * _TF, "bf16": 48 * _TF},
                          memory_bytes=24 * 10**9,
                          memory_bandwidth=307.2e9,
                          source="Cambricon MLU370-X8 product page (per card: 24/96/96 TFLOPS, "
                                 "48 GB, 614.4 GB/s, 250 W), halved per device"),
    # FlagPerf's cambricon configs name the chip "MLU" (MLU590 family): Cambricon publishes
    # no MLU590 datasheet, so no number is set. FlagPerf (FlagOpen/FlagPerf@1b5a030) gives
    # none either: its base/ MLU READMEs write "/" for product, TDP and every rated value,
    # its operation/ MLU case configs hold the placeholder SPECTFLOPS 999999, and the
    # commented "argmax:BF16:312:flaggems:MLU" key in operation/configs/host.yaml carries
    # the same 312 as the A100 example key above it, with no MLU source: not used.
    "MLU": ChipSpec("MLU", source="no public MLU590 datasheet: numbers not set"),
}


def _container_options(nproc: int) -> str:
    devices = " ".join(f"--device=/dev/cambricon_dev{i}" for i in range(nproc))
    return (f"{devices} --device=/dev/cambricon_ctl "
                          "-v /usr/bin/cnmon:/usr/bin/cnmon:ro --cap-add=SYS_PTRACE "
                          "--ipc=host --ulimit memlock=-1 --ulimit stack=67108864")


def parse_cnmon(text: str) -> tuple[list[dict[str, Any]], list[str]]:
    """The ``cnmon`` table -> one dict per card row pair (util, power, temp, memory)."""
    devices: list[dict[str, Any]] = []
    problems: list[str] = []
    head: list[str] = []
    for line in text.splitlines():
        if "Processes" in line:
            break
        cells = _smi.table_cells(line)
        if len(cells) != 3:
            continue
        first = cells[0].split()
        if first and first[0].isdigit() and "%" in cells[2]:
            head = cells
        elif head and "W/" in cells[0].replace(" ", ""):
            try:
                devices.append(_card(head, cells))
            except ValueError as e:
                problems.append(f"cnmon row {line.strip()!r}: {e}")
            head = []
    return devices, _smi.no_devices(devices, problems, "cnmon")


def _card(head: list[str], row: list[str]) -> dict[str, Any]:
    fan_temp, _, power = row[0].partition("C ")
    sample: dict[str, Any] = {"index": int(head[0].split()[0]),
                              "util_pct": _smi.number(head[2].split()[0], "Util"),
                              "temp_c": _smi.number(fan_temp.split()[-1], "Temp"),
                              "power_w": _smi.number(power, "Pwr:Usage")}
    sample.update(_smi.memory(*_smi.used_total_mib(row[1], "Memory-Usage")))
    return sample


def _sampler() -> SmiToolSampler:
    return SmiToolSampler(["cnmon"], parse_cnmon, {"tool": "cnmon"})


VENDOR = Vendor(
    name="cambricon",
    visible_devices_env="MLU_VISIBLE_DEVICES",
    chips=CHIPS,
    container_options=_container_options,
    accelerator_sampler=_sampler,
    device="mlu",
)
