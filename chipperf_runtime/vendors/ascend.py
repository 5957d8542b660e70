"""Vendor ``ascend``: Huawei Ascend NPUs through torch_npu (device ``npu``, backend hccl).

Container: the device nodes and the host driver mounted the way Huawei's container
guide writes ``docker run`` for Ascend (``/dev/davinciN``, ``davinci_manager``,
``devmm_svm``, ``hisi_hdc``; ``/usr/local/Ascend/driver``, ``/usr/local/dcmi`` and
``npu-smi`` bound from the host). FlagPerf's test_conf.py writes the volumes as
``-v /usr/local/Ascend/driver`` (no host side), which Docker reads as an anonymous
volume; here they are bind mounts of the host paths.

Visible devices: ``ASCEND_RT_VISIBLE_DEVICES`` (CANN runtime; FlagPerf names
``ASCEND_VISIBLE_DEVICES``, the variable of Ascend's container runtime instead).
Telemetry: ``npu-smi info`` parsed from its table (npu-smi has no machine format).
"""

from __future__ import annotations

from typing import Any

from chipperf_runtime.vendors import _smi
from chipperf_runtime.vendors.base import ChipSpec, SmiToolSampler, Vendor

_TF = 1e12

CHIPS = {
    # Huawei press release "Huawei launches Ascend 910" (2019-08-23): 256 TFLOPS FP16,
    # 512 TOPS INT8, 310 W max. Memory size and bandwidth: no per-chip figure published
    # in that release; left out.
    "Ascend910": ChipSpec("Ascend910", {"fp16": 256 * _TF}, tdp_watts=310,
                          source="Huawei press release, Ascend 910 launch, 2019-08-23"),
    # Ascend 910B NPU of an Atlas 800T A2 server; one NPU is one npu-smi device and one rank.
    # FlagPerf (FlagOpen/FlagPerf@1b5a030), its base/ case READMEs for this chip:
    # - memory 64 GiB: base/benchmarks/main_memory-capacity/ascend/README.md gives the
    #   "主存储容量标定值" (rated capacity) as 64GiB per card;
    # - TDP 350 W: "TDP：350W" in the chip block of base/benchmarks/computation-{FP16,BF16,
    #   FP32,INT8}/ascend/README.md and main_memory-capacity/ascend/README.md.
    # Peak FLOP/s and memory bandwidth: those READMEs leave the rated value ("标定值") as "/"
    # and Huawei publishes no per-chip 910B datasheet (Atlas 800T A2 pages give server
    # totals): not set. Third-party pages quote conflicting 910B figures; none is used.
    "Atlas800TA2": ChipSpec("Atlas800TA2", memory_bytes=64 * 2**30, tdp_watts=350,
                            source="FlagOpen/FlagPerf@1b5a030 base/benchmarks/main_memory-"
                                   "capacity/ascend/README.md (64 GiB rated) and computation-*/"
                                   "ascend/README.md (TDP 350 W); no public peak FLOP/s or "
                                   "bandwidth"),
}

_BLOCK_HEALTH = ("OK", "Warning", "Alarm", "Critical", "UNKNOWN", "NOT_EXIST")


def _container_options(nproc: int) -> str:
    devices = " ".join(f"--device=/dev/davinci{i}" for i in range(nproc))
    return (
        f"{devices} --device=/dev/davinci_manager --device=/dev/devmm_svm "
        "--device=/dev/hisi_hdc -v /usr/local/Ascend/driver:/usr/local/Ascend/driver:ro "
        "-v /usr/local/dcmi:/usr/local/dcmi:ro -v /usr/local/bin/npu-smi:/usr/local/bin/npu-smi:ro "
        "--ipc=host --ulimit memlock=-1 --ulimit stack=67108864")


def parse_npu_smi_info(text: str) -> tuple[list[dict[str, Any]], list[str]]:
    """``npu-smi info`` -> one dict per chip; the index is the chip's Phy-ID where the
    table has one (multi-chip NPUs), else its NPU id. Power ``-`` (second die of a
    module, reported on the first) is left out."""
    devices: list[dict[str, Any]] = []
    problems: list[str] = []
    head: list[str] = []
    for line in text.splitlines():
        cells = _smi.table_cells(line)
        if len(cells) < 3 or cells[0].startswith(("NPU", "Chip", "npu-smi")):
            continue
        if "Process" in line:
            break
        if cells[1] in _BLOCK_HEALTH:
            head = cells
            continue
        if head:
            try:
                devices.append(_chip(head, cells))
            except ValueError as e:
                problems.append(f"npu-smi row {line.strip()!r}: {e}")
            head = []
    return devices, _smi.no_devices(devices, problems, "npu-smi info")


def _chip(head: list[str], row: list[str]) -> dict[str, Any]:
    ids = row[0].split()
    sample: dict[str, Any] = {"index": int(ids[-1] if len(ids) > 1 else head[0].split()[0])}
    power, temp = head[2].split()[:2]
    if power != "-":
        sample["power_w"] = _smi.number(power, "Power(W)")
    sample["temp_c"] = _smi.number(temp, "Temp(C)")
    usage = row[2].split()
    sample["util_pct"] = _smi.number(usage[0], "AICore(%)")
    pairs = " ".join(usage[1:]).split("/")
    if len(pairs) != 3:
        raise ValueError(f"expected Memory-Usage and HBM-Usage 'used / total' in {row[2]!r}")
    mem_used, mem_rest = pairs[0], pairs[1].split()
    hbm_used, hbm_total = mem_rest[-1], pairs[2]
    used, total = _smi.used_total_mib(f"{hbm_used}/{hbm_total}", "HBM-Usage(MB)")
    if total == 0:  # inference cards report DDR under Memory-Usage instead of HBM
        used, total = _smi.used_total_mib(f"{mem_used}/{mem_rest[0]}", "Memory-Usage(MB)")
    sample.update(_smi.memory(used, total))
    return sample


def _sampler() -> SmiToolSampler:
    return SmiToolSampler(["npu-smi", "info"], parse_npu_smi_info, {"tool": "npu-smi info"})


VENDOR = Vendor(
    name="ascend",
    visible_devices_env="ASCEND_RT_VISIBLE_DEVICES",
    chips=CHIPS,
    container_options=_container_options,
    accelerator_sampler=_sampler,
    device="npu",
)
