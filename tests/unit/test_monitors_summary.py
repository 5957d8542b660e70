"""Summaries over a timed window on synthetic monitor files with known answers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chipperf.monitors import series
from chipperf.monitors.summary import PowerStats, Unavailable, summarize_node

T0 = 1_700_000_000_000
START, END = T0 + 10_500, T0 + 20_500  # a 10 s window between ticks


def _write(path: Path, records: list[dict[str, Any]], tail: str = "") -> None:
    with path.open("a") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")
        f.write(tail)


def _info(source: str, info: dict | None = None) -> dict:
    return {"ts_ms": T0 - 500, "source": source, "info": info or {}, "interval_s": 1.0}


def _end(source: str) -> dict:
    return {"ts_ms": T0 + 100_000, "source": source, "end": "signal SIGTERM", "samples": 0}


def ramp_w(t_s: float) -> float:
    return 100.0 + 2.0 * t_s  # its integral is 100 t + t^2


@pytest.fixture
def node(tmp_path: Path) -> Path:
    ticks = range(0, 31)
    _write(tmp_path / "cpu_monitor.log",
           [_info("cpu")] + [{"ts_ms": T0 + k * 1000, "source": "cpu", "util_pct": 10.0 * (k % 2)}
                             for k in ticks],
           tail='{"ts_ms": 1700000031000, "source": "cpu", "util_')  # killed mid-write
    gap = {14, 15, 16}
    _write(tmp_path / "pwr_monitor.log",
           [_info("ipmi"), _info("rapl")]
           + [{"ts_ms": T0 + k * 1000, "source": "ipmi", "power_w": 200.0}
              for k in ticks if k not in gap]
           + [{"ts_ms": T0 + 15_200, "source": "ipmi", "error": "BMC busy", "suppressed": 1}]
           + [{"ts_ms": T0 + k * 1000, "source": "rapl", "power_w": ramp_w(k),
               "energy_j": 100.0 * k + k * k} for k in ticks]
           + [_end("ipmi"), _end("rapl")])
    devices = [[{"index": 0, "power_w": 300.0, "energy_mj": 5_000_000 + 300_000 * k,
                 "util_pct": 50, "mem_used_bytes": 1000 * k, "mem_total_bytes": 10**6,
                 "temp_c": 40 + k},
                {"index": 1, "power_w": 100.0, "util_pct": 25, "mem_used_bytes": 7,
                 "mem_total_bytes": 10**6, "temp_c": 30}] for k in ticks]
    _write(tmp_path / "nvidia_monitor.log",
           [_info("nvidia", {"count": 2, "unsupported": {"energy_mj": "not supported on [1]"}})]
           + [{"ts_ms": T0 + k * 1000, "source": "nvidia", "devices": d}
              for k, d in zip(ticks, devices)])
    (tmp_path / "sys_info.json").write_text(json.dumps({"accelerators": {"vendor": "nvidia"}}))
    return tmp_path


def test_node_power_trapezoid_across_a_gap(node: Path) -> None:
    power = summarize_node(node, START, END).node_power
    assert isinstance(power, PowerStats)
    assert power.energy_method == "trapezoid"
    assert power.energy_j == pytest.approx(2000.0)
    assert power.avg_w == pytest.approx(200.0) and power.peak_w == 200.0
    assert power.covered_s == pytest.approx(10.0)
    assert power.samples == 7


def test_rapl_energy_from_the_counter(node: Path) -> None:
    power = summarize_node(node, START, END).cpu_power
    assert isinstance(power, PowerStats)
    assert power.energy_method == "counter"
    # exact integral of 100 + 2t over [10.5, 20.5] is 1310 J; linear edges give the same
    assert power.energy_j == pytest.approx(1310.0)
    assert power.avg_w == pytest.approx(131.0)
    assert power.peak_w == ramp_w(20)


def test_accelerators_per_device_and_total(node: Path) -> None:
    summary = summarize_node(node, START, END)
    assert not isinstance(summary.devices, Unavailable)
    d0, d1 = summary.devices
    assert isinstance(d0.power, PowerStats) and isinstance(d1.power, PowerStats)
    assert d0.power.energy_method == "counter" and d0.power.energy_j == pytest.approx(3000.0)
    assert d1.power.energy_method == "trapezoid" and d1.power.energy_j == pytest.approx(1000.0)
    assert d0.util_avg_pct == 50.0 and d1.util_avg_pct == 25.0
    assert d0.mem_peak_used_bytes == 20_000 and d0.temp_peak_c == 60
    total = summary.accelerator_power
    assert isinstance(total, PowerStats)
    assert total.energy_j == pytest.approx(4000.0) and total.avg_w == pytest.approx(400.0)
    assert total.peak_w == 400.0 and total.energy_method == "counter+trapezoid"
    assert summary.accelerator_mem_peak_bytes == 20_000


def test_coverage_names_the_missing_samples(node: Path) -> None:
    summary = summarize_node(node, START, END).to_dict()
    ipmi = summary["coverage"]["ipmi"]
    assert (ipmi["expected"], ipmi["present"], ipmi["missing"]) == (10, 7, 3)
    assert ipmi["gaps"] == [{"from_ms": T0 + 14_000, "to_ms": T0 + 16_000, "missing": 3}]
    assert ipmi["errors"] == 2  # one error line that stood for two failures
    assert summary["coverage"]["cpu"]["missing"] == 0


def test_malformed_lines_are_counted_and_reported(node: Path) -> None:
    summary = summarize_node(node, START, END)
    assert summary.malformed_lines == 1
    assert summary.problems[0].startswith("cpu_monitor.log:33: not JSON")
    assert summary.cpu_util_avg_pct == 5.0  # the other lines still count


def test_missing_metrics_are_absent_with_their_reason_never_zero(node: Path) -> None:
    summary = summarize_node(node, START, END).to_dict()
    assert "mem_peak_used_bytes" not in summary
    assert summary["unavailable"]["mem_peak_used_bytes"].startswith("mem_monitor.log:")
    assert "No such file" in summary["unavailable"]["coverage.mem"]
    json.dumps(summary)  # plain JSON


def test_unavailable_source_gives_its_own_reason(tmp_path: Path) -> None:
    _write(tmp_path / "pwr_monitor.log", [
        {"ts_ms": T0, "source": "ipmi", "unavailable": "ipmitool not found on PATH"},
        {"ts_ms": T0, "source": "rapl", "unavailable": "no powercap tree at /sys/class/powercap"}])
    summary = summarize_node(tmp_path, START, END, vendor="cpu").to_dict()
    assert summary["unavailable"]["node_power"] == "ipmitool not found on PATH"
    assert summary["unavailable"]["cpu_power"].startswith("no powercap tree")
    assert summary["unavailable"]["devices"] == "vendor cpu runs on CPU cores: no accelerator"
    assert not {"node_power", "cpu_power", "accelerator_power", "devices"} & set(summary)


def test_a_window_without_samples(node: Path) -> None:
    summary = summarize_node(node, T0 + 500_000, T0 + 510_000).to_dict()
    assert "no ipmi sample in the window" in summary["unavailable"]["node_power"]
    assert summary["coverage"]["cpu"] == {"interval_s": 1.0, "expected": 10, "present": 0,
                                          "missing": 10, "errors": 0, "gaps": [
                                              {"from_ms": T0 + 500_000, "to_ms": T0 + 510_000,
                                               "missing": 10}]}


def test_a_counter_that_resets_falls_back_to_the_trapezoid(tmp_path: Path) -> None:
    # the monitor restarted and appended: its running total began again at 0
    _write(tmp_path / "pwr_monitor.log", [_info("rapl")] + [
        {"ts_ms": T0 + k * 1000, "source": "rapl", "power_w": 50.0,
         "energy_j": 50.0 * (k if k < 15 else k - 15)} for k in range(31)])
    power = summarize_node(tmp_path, START, END, vendor="cpu").cpu_power
    assert isinstance(power, PowerStats)
    assert power.energy_method == "trapezoid" and power.energy_j == pytest.approx(500.0)


def test_series_edges_are_interpolated_not_extrapolated() -> None:
    points = [(1000.0, 10.0), (2000.0, 20.0), (3000.0, 30.0)]
    assert series.clip(points, 1500, 2500) == [(1500, 15.0), (2000.0, 20.0), (2500, 25.0)]
    assert series.clip(points, 0, 2000) == [(1000.0, 10.0), (2000.0, 20.0)]
    assert series.trapezoid_j(series.clip(points, 1500, 2500)) == pytest.approx(20.0)
    present, gaps = series.gaps([1000, 2000, 5000], 0, 7000, 1000)
    assert present == 3
    assert [g.to_dict() for g in gaps] == [
        {"from_ms": 0, "to_ms": 0, "missing": 1}, {"from_ms": 3000, "to_ms": 4000, "missing": 2},
        {"from_ms": 6000, "to_ms": 7000, "missing": 2}]
