"""Vendor ``kunlunxin``: Kunlunxin XPUs through its PyTorch plug-in torch_xmlir (device
``xpu``, plug-in named here since Intel's xpu needs none; backend ``xccl``, the name
FlagPerf's kunlunxin configs give ``dist_backend``).

Container options as FlagPerf's test_conf.py and its kunlunxin CI write them:
``--device=/dev/xpu0 ... --device=/dev/xpuN --device=/dev/xpuctrl`` (here one device
node per process of the node). Visible devices: ``XPU_VISIBLE_DEVICES`` (FlagPerf).

Telemetry: ``xpu-smi -q -x``, an XML report per XPU with named fields (nvidia-smi's
``-q -x`` shape: ``fb_memory_usage``, ``utilization/xpu_util``, ``temperature/xpu_temp``,
``power_readings/power_draw``), parsed from a published sample of a P800 OAM node
(tests/unit/data/smi/xpu-smi_q_x_p800.txt names it). FlagPerf's own kunlunxin monitor
cuts columns out of the plain ``xpu_smi`` table by position instead; no complete public
sample of that table was found, so it is not used. Intel's tool is also named ``xpu-smi``:
output without the ``xpu_smi_log`` root is refused as not Kunlunxin's.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any, Optional

from chipperf_runtime.vendors import _smi
from chipperf_runtime.vendors.base import ChipSpec, SmiToolSampler, Vendor

_UNREADABLE = {"N/A", "Invalid Argument", ""}  # what xpu-smi prints for a value it cannot read

CHIPS = {
    # Memory 32 GiB per R300 module (one module is one /dev/xpuN device and one rank):
    # FlagPerf (FlagOpen/FlagPerf@1b5a030) training/kunlunxin/README.md describes the R480-X8
    # as 8 R300 modules with 256G of memory in all (256 / 8 = 32), and training/kunlunxin/
    # llama2_70B-megatron/README.md reports mem "21/32" per R300 (used/total GiB).
    # Peak FP16: that README gives only "up to 1 Peta Ops @FP16" for the 8-module node, a
    # rounded node total, so no per-chip figure is derived from it. Bandwidth (its 200 GB/s is
    # the chip-to-chip link, not memory), other dtypes and TDP: no public figure found; not set.
    "R300": ChipSpec("R300", memory_bytes=32 * 2**30,
                     source="FlagOpen/FlagPerf@1b5a030 training/kunlunxin/README.md (R480-X8: "
                            "8 x R300, 256G) and llama2_70B-megatron/README.md (mem 21/32 GiB); "
                            "no public per-chip peak FLOP/s, bandwidth or TDP"),
    # R200: the card FlagPerf's inference runs name (FlagOpen/FlagPerf@1b5a030 inference/
    # benchmarks/resnet50/README.md, "昆仑芯R200", XTCL, 32 GiB in its mem column "4.52/32.0").
    # No Kunlunxin datasheet was read for it here: peak FLOP/s, bandwidth and TDP not set.
    "R200": ChipSpec("R200", memory_bytes=32 * 2**30,
                     source="FlagOpen/FlagPerf@1b5a030 inference/benchmarks/resnet50/README.md "
                            "(mem total 32.0 GiB); no datasheet read: other figures unknown"),
}


def _container_options(nproc: int) -> str:
    devices = " ".join(f"--device=/dev/xpu{i}" for i in range(nproc))
    return (f"{devices} --device=/dev/xpuctrl --ipc=host "
                          "--ulimit memlock=-1 --ulimit stack=67108864")


def parse_xpu_smi_xml(text: str) -> tuple[list[dict[str, Any]], list[str]]:
    """``xpu-smi -q -x`` -> one dict per ``<xpu>``; index = ``minor_number`` (``/dev/xpuN``)."""
    try:
        root = ET.fromstring(text)
    except ET.ParseError as e:
        return [], [f"xpu-smi -q -x: not XML ({e})"]
    if root.tag != "xpu_smi_log":
        return [], [f"xpu-smi -q -x: root <{root.tag}>, not <xpu_smi_log>: not Kunlunxin's xpu-smi"]
    devices: list[dict[str, Any]] = []
    problems: list[str] = []
    for position, xpu in enumerate(root.findall("xpu")):
        try:
            devices.append(_xpu(xpu, position))
        except ValueError as e:
            problems.append(f"xpu-smi <xpu id={xpu.get('id')!r}>: {e}")
    return devices, _smi.no_devices(devices, problems, "xpu-smi -q -x")


def _xpu(xpu: ET.Element, position: int) -> dict[str, Any]:
    minor = _text(xpu, "minor_number")
    sample: dict[str, Any] = {"index": int(minor) if minor is not None else position}
    for key, path, what in (("util_pct", "utilization/xpu_util", "xpu_util"),
                            ("temp_c", "temperature/xpu_temp", "xpu_temp"),
                            ("power_w", "power_readings/power_draw", "power_draw")):
        value = _text(xpu, path)
        if value is not None:
            sample[key] = _smi.number(value, what)
    used, total = _text(xpu, "fb_memory_usage/used"), _text(xpu, "fb_memory_usage/total")
    if used is not None and total is not None:
        sample.update(_smi.memory(*_smi.used_total_mib(f"{used} / {total}", "fb_memory_usage")))
    return sample


def _text(element: ET.Element, path: str) -> Optional[str]:
    """The element's text, None when absent or one of xpu-smi's 'cannot read' words."""
    found = element.find(path)
    text = (found.text or "").strip() if found is not None else ""
    return None if text in _UNREADABLE else text


def _sampler() -> SmiToolSampler:
    return SmiToolSampler(["xpu-smi", "-q", "-x"], parse_xpu_smi_xml, {"tool": "xpu-smi -q -x"})


VENDOR = Vendor(
    name="kunlunxin",
    visible_devices_env="XPU_VISIBLE_DEVICES",
    chips=CHIPS,
    container_options=_container_options,
    accelerator_sampler=_sampler,
    device="xpu",
    device_plugin="torch_xmlir",
    dist_backend="xccl",
)
