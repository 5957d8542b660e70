"""Accelerator sampling through vendor plugins: NVML for real when a GPU is here, NVML
faults injected through a stand-in ``pynvml``, and the SMI-tool sampler of base.py."""

from __future__ import annotations

import json
import stat
import sys
import time
import types
from pathlib import Path
from typing import Any

import pytest

from chipperf_runtime.monitors import run_monitor
from chipperf_runtime.monitors.records import kind
from chipperf_runtime.vendors.base import SampleError, SamplerUnavailable, SmiToolSampler
from chipperf_runtime.vendors.nvidia import VENDOR, NvmlSampler


def _no_gpu_reason() -> str | None:
    try:
        import pynvml
    except ImportError as e:
        return f"pynvml (nvidia-ml-py) is not importable: {e}"
    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError as e:
        return f"no NVIDIA driver/GPU on this machine: {e}"
    try:
        return None if pynvml.nvmlDeviceGetCount() else "NVML sees no GPU"
    finally:
        pynvml.nvmlShutdown()


NO_GPU = _no_gpu_reason()


@pytest.mark.skipif(NO_GPU is not None, reason=f"needs a GPU: {NO_GPU}")
def test_nvml_reads_real_gpus(tmp_path: Path) -> None:  # pragma: no cover - GPU hosts only
    sampler = NvmlSampler()
    info = sampler.info()
    assert info["count"] >= 1 and info["driver_version"] and info["model"]
    first = sampler.read()
    time.sleep(1.0)
    second = sampler.read()
    sampler.close()
    assert [d["index"] for d in second] == list(range(info["count"]))
    for before, after in zip(first, second):
        assert 0 <= after["util_pct"] <= 100
        assert 0 < after["mem_used_bytes"] <= after["mem_total_bytes"]
        assert after["power_w"] > 0 and 0 < after["temp_c"] < 130 and after["sm_clock_mhz"] > 0
        if "energy_mj" in after:
            assert after["energy_mj"] > before["energy_mj"]  # a GPU always draws some power
    run_monitor(tmp_path, 0.5, 2.0, "nvidia")
    lines = [json.loads(x) for x in (tmp_path / "nvidia_monitor.log").read_text().splitlines()]
    assert kind(lines[0]) == "info" and len([r for r in lines if kind(r) == "sample"]) >= 3
    assert json.loads((tmp_path / "sys_info.json").read_text())["accelerators"]["count"] >= 1


def test_nvidia_vendor_wires_the_nvml_sampler() -> None:
    assert VENDOR.accelerator_sampler is NvmlSampler


def test_without_pynvml_the_source_is_unavailable_once(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pynvml", None)  # import pynvml -> ImportError
    with pytest.raises(SamplerUnavailable, match="nvidia-ml-py"):
        NvmlSampler()
    run_monitor(tmp_path, 0.2, 0.5, "nvidia")
    lines = [json.loads(x) for x in (tmp_path / "nvidia_monitor.log").read_text().splitlines()]
    assert [kind(r) for r in lines] == ["unavailable", "end"]
    assert "pynvml" in lines[0]["unavailable"]
    facts = json.loads((tmp_path / "sys_info.json").read_text())["accelerators"]
    assert facts["vendor"] == "nvidia" and "pynvml" in facts["unavailable"]


class _NVMLError(Exception):
    def __init__(self, value: int):
        super().__init__(f"NVML error {value}")
        self.value = value


def fake_pynvml(lost_after: int | None = None) -> types.ModuleType:
    """A stand-in NVML with two GPUs; GPU 1 has no energy counter (NOT_SUPPORTED), and
    every call fails with GPU_IS_LOST after ``lost_after`` reads (fault injection)."""
    nv = types.ModuleType("pynvml")
    state = {"reads": 0, "shutdown": False}
    nv.NVMLError = _NVMLError  # type: ignore[attr-defined]
    nv.NVML_ERROR_NOT_SUPPORTED, nv.NVML_TEMPERATURE_GPU, nv.NVML_CLOCK_SM = 3, 0, 1  # type: ignore[attr-defined]

    def alive(value: Any) -> Any:
        if lost_after is not None and state["reads"] > lost_after:
            raise _NVMLError(15)
        return value

    def util(h: int) -> Any:
        state["reads"] += h == 0
        return alive(types.SimpleNamespace(gpu=40 + h, memory=10))

    def energy(h: int) -> int:
        if h == 1:
            raise _NVMLError(3)
        return alive(1_000_000 + state["reads"] * 250_000)

    nv.__dict__.update(
        nvmlInit=lambda: None, nvmlShutdown=lambda: state.update(shutdown=True),
        nvmlDeviceGetCount=lambda: 2, nvmlDeviceGetHandleByIndex=lambda i: i,
        nvmlDeviceGetUtilizationRates=util,
        nvmlDeviceGetMemoryInfo=lambda h: alive(types.SimpleNamespace(used=2**30, total=2**34)),
        nvmlDeviceGetPowerUsage=lambda h: alive(250_500), nvmlDeviceGetTotalEnergyConsumption=energy,
        nvmlDeviceGetTemperature=lambda h, s: alive(55), nvmlDeviceGetClockInfo=lambda h, c: alive(1980),
        nvmlSystemGetDriverVersion=lambda: "550.54.15", nvmlSystemGetCudaDriverVersion_v2=lambda: 12040,
        nvmlSystemGetNVMLVersion=lambda: "12.550.54.15", nvmlDeviceGetName=lambda h: b"NVIDIA H100",
        nvmlDeviceGetUUID=lambda h: f"GPU-{h}", nvmlDeviceGetEnforcedPowerLimit=lambda h: 700_000,
        nvmlDeviceGetPciInfo=lambda h: types.SimpleNamespace(busId=f"0000:0{h}:00.0"))
    nv.state = state  # type: ignore[attr-defined]
    return nv


def test_nvml_unsupported_metric_is_left_out_and_named(monkeypatch: pytest.MonkeyPatch) -> None:
    nv = fake_pynvml()
    monkeypatch.setitem(sys.modules, "pynvml", nv)
    sampler = NvmlSampler()
    info = sampler.info()
    assert info["model"] == "NVIDIA H100" and info["count"] == 2
    assert info["runtime_version"] == "CUDA 12.4 (driver API)"
    assert info["unsupported"] == {"energy_mj": "NVML: not supported on device(s) [1]"}
    gpu0, gpu1 = sampler.read()
    assert gpu0["power_w"] == 250.5 and gpu0["mem_used_bytes"] == 2**30 and "energy_mj" in gpu0
    assert "energy_mj" not in gpu1 and gpu1["util_pct"] == 41
    sampler.close()
    assert nv.state["shutdown"]  # type: ignore[attr-defined]


def test_a_gpu_lost_mid_run_is_an_error_line(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pynvml", fake_pynvml(lost_after=3))
    sampler = NvmlSampler()
    for _ in range(2):  # the setup probe was the first of the 3 good reads
        sampler.read()
    with pytest.raises(SampleError, match="GPU 0"):
        sampler.read()
    monkeypatch.setitem(sys.modules, "pynvml", fake_pynvml(lost_after=3))
    run_monitor(tmp_path, 0.1, 0.85, "nvidia")
    lines = [json.loads(x) for x in (tmp_path / "nvidia_monitor.log").read_text().splitlines()]
    kinds = [kind(r) for r in lines]
    assert kinds[0] == "info" and kinds[-1] == "end"
    assert "sample" in kinds and "error" in kinds
    assert kinds.index("error") > max(i for i, k in enumerate(kinds) if k == "sample")
    assert "NVML error 15" in lines[kinds.index("error")]["error"]


SMI_OUTPUT = "0, 45, 1024, 32768, 120.5\n1, 50, 2048, 32768, 130.0\n"


def parse_smi(text: str) -> tuple[list[dict[str, Any]], list[str]]:
    devices, problems = [], []
    for line in text.splitlines():
        fields = [f.strip() for f in line.split(",")]
        try:
            index, util, used, total, watts = fields
            devices.append({"index": int(index), "util_pct": float(util),
                            "mem_used_bytes": int(used) * 2**20,
                            "mem_total_bytes": int(total) * 2**20, "power_w": float(watts)})
        except ValueError:
            problems.append(f"unparseable line {line!r}")
    return devices, problems


def test_smi_tool_sampler_runs_the_tool_and_parses(tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    out.write_text(SMI_OUTPUT)
    tool = tmp_path / "vendor-smi"
    tool.write_text(f"#!/bin/sh\ncat {out}\n")
    tool.chmod(tool.stat().st_mode | stat.S_IXUSR)
    sampler = SmiToolSampler([str(tool), "--query"], parse_smi, info={"model": "X1"})
    assert sampler.info() == {"model": "X1"}
    assert [d["power_w"] for d in sampler.read()] == [120.5, 130.0]
    out.write_text(SMI_OUTPUT + "2, ERR!, 0, 0, N/A\n")
    with pytest.raises(SampleError, match="unparseable line"):
        sampler.read()
    with pytest.raises(SamplerUnavailable, match="not found on PATH"):
        SmiToolSampler(["no-such-smi-tool"], parse_smi)
