"""RAPL from a powercap-shaped tree built here: zone discovery, watts, wraparound,
cumulative joules, and a zone that disappears mid-run."""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
from pathlib import Path
from typing import Callable

import pytest

from chipperf_runtime.monitors import Stopper, run_monitor
from chipperf_runtime.monitors.rapl import RaplSource, find_zones, wrapped_delta
from chipperf_runtime.monitors.records import kind
from chipperf_runtime.monitors.source import SampleError, SamplerUnavailable

MAX_RANGE = 262143328850  # a real package's max_energy_range_uj


def _zone(path: Path, name: str, energy_uj: int, max_range: int = MAX_RANGE) -> Path:
    path.mkdir(parents=True)
    (path / "name").write_text(name + "\n")
    (path / "energy_uj").write_text(f"{energy_uj}\n")
    (path / "max_energy_range_uj").write_text(f"{max_range}\n")
    return path


def build_powercap(root: Path) -> Path:
    """The kernel's shape: zones nested under devices/virtual/powercap/intel-rapl, and a
    flat class directory of symlinks to them (plus zones that must not be summed)."""
    tree = root / "devices" / "virtual" / "powercap"
    rapl = tree / "intel-rapl"
    _zone(rapl / "intel-rapl:0", "package-0", 1_000_000)
    _zone(rapl / "intel-rapl:0" / "intel-rapl:0:0", "core", 500_000)
    _zone(rapl / "intel-rapl:0" / "intel-rapl:0:1", "dram", 2_000_000)
    _zone(rapl / "intel-rapl:1", "package-1", MAX_RANGE - 1_000_000)
    _zone(rapl / "intel-rapl:2", "psys", 7_000_000)
    _zone(tree / "intel-rapl-mmio" / "intel-rapl-mmio:0", "package-0", 1_000_000)
    cls = root / "class" / "powercap"
    cls.mkdir(parents=True)
    os.symlink(rapl, cls / "intel-rapl")
    os.symlink(tree / "intel-rapl-mmio", cls / "intel-rapl-mmio")
    for zone in ("intel-rapl:0", "intel-rapl:1", "intel-rapl:2"):
        os.symlink(rapl / zone, cls / zone)
    for zone in ("intel-rapl:0:0", "intel-rapl:0:1"):
        os.symlink(rapl / "intel-rapl:0" / zone, cls / zone)
    return cls


def _set(cls: Path, zone: str, energy_uj: int) -> None:
    (cls / zone / "energy_uj").write_text(f"{energy_uj}\n")


def _count(path: Path, text: str) -> int:
    return path.read_text().count(text) if path.exists() else 0


def _wait(predicate: Callable[[], bool], timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_wrapped_delta() -> None:
    assert wrapped_delta(10, 25, 100) == 15
    assert wrapped_delta(90, 5, 100) == 15  # wrapped once at 100
    with pytest.raises(SampleError, match="went back"):
        wrapped_delta(90, 5, None)


@pytest.mark.parametrize("layout", ["class", "devices"])
def test_finds_packages_and_dram_only_once(tmp_path: Path, layout: str) -> None:
    cls = build_powercap(tmp_path)
    root = cls if layout == "class" else tmp_path / "devices" / "virtual" / "powercap"
    zones, skipped = find_zones(str(root))
    assert [z.label for z in zones] == ["package-0", "package-0/dram", "package-1"]
    assert sorted(skipped) == ["package-0/core", "psys"]
    assert all(z.max_range_uj == MAX_RANGE for z in zones)


def test_watts_wraparound_and_cumulative_joules(tmp_path: Path) -> None:
    cls = build_powercap(tmp_path)
    now = [50.0]
    source = RaplSource(str(cls), clock=lambda: now[0])
    info = source.setup()
    assert info["zones"] == ["package-0", "package-0/dram", "package-1"]
    assert source.sample() is None  # the first tick primes

    now[0] += 2.0
    _set(cls, "intel-rapl:0", 1_000_000 + 200_000_000)  # 200 J in 2 s
    _set(cls, "intel-rapl:0:1", 2_000_000 + 20_000_000)  # 20 J
    _set(cls, "intel-rapl:1", 3_000_000)  # wrapped: 1 J to the top + 3 J = 4 J
    first = source.sample()
    assert first is not None
    assert first["domains"] == {
        "package-0": {"power_w": 100.0, "energy_j": 200.0},
        "package-0/dram": {"power_w": 10.0, "energy_j": 20.0},
        "package-1": {"power_w": 2.0, "energy_j": 4.0}}
    assert first["power_w"] == 112.0 and first["energy_j"] == 224.0

    now[0] += 0.5
    _set(cls, "intel-rapl:0", 1_000_000 + 250_000_000)  # +50 J in 0.5 s
    second = source.sample()
    assert second is not None
    assert second["domains"]["package-0"] == {"power_w": 100.0, "energy_j": 250.0}
    assert second["domains"]["package-1"] == {"power_w": 0.0, "energy_j": 4.0}
    assert second["energy_j"] == 274.0


def test_root_from_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cls = build_powercap(tmp_path)
    monkeypatch.setenv("CHIPPERF_POWERCAP_ROOT", str(cls))
    assert RaplSource().setup()["root"] == str(cls)


def test_unavailable_reasons(tmp_path: Path) -> None:
    with pytest.raises(SamplerUnavailable, match="no powercap tree"):
        RaplSource(str(tmp_path / "absent")).setup()
    (tmp_path / "empty").mkdir()
    with pytest.raises(SamplerUnavailable, match="no RAPL package or dram zone"):
        RaplSource(str(tmp_path / "empty")).setup()
    zone = _zone(tmp_path / "locked" / "intel-rapl:0", "package-0", 1)
    (zone / "energy_uj").unlink()
    (zone / "energy_uj").mkdir()  # present but unreadable as a counter
    assert find_zones(str(tmp_path / "locked"))[0]
    with pytest.raises(SamplerUnavailable, match="not readable"):
        RaplSource(str(tmp_path / "locked")).setup()


def test_a_zone_that_disappears_mid_run_is_an_error_and_the_loop_goes_on(
        tmp_path: Path) -> None:
    cls = build_powercap(tmp_path / "sys")
    zone = tmp_path / "sys" / "devices" / "virtual" / "powercap" / "intel-rapl" / "intel-rapl:1"
    log = tmp_path / "out" / "pwr_monitor.log"
    stopper = Stopper()
    loop = threading.Thread(target=run_monitor, args=(tmp_path / "out", 0.1, None, "cpu"),
                            kwargs={"stopper": stopper, "sources": [RaplSource(str(cls))]})
    loop.start()
    try:
        _wait(lambda: _count(log, '"domains"') >= 2)
        shutil.rmtree(zone)
        _wait(lambda: _count(log, '"error"') >= 1)
        time.sleep(0.5)  # more ticks while it is gone
    finally:
        stopper.stop("test over")
        loop.join(30)
    lines = [json.loads(x) for x in (tmp_path / "out" / "pwr_monitor.log").read_text().splitlines()]
    kinds = [kind(r) for r in lines]
    assert kinds[0] == "info" and kinds[-1] == "end"
    # "test over; N tick(s) skipped" when a loaded machine delays a 0.2 s tick
    assert lines[-1]["end"].split(";")[0] == "test over"
    first_error = kinds.index("error")
    assert kinds[1:first_error] == ["sample"] * (first_error - 1) and first_error >= 2
    assert "FileNotFoundError" in lines[first_error]["error"]
    assert "sample" not in kinds[first_error:]  # no made-up readings once it is gone
    assert lines[-1]["errors"] >= 2  # it kept ticking (later errors rate-limited)
    assert all(r["domains"]["package-0"]["power_w"] == 0.0  # the counters did not move
               for r in lines if kind(r) == "sample")
