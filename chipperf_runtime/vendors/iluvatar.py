"""Vendor ``iluvatar``: Iluvatar CoreX GPUs (BI-V100, BI-V150) through Iluvatar's
CUDA-compatible PyTorch build (``torch ... +corex``): device ``cuda``, backend ``nccl``.

Container options: FlagPerf's test_conf.py writes ``-v /lib/modules:/lib/modules`` for
iluvatar on top of FlagPerf's own ``--privileged`` container (FlagPerf runs every
container privileged); without Iluvatar's container toolkit the GPUs reach the
container that way, so this vendor asks for ``--privileged`` too. Visible devices:
``CUDA_VISIBLE_DEVICES``. Telemetry: the ``ixsmi`` table (nvidia-smi's layout).
"""

from __future__ import annotations

from typing import Any

from chipperf_runtime.vendors import _smi
from chipperf_runtime.vendors.base import ChipSpec, SmiToolSampler, Vendor

_TF = 1e12
_NO_READING = 65535.0  # what ixsmi prints for a power it cannot read

CHIPS = {
    # Iluvatar's description of the Tiangai 100 (quoted in FlagPerf's iluvatar case READMEs):
    # 147 TFLOPS FP16/BF16 peak. 32 GB memory: FlagPerf's iluvatar README ("Iluvatar BI-V100
    # 32G") and ixsmi (32768 MiB). Bandwidth and other dtypes: no public figure found.
    # TDP not set: ixsmi shows a 250 W cap, which is a setting, not a datasheet TDP.
    "BI-V100": ChipSpec("BI-V100", {"fp16": 147 * _TF, "bf16": 147 * _TF},
                        memory_bytes=32 * 2**30,
                        source="Iluvatar Tiangai 100 description (147 TFLOPS FP16/BF16), 32 GB"),
    # BI-V150: a card carries 2 chips and each chip is one device and one rank (FlagPerf
    # FlagOpen/FlagPerf@1b5a030 base/benchmarks/computation-FP16/main.py prints "BI-V150 has
    # 2 chips" and doubles the per-rank figure for the card); this sheet is per chip.
    # FlagPerf's BI150 READMEs (base/benchmarks/*/iluvatar/BI150/README.md) give TDP 350 W per
    # card ("单卡TDP"), and how it splits between the 2 chips is not published: not set.
    # Their rated-value columns ("标定值") are "/", so peak FLOP/s, memory and bandwidth
    # stay unset too. operation/benchmarks/bmm/iluvatar/BI150/case_config.yaml sets
    # SPECTFLOPS 192 without naming the dtype or whether it is per chip or per card: not used.
    "BI-V150": ChipSpec("BI-V150", source="no public per-chip BI-V150 datasheet: numbers not "
                        "set (FlagOpen/FlagPerf@1b5a030 BI150 READMEs: TDP 350 W per 2-chip "
                        "card)"),
    # MR-V100: the card FlagPerf's IxRT inference run names (FlagOpen/FlagPerf@1b5a030 inference/
    # benchmarks/resnet50/README.md, "天数智芯 MR-V100", mem column "8.02/32.0" GiB). No Iluvatar
    # datasheet was read for it here: peak FLOP/s, bandwidth and TDP not set.
    "MR-V100": ChipSpec("MR-V100", memory_bytes=32 * 2**30,
                        source="FlagOpen/FlagPerf@1b5a030 inference/benchmarks/resnet50/README.md "
                               "(mem total 32.0 GiB); no datasheet read: other figures unknown"),
}


def _container_options(nproc: int) -> str:
    return ("--privileged -v /lib/modules:/lib/modules:ro "
                          "--ipc=host --ulimit memlock=-1 --ulimit stack=67108864")


def parse_ixsmi(text: str) -> tuple[list[dict[str, Any]], list[str]]:
    """The ``ixsmi`` table -> per GPU: util, power (left out when 65535 W), temp, memory."""
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
        if first and first[0].isdigit():
            head = cells
        elif head and first and first[0].endswith("%"):
            try:
                devices.append(_gpu(head, cells))
            except (ValueError, IndexError) as e:
                problems.append(f"ixsmi row {line.strip()!r}: {e}")
            head = []
    return devices, _smi.no_devices(devices, problems, "ixsmi")


def _gpu(head: list[str], row: list[str]) -> dict[str, Any]:
    fan, temp, _perf, power = row[0].split()[:4]
    sample: dict[str, Any] = {"index": int(head[0].split()[0]),
                              "temp_c": _smi.number(temp, "Temp"),
                              "util_pct": _smi.number(row[2].split()[0], "GPU-Util")}
    watts = _smi.number(power, "Pwr:Usage")
    if watts != _NO_READING:
        sample["power_w"] = watts
    sample.update(_smi.memory(*_smi.used_total_mib(row[1], "Memory-Usage")))
    return sample


def _sampler() -> SmiToolSampler:
    tool = _smi.first_tool(["ixsmi", "/usr/local/corex/bin/ixsmi"]) or "ixsmi"
    return SmiToolSampler([tool], parse_ixsmi, {"tool": tool})


VENDOR = Vendor(
    name="iluvatar",
    visible_devices_env="CUDA_VISIBLE_DEVICES",
    chips=CHIPS,
    container_options=_container_options,
    accelerator_sampler=_sampler,
    device="cuda",
)
