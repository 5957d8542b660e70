"""The amd sampler against amdsmi's Python API as amdsmi 7.0.2 (PyPI) defines it: the dict keys
of amdsmi_get_gpu_activity / _vram_usage / _power_info / _gpu_asic_info and the "N/A" it puts
for 0xFFFF are those of its amdsmi_interface.py; the library itself needs ROCm's
libamd_smi.so and a GPU, so a module of the same shape stands in for it here. The figures are
illustrative (an MI300X's 196592 MB of VRAM as amd-smi reports it; MI200's power only as an
average)."""

from __future__ import annotations

import json
import sys
import types
from enum import IntEnum

import pytest

from chipperf_runtime.monitors import run_monitor
from chipperf_runtime.vendors import SamplerUnavailable, get_vendor
from chipperf_runtime.vendors.base import SampleError

MIB = 2**20
UINT32_MAX = 0xFFFFFFFF


class AmdSmiException(Exception):
    pass


def fake_amdsmi(power: dict, activity: object = 37) -> types.ModuleType:
    smi = types.ModuleType("amdsmi")
    smi.AmdSmiException = AmdSmiException
    smi.AmdSmiTemperatureType = IntEnum("AmdSmiTemperatureType", "EDGE HOTSPOT")
    smi.AmdSmiTemperatureMetric = IntEnum("AmdSmiTemperatureMetric", "CURRENT MAX")
    smi.amdsmi_init = lambda *a: None
    smi.amdsmi_shut_down = lambda: None
    smi.amdsmi_get_processor_handles = lambda: ["h0", "h1"]
    smi.amdsmi_get_gpu_activity = lambda h: {"gfx_activity": activity, "umc_activity": 12,
                                             "mm_activity": "N/A"}
    smi.amdsmi_get_gpu_vram_usage = lambda h: {"vram_total": 196592, "vram_used": 283}
    smi.amdsmi_get_power_info = lambda h: {"socket_power": "N/A", "gfx_voltage": "N/A",
                                           "soc_voltage": "N/A", "mem_voltage": "N/A",
                                           "power_limit": 750, **power}
    smi.amdsmi_get_temp_metric = lambda h, sensor, metric: (
        45 if sensor == smi.AmdSmiTemperatureType.HOTSPOT else pytest.fail("not the hotspot"))
    smi.amdsmi_get_gpu_asic_info = lambda h: {"market_name": "AMD Instinct MI300X"}
    return smi


def sampler(monkeypatch, **kwargs):
    monkeypatch.setitem(sys.modules, "amdsmi", fake_amdsmi(**kwargs))
    return get_vendor("amd").accelerator_sampler()


def test_mi300x_reads_current_socket_power(monkeypatch) -> None:
    s = sampler(monkeypatch, power={"current_socket_power": 172, "average_socket_power": "N/A"})
    assert s.read() == [{"index": i, "util_pct": 37.0, "mem_used_bytes": 283 * MIB,
                         "mem_total_bytes": 196592 * MIB, "power_w": 172.0, "temp_c": 45.0}
                        for i in (0, 1)]
    assert s.info()["model"] == "AMD Instinct MI300X" and s.info()["unsupported"] == {}


@pytest.mark.parametrize("current", ["N/A", UINT32_MAX, 0])
def test_mi200_falls_back_to_average_power(monkeypatch, current) -> None:
    s = sampler(monkeypatch, power={"current_socket_power": current, "average_socket_power": 88})
    assert s.read()[0]["power_w"] == 88.0


def test_sentinels_are_left_out_and_named_never_a_reading(monkeypatch) -> None:
    s = sampler(monkeypatch, power={"current_socket_power": UINT32_MAX,
                                    "average_socket_power": UINT32_MAX}, activity=UINT32_MAX)
    sample = s.read()[0]
    assert "power_w" not in sample and "util_pct" not in sample and sample["temp_c"] == 45.0
    assert set(s.info()["unsupported"]) == {"power_w", "util_pct"}


def test_without_the_library_the_monitor_writes_unavailable(monkeypatch, tmp_path) -> None:
    monkeypatch.setitem(sys.modules, "amdsmi", None)          # import amdsmi -> ImportError
    with pytest.raises(SamplerUnavailable, match="amdsmi is not importable"):
        get_vendor("amd").accelerator_sampler()
    run_monitor(tmp_path, 0.2, 0.5, "amd")
    first = json.loads((tmp_path / "amd_monitor.log").read_text().splitlines()[0])
    assert "amdsmi is not importable" in first["unavailable"]


def test_a_failed_read_is_a_sample_error(monkeypatch) -> None:
    s = sampler(monkeypatch, power={"current_socket_power": 172})
    s._smi.amdsmi_get_gpu_vram_usage = lambda h: (_ for _ in ()).throw(AmdSmiException("gone"))
    with pytest.raises(SampleError, match="GPU 0 mem_used_bytes: gone"):
        s.read()
