"""Monitor files read in one streaming pass: window figures, energy, gaps, bad lines, plots."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from chipperf.results.read import samples
from chipperf.results.read.monitors import read_monitor
from chipperf.results.read.samples import Window

T0 = 1_700_000_000_000


def write_lines(path: Path, records: list) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records))
    return path


def ramp(path: Path, seconds: int, watts=lambda s: 100.0 + s, step_ms: int = 1000,
         source: str = "ipmi") -> Path:
    return write_lines(path, [{"ts_ms": T0 - 1000, "source": source, "info": {}, "interval_s":
                               step_ms / 1000}]
                       + [{"ts_ms": T0 + i * step_ms, "source": source,
                           "power_w": watts(i * step_ms / 1000)}
                          for i in range(seconds * 1000 // step_ms + 1)])


def test_linear_power_integrates_exactly_with_clipped_edges(tmp_path):
    path = ramp(tmp_path / "pwr_monitor.log", 10)                   # P(t) = 100 + t W
    window = Window(T0 + 2500, T0 + 7500)                           # edges between samples
    f = read_monitor(path, window)
    channel = f.channels[("ipmi", "power")]
    expected = 100 * 5 + (7.5**2 - 2.5**2) / 2                      # integral of 100 + t
    assert channel.integral == pytest.approx(expected)
    assert channel.time_mean == pytest.approx(expected / 5)
    assert channel.covered == pytest.approx(5.0)
    assert channel.at_start == pytest.approx(102.5) and channel.at_end == pytest.approx(107.5)
    assert channel.n == 5 and channel.window_peak == 107.0          # samples at 3..7 s
    assert channel.peak_all == 110.0
    assert f.interval_s == 1.0 and f.samples == 11


def test_chunked_folding_gives_the_same_figures(tmp_path, monkeypatch):
    path = ramp(tmp_path / "pwr_monitor.log", 100, watts=lambda s: 50 + math.sin(s))
    window = Window(T0 + 10_300, T0 + 90_700)
    whole = read_monitor(path, window).channels[("ipmi", "power")]
    monkeypatch.setattr(samples, "CHUNK", 7)
    chunked = read_monitor(path, window).channels[("ipmi", "power")]
    for attr in ("integral", "covered", "spanned", "total", "at_start", "at_end", "peak"):
        assert getattr(chunked, attr) == pytest.approx(getattr(whole, attr)), attr
    assert chunked.n == whole.n


def test_gaps_longer_than_three_intervals_reduce_coverage(tmp_path):
    times = [0, 1, 2, 3, 10, 11, 12]                                # a 7 s hole
    path = write_lines(tmp_path / "pwr_monitor.log",
                       [{"ts_ms": T0 + s * 1000, "source": "ipmi", "power_w": 200.0}
                        for s in times])
    f = read_monitor(path, Window(T0, T0 + 12_000), interval_s=1.0)
    assert f.coverage(("ipmi", "power")) == pytest.approx(5 / 12)
    assert f.channels[("ipmi", "power")].integral == pytest.approx(200.0 * 12)


def test_devices_unavailable_errors_and_bad_lines(tmp_path):
    path = tmp_path / "nvidia_monitor.log"
    lines = [
        {"ts_ms": T0, "source": "nvidia", "devices": [
            {"index": 0, "power_w": 300.0, "mem_used_bytes": 5, "util_pct": 90},
            {"index": 1, "power_w": 310.0, "mem_used_bytes": 7, "util_pct": "n/a"}]},
        '{"ts_ms": 1700000001000, "source": "nvidia", "devi',          # truncated
        {"ts_ms": T0 + 2000, "source": "nvidia", "error": "NVML lost", "suppressed": 2},
        {"source": "nvidia"},
        "[1, 2]",
        {"ts_ms": T0 + 3000, "source": "ipmi", "unavailable": "no BMC"},
        {"ts_ms": T0 + 4000, "source": "nvidia", "devices": [
            {"index": 0, "power_w": float("nan")}, {"index": 1, "power_w": 330.0}]},
    ]
    text = "".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines)
    path.write_bytes(text.encode() + b'{"ts_ms": 1700000005000, "note": "\xff"}\n')
    f = read_monitor(path, None)
    assert f.unavailable == {"ipmi": "no BMC"}
    assert f.errors == 3 and f.first_error == "nvidia: NVML lost"
    assert [p.split(":")[1] for p in f.problems] == ["2", "4", "5", "8"]
    assert "not valid UTF-8" in f.problems[-1]
    assert f.channels[(0, "power")].n == 1                          # NaN read as no value
    assert f.channels[(1, "power")].peak_all == 330.0
    assert f.channels[(0, "util")].n == 1
    assert f.channels[(1, "util")].n == 0                           # "n/a" is no number
    assert f.devices("power") == [0, 1]


def test_timestamps_going_back_are_reported_and_still_counted(tmp_path):
    path = write_lines(tmp_path / "cpu_monitor.log", [
        {"ts_ms": T0 + s, "source": "cpu", "util_pct": 10.0} for s in (0, 2000, 1000, 3000)])
    f = read_monitor(path, Window(T0, T0 + 3000))
    assert len(f.problems) == 1 and f.problems[0].startswith("cpu_monitor.log:3: ts_ms")
    assert f.channels[("cpu", "util")].n == 4
    assert f.channels[("cpu", "util")].integral == pytest.approx(30.0)


def test_missing_and_empty_files_say_why(tmp_path):
    missing = read_monitor(tmp_path / "pwr_monitor.log", None)
    assert not missing.present and missing.why_absent("power") == "pwr_monitor.log missing"
    empty = write_lines(tmp_path / "mem_monitor.log", [{"ts_ms": T0, "source": "rapl",
                                                        "unavailable": "no powercap"}])
    assert "no powercap" in read_monitor(empty, None).why_absent("power", ("rapl",))


def test_plot_series_stay_bounded_and_keep_the_peak(tmp_path):
    path = ramp(tmp_path / "pwr_monitor.log", 20_000, watts=lambda s: 100.0 + (s == 12_345) * 50)
    f = read_monitor(path, None)
    buckets = f.plot.series(("ipmi", "power"))
    assert samples.PLOT_POINTS <= len(buckets) <= 2 * samples.PLOT_POINTS
    assert max(m for _, _, m in buckets.values()) == 150.0
    means = [mean for _, mean, _ in buckets.values()]
    assert min(means) == pytest.approx(100.0) and max(means) < 101


def test_counter_energy_over_the_window(tmp_path):
    """energy_mj running counters: the window's energy is the counter difference."""
    path = write_lines(tmp_path / "nvidia_monitor.log", [
        {"ts_ms": T0 + s * 1000, "source": "nvidia",
         "devices": [{"index": 0, "power_w": 1.0, "energy_mj": 250_000.0 * s}]}
        for s in range(11)])
    f = read_monitor(path, Window(T0 + 2000, T0 + 6500))
    counter = f.channels[(0, "energy")]
    assert counter.at_end - counter.at_start == pytest.approx(250.0 * 4.5)
