"""Vendor ``dcu``: Hygon DCUs through Hygon's ROCm-derived PyTorch build (DTK): the build
answers to ``torch.cuda`` (device ``cuda``) and its ``nccl`` backend is RCCL.

Container options as FlagPerf's test_conf.py writes them for dcu:
``-v /opt/hyhal/:/opt/hyhal/ --device=/dev/kfd --device=/dev/dri/ --group-add video``.
Visible devices: ``HIP_VISIBLE_DEVICES`` (FlagPerf). Telemetry: ``hy-smi`` (DTK's tool,
``/opt/hyhal/bin``) or the ``rocm-smi`` it derives from: both print the same concise
table (``DCU Temp AvgPwr ... VRAM% DCU%``), read by column name. That table gives memory
as a percentage only, so samples carry ``mem_used_pct``, not bytes.
"""

from __future__ import annotations

from typing import Any

from chipperf_runtime.vendors import _smi
from chipperf_runtime.vendors.base import ChipSpec, SamplerUnavailable, SmiToolSampler, Vendor

CHIPS = {
    # Memory 64 GiB: FlagPerf (FlagOpen/FlagPerf@1b5a030) training/dcu/README.md names the
    # card "K100 64G", and training/dcu/glm-pytorch/README.md reports mem "55.0/64.0" on one
    # K100 (used/total, in GiB as FlagPerf's READMEs define mem). Hygon publishes no K100
    # datasheet with peak FLOP/s, memory bandwidth or TDP that we could find: those are not
    # set (rocm-smi's PwrCap is a cap setting, not a TDP). FlagPerf's operation/ key
    # "mm:FP16:491:nativetorch:BW" is Hygon's BW chip, not the K100: not carried over.
    "K100": ChipSpec("K100", memory_bytes=64 * 2**30,
                     source="FlagOpen/FlagPerf@1b5a030 training/dcu/README.md ('K100 64G') and "
                            "glm-pytorch/README.md (mem 55.0/64.0 GiB); no public peak FLOP/s, "
                            "bandwidth or TDP"),
}

_COLUMNS = {"Temp": "temp_c", "AvgPwr": "power_w", "VRAM%": "mem_used_pct", "DCU%": "util_pct"}
_TOOLS = ("hy-smi", "/opt/hyhal/bin/hy-smi", "rocm-smi")


def _container_options(nproc: int) -> str:
    return ("-v /opt/hyhal/:/opt/hyhal/ --device=/dev/kfd --device=/dev/dri/ "
                          "--group-add video --ipc=host --ulimit memlock=-1 "
                          "--ulimit stack=67108864 --security-opt seccomp=unconfined")


def parse_concise_table(text: str) -> tuple[list[dict[str, Any]], list[str]]:
    """hy-smi / rocm-smi concise table -> per DCU, by the header's column names."""
    devices: list[dict[str, Any]] = []
    problems: list[str] = []
    header: list[str] = []
    for line in text.splitlines():
        words = line.split()
        if words[:1] == ["DCU"] and "Temp" in words:
            header = words
            continue
        if not header or not words or not words[0].isdigit():
            continue
        if len(words) != len(header):
            problems.append(f"row {line.strip()!r} has {len(words)} columns, header {len(header)}")
            continue
        row = dict(zip(header, words))
        try:
            sample: dict[str, Any] = {"index": int(words[0])}
            sample.update({key: _smi.number(row[col], col) for col, key in _COLUMNS.items()
                           if col in row})
            devices.append(sample)
        except (KeyError, ValueError) as e:
            problems.append(f"row {line.strip()!r}: {e}")
    if not header and not problems:
        problems.append("no 'DCU  Temp ...' header found in the SMI output")
    return devices, _smi.no_devices(devices, problems, "hy-smi")


def _sampler() -> SmiToolSampler:
    tool = _smi.first_tool(_TOOLS)
    if tool is None:
        raise SamplerUnavailable(f"none of {', '.join(_TOOLS)} is on PATH")
    return SmiToolSampler([tool], parse_concise_table, {"tool": tool})


VENDOR = Vendor(
    name="dcu",
    visible_devices_env="HIP_VISIBLE_DEVICES",
    chips=CHIPS,
    container_options=_container_options,
    accelerator_sampler=_sampler,
    device="cuda",
)
