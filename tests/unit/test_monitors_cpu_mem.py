"""CPU and memory sampled for real: the whole loop for 3 s at 0.5 s on this machine,
plus the pure /proc parsers on known text."""

from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path

import pytest

from chipperf_runtime.monitors import run_monitor
from chipperf_runtime.monitors.cpu import cpu_sample, parse_proc_stat, utilisation
from chipperf_runtime.monitors.mem import MemSource, mem_sample, parse_meminfo
from chipperf_runtime.monitors.records import kind
from chipperf_runtime.monitors.source import SampleError

STAT_1 = """cpu  100 0 50 800 50 0 0 0 0 0
cpu0 50 0 25 400 25 0 0 0 0 0
cpu1 50 0 25 400 25 0 0 0 0 0
intr 12345
ctxt 999
"""
STAT_2 = """cpu  160 0 70 900 70 0 0 0 0 0
cpu0 110 0 45 410 35 0 0 0 0 0
cpu1 50 0 25 490 35 0 0 0 0 0
"""


def test_proc_stat_deltas_give_busy_share() -> None:
    before, after = parse_proc_stat(STAT_1), parse_proc_stat(STAT_2)
    # total delta 60+20+100+20 = 200 ticks, idle+iowait 120 -> 40 % busy
    assert utilisation(before["cpu"], after["cpu"]) == {
        "util_pct": 40.0, "user_pct": 30.0, "system_pct": 10.0, "iowait_pct": 10.0}
    sample = cpu_sample(before, after)
    assert sample is not None
    assert sample["per_core_util_pct"] == {"0": 80.0, "1": 0.0}


def test_no_elapsed_ticks_is_no_sample() -> None:
    snap = parse_proc_stat(STAT_1)
    assert cpu_sample(snap, snap) is None


def test_meminfo_used_is_total_minus_available() -> None:
    info = parse_meminfo("MemTotal: 1000 kB\nMemFree: 200 kB\nMemAvailable: 600 kB\n"
                         "Buffers: 10 kB\nCached: 300 kB\nSwapTotal: 100 kB\nSwapFree: 40 kB\n"
                         "HugePages_Total: 0\n")
    sample = mem_sample(info)
    assert sample["total_bytes"] == 1000 * 1024
    assert sample["used_bytes"] == 400 * 1024
    assert sample["available_bytes"] == 600 * 1024
    assert sample["swap_used_bytes"] == 60 * 1024
    assert sample["used_pct"] == 40.0


def test_meminfo_without_available_is_an_error_not_zero() -> None:
    with pytest.raises(SampleError, match="MemAvailable"):
        mem_sample(parse_meminfo("MemTotal: 1000 kB\n"))


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture(scope="module")
def real_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("monitor")
    run_monitor(out, 0.5, 3.0, "cpu")
    return out


def test_real_loop_writes_every_file(real_run: Path) -> None:
    names = sorted(p.name for p in real_run.iterdir())
    assert names == ["cpu_monitor.log", "mem_monitor.log", "pwr_monitor.log", "sys_info.json"]


def test_real_cpu_samples(real_run: Path) -> None:
    lines = _lines(real_run / "cpu_monitor.log")
    assert kind(lines[0]) == "info" and lines[0]["interval_s"] == 0.5
    assert kind(lines[-1]) == "end" and lines[-1]["end"].split(";")[0] == "duration"
    samples = [r for r in lines if kind(r) == "sample"]
    # ticks at 0, 0.5, ... 2.5 s; the first primes: 5 samples, fewer if a tick was skipped
    assert 3 <= len(samples) <= 6, samples
    assert lines[-1]["samples"] == len(samples)
    stamps = [r["ts_ms"] for r in samples]
    assert stamps == sorted(stamps) and len(set(stamps)) == len(stamps)
    for a, b in zip(stamps, stamps[1:]):
        assert 250 <= b - a <= 1050  # one interval (or two when a tick was skipped)
    cores = {str(c) for c in lines[0]["info"]["cores"]}
    assert cores == {line.split()[0][3:] for line in Path("/proc/stat").read_text().splitlines()
                     if re.match(r"cpu\d", line)}
    for r in samples:
        assert 0.0 <= r["util_pct"] <= 100.0
        assert set(r["per_core_util_pct"]) == cores
        assert all(0.0 <= v <= 100.0 for v in r["per_core_util_pct"].values())


class SlowMem(MemSource):
    """A source that takes 0.2 s per sample: a loop that waits an interval after sampling
    instead of keeping its grid falls 0.2 s further behind on every tick."""

    def sample(self):
        time.sleep(0.2)
        return super().sample()


def test_real_loop_does_not_drift(tmp_path: Path) -> None:
    run_monitor(tmp_path, 0.5, 3.0, "cpu", sources=[SlowMem()])
    stamps = [r["ts_ms"] for r in _lines(tmp_path / "mem_monitor.log") if kind(r) == "sample"]
    ticks = [round((t - stamps[0]) / 500) for t in stamps]
    assert len(stamps) >= 4 and all(b - a in (1, 2) for a, b in zip(ticks, ticks[1:])), stamps
    # every sample on the 0.5 s grid of the first, measured from the first (no wrapping)
    assert all(abs((t - stamps[0]) - k * 500) < 150 for t, k in zip(stamps, ticks)), stamps


def test_real_mem_samples(real_run: Path) -> None:
    lines = _lines(real_run / "mem_monitor.log")
    samples = [r for r in lines if kind(r) == "sample"]
    assert 4 <= len(samples) <= 7  # no priming: a sample per tick (one may be skipped)
    total = parse_meminfo(Path("/proc/meminfo").read_text())["MemTotal"]
    for r in samples:
        assert r["total_bytes"] == total
        assert 0 < r["used_bytes"] <= r["total_bytes"]
        assert r["used_bytes"] + r["available_bytes"] == r["total_bytes"]
        assert 0 <= r["swap_used_bytes"] <= r["swap_total_bytes"]


def test_real_sys_info(real_run: Path) -> None:
    info = json.loads((real_run / "sys_info.json").read_text())
    assert info["kernel"]["release"] == os.uname().release
    assert info["cpu"]["logical_cpus"] == os.cpu_count()
    assert info["memory"]["total_bytes"] == parse_meminfo(
        Path("/proc/meminfo").read_text())["MemTotal"]
    assert info["accelerators"]["vendor"] == "cpu"
    assert set(info["frameworks"]) == {"torch", "tensorflow", "paddle", "deepspeed", "onnxruntime"}
    for facts in info["frameworks"].values():
        assert ("version" in facts) != ("unavailable" in facts)
    assert "server_version" in info["docker"] or "unavailable" in info["docker"]


def test_power_sources_absent_here_are_recorded_once(real_run: Path) -> None:
    lines = _lines(real_run / "pwr_monitor.log")
    by_source: dict[str, list[dict]] = {}
    for r in lines:
        by_source.setdefault(r["source"], []).append(r)
    assert set(by_source) == {"ipmi", "rapl"}
    for source, records in by_source.items():
        kinds = [kind(r) for r in records]
        if "unavailable" in kinds:  # this machine: no BMC, no powercap
            assert kinds == ["unavailable", "end"], (source, records)
            assert records[0]["unavailable"]
            assert not any("power_w" in r for r in records)


def test_psutil_reads_the_same_counters_as_proc() -> None:
    """psutil (used when installed) and the /proc parser agree on this host's cores, memory
    total and the order of the counters (busy time grows on both between two reads)."""
    psutil = pytest.importorskip("psutil")
    from chipperf_runtime.monitors.cpu import CpuSource, psutil_snapshot
    from chipperf_runtime.monitors.mem import MemSource, psutil_meminfo

    proc = parse_proc_stat(open("/proc/stat").read())
    through_psutil = psutil_snapshot(psutil)
    assert set(through_psutil) == set(proc)
    for name in proc:  # the same counters: psutil's seconds x CLK_TCK are /proc's ticks
        ticks = [t * os.sysconf("SC_CLK_TCK") for t in through_psutil[name]]
        assert abs(sum(ticks) - sum(proc[name])) <= 0.02 * sum(proc[name]) + 200
    meminfo = parse_meminfo(open("/proc/meminfo").read())
    assert psutil_meminfo(psutil)["MemTotal"] == meminfo["MemTotal"]

    cpu, mem = CpuSource(), MemSource()
    assert cpu.setup()["reader"] == mem.setup()["reader"] == f"psutil {psutil.__version__}"
    assert cpu.sample() is None  # the priming read
    sum(i * i for i in range(200_000))
    # every core's counters (busy or idle) advance CLK_TCK times a second; a core whose counters
    # did not move since the priming read has no utilisation yet, so wait several ticks.
    time.sleep(0.25)
    sample = cpu.sample()
    assert sample is not None and 0.0 <= sample["util_pct"] <= 100.0
    assert set(sample["per_core_util_pct"]) == {str(i) for i in range(len(proc) - 1)}
    assert 0 < mem.sample()["used_bytes"] < meminfo["MemTotal"]


def test_without_psutil_the_sources_parse_proc(monkeypatch) -> None:
    import chipperf_runtime.monitors.source as source
    from chipperf_runtime.monitors.cpu import CpuSource
    from chipperf_runtime.monitors.mem import MemSource

    monkeypatch.setitem(sys.modules, "psutil", None)  # import fails, as in an image without it
    assert source.psutil_or_none() is None
    cpu, mem = CpuSource(), MemSource()
    assert cpu.setup()["reader"] == "/proc/stat" and mem.setup()["reader"] == "/proc/meminfo"
    assert cpu.sample() is None
    time.sleep(0.1)  # ten clock ticks for the counters to move
    assert 0.0 <= cpu.sample()["util_pct"] <= 100.0
    assert mem.sample()["total_bytes"] == parse_meminfo(open("/proc/meminfo").read())["MemTotal"]
