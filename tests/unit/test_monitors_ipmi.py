"""IPMI node power: the pure parsers on the documented output forms, and the source
driving a test ``ipmitool`` put first on PATH (working, falling back, failing, slow)."""

from __future__ import annotations

import json
import os
import stat
import threading
import time
from pathlib import Path
from typing import Callable

import pytest

from chipperf_runtime.monitors import Stopper, run_monitor
from chipperf_runtime.monitors.ipmi import IpmiSource, parse_dcmi, parse_sensor_table
from chipperf_runtime.monitors.records import kind
from chipperf_runtime.monitors.source import SampleError, SamplerUnavailable

DCMI = """
    Instantaneous power reading:                   220 Watts
    Minimum during sampling period:                 96 Watts
    Maximum during sampling period:                308 Watts
    Average power reading over sample period:      218 Watts
    IPMI timestamp:                           Thu Oct 12 10:21:05 2023
    Sampling period:                          00000001 Seconds.
    Power reading state is:                   activated

"""
DCMI_DEACTIVATED = """
    Instantaneous power reading:                     0 Watts
    Minimum during sampling period:                  0 Watts
    Maximum during sampling period:                  0 Watts
    Average power reading over sample period:        0 Watts
    IPMI timestamp:                           Thu Jan  1 00:00:00 1970
    Sampling period:                          00000000 Seconds.
    Power reading state is:                   deactivated
"""
SENSOR = """Inlet Temp       | 22.000     | degrees C  | ok    | na        | -7.000    | 3.000
PSU1 Input Power | 120.000    | Watts      | ok    | na        | na        | na
PSU2 Input Power | 110.000    | Watts      | ok    | na        | na        | na
Pwr Consumption  | 224.000    | Watts      | ok    | na        | na        | na
Fan1 RPM         | na         | RPM        | na    | na        | na        | na
"""
SDR = """Pwr Consumption  | 224 Watts         | ok
Current 1        | 0.60 Amps         | ok
Inlet Temp       | 22 degrees C      | ok
PS1 Status       | 0x01              | ok
"""
SDR_ELIST = """Pwr Consumption  | 77h | ok  |  7.1 | 231 Watts
Inlet Temp       | 04h | ok  |  7.1 | 22 degrees C
"""
PSU_ONLY = """PSU1 Input Power | 120.000    | Watts      | ok
PSU2 Input Power | 110.500    | Watts      | ok
CPU1 Power       | 80.000     | Watts      | ok
"""
NO_DEVICE = ("Could not open device at /dev/ipmi0 or /dev/ipmi/0 or /dev/ipmidev/0: "
             "No such file or directory")


def test_dcmi_reading() -> None:
    reading, problems = parse_dcmi(DCMI)
    assert problems == []
    assert reading == {"power_w": 220.0, "min_w": 96.0, "max_w": 308.0, "avg_w": 218.0,
                       "sampling_period_s": 1.0}


def test_dcmi_deactivated_is_not_a_zero_reading() -> None:
    reading, problems = parse_dcmi(DCMI_DEACTIVATED)
    assert reading is None and "deactivated" in problems[0]


@pytest.mark.parametrize("text", ["", "DCMI request failed because: Invalid command (c1)",
                                  "Instantaneous power reading:  ??? Watts"])
def test_dcmi_without_a_reading(text: str) -> None:
    reading, problems = parse_dcmi(text)
    assert reading is None and "Instantaneous power reading" in problems[0]


@pytest.mark.parametrize(("text", "watts", "sensor"), [
    (SENSOR, 224.0, "Pwr Consumption"), (SDR, 224.0, "Pwr Consumption"),
    (SDR_ELIST, 231.0, "Pwr Consumption"),
    (PSU_ONLY, 230.5, "PSU1 Input Power + PSU2 Input Power")])
def test_sensor_tables(text: str, watts: float, sensor: str) -> None:
    assert parse_sensor_table(text) == ({"power_w": watts, "sensor": sensor}, [])


def test_sensor_table_without_a_node_sensor() -> None:
    reading, problems = parse_sensor_table("CPU1 Power | 80 Watts | ok\nCPU2 Power | 70 Watts | ok\n")
    assert reading is None and "none a node total" in problems[0]
    assert parse_sensor_table(SDR.replace("224 Watts", "no reading"))[0] is None


FAKE_TOOL = """#!/bin/sh
mode=$(cat "{mode_file}")
echo "$*" >> "{calls_file}"
case "$mode" in
  nobmc) echo "{no_device}" >&2; exit 1 ;;
  slow) sleep 3 ;;
esac
case "$*:$mode" in
  "dcmi power reading:dcmi"|"dcmi power reading:slow") cat "{dir}/dcmi.txt" ;;
  "dcmi power reading:garbage") echo "Instantaneous power reading:  ??? Watts" ;;
  "dcmi power reading:"*) echo "DCMI request failed because: Invalid command (c1)" >&2; exit 1 ;;
  "sdr list:sdr") cat "{dir}/sdr.txt" ;;
  "sdr list:"*) echo "Unable to open SDR for reading" >&2; exit 1 ;;
  "sensor:sensor") cat "{dir}/sensor.txt" ;;
  *) echo "unexpected: $*" >&2; exit 1 ;;
esac
"""


class FakeIpmitool:
    def __init__(self, root: Path):
        self.bin = root / "bin"
        self.bin.mkdir()
        self.mode_file, self.calls_file = root / "mode", root / "calls"
        (root / "dcmi.txt").write_text(DCMI)
        (root / "sdr.txt").write_text(SDR)
        (root / "sensor.txt").write_text(SENSOR)
        tool = self.bin / "ipmitool"
        tool.write_text(FAKE_TOOL.format(mode_file=self.mode_file, calls_file=self.calls_file,
                                         dir=root, no_device=NO_DEVICE))
        tool.chmod(tool.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        self.calls_file.write_text("")
        self.mode("dcmi")

    def mode(self, mode: str) -> None:
        self.mode_file.write_text(mode)

    def calls(self) -> list[str]:
        return self.calls_file.read_text().splitlines()


@pytest.fixture
def ipmitool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeIpmitool:
    fake = FakeIpmitool(tmp_path)
    monkeypatch.setenv("PATH", f"{fake.bin}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.delenv("CHIPPERF_IPMITOOL", raising=False)
    return fake


def _wait_for_reading(source: IpmiSource, timeout_s: float = 10.0) -> dict:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        reading = source.sample()
        if reading is not None:
            return reading
        time.sleep(0.05)
    raise AssertionError("no IPMI reading")


def test_setup_uses_dcmi_and_reads_without_blocking(ipmitool: FakeIpmitool) -> None:
    source = IpmiSource()
    info = source.setup()
    assert info["method"] == "dcmi" and info["tool"] == str(ipmitool.bin / "ipmitool")
    asked = int(time.time() * 1000)
    assert source.sample() is None  # asked now, collected on a later tick
    reading = _wait_for_reading(source)
    assert reading["power_w"] == 220.0 and reading["method"] == "dcmi"
    assert abs(reading["ts_ms"] - asked) < 1000  # stamped when it was asked
    source.close()


@pytest.mark.parametrize(("mode", "method", "watts"), [("sdr", "sdr", 224.0),
                                                       ("sensor", "sensor", 224.0)])
def test_falls_back_to_sensor_tables(ipmitool: FakeIpmitool, mode: str, method: str,
                                     watts: float) -> None:
    ipmitool.mode(mode)
    source = IpmiSource()
    assert source.setup()["method"] == method
    source.sample()
    assert _wait_for_reading(source)["power_w"] == watts
    source.close()


def test_no_bmc_is_unavailable_with_every_reason(ipmitool: FakeIpmitool) -> None:
    ipmitool.mode("nobmc")
    with pytest.raises(SamplerUnavailable) as e:
        IpmiSource().setup()
    assert str(e.value).count("Could not open device") == 3
    assert "dcmi power reading" in str(e.value) and "sensor" in str(e.value)


def test_deactivated_dcmi_then_no_table_is_unavailable(ipmitool: FakeIpmitool,
                                                       tmp_path: Path) -> None:
    (tmp_path / "dcmi.txt").write_text(DCMI_DEACTIVATED)
    with pytest.raises(SamplerUnavailable, match="deactivated"):
        IpmiSource().setup()


def test_not_installed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("CHIPPERF_IPMITOOL", raising=False)
    with pytest.raises(SamplerUnavailable, match="ipmitool not found"):
        IpmiSource().setup()


def test_tool_path_from_environment(ipmitool: FakeIpmitool, monkeypatch: pytest.MonkeyPatch,
                                    tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # no ipmitool there
    monkeypatch.setenv("CHIPPERF_IPMITOOL", str(ipmitool.bin / "ipmitool"))
    assert IpmiSource().setup()["method"] == "dcmi"


def test_a_bmc_that_does_not_answer_is_unavailable_without_trying_every_form(
        ipmitool: FakeIpmitool) -> None:
    ipmitool.mode("slow")
    began = time.monotonic()
    with pytest.raises(SamplerUnavailable, match="timed out after 1 s"):
        IpmiSource(timeout_s=1.0).setup()
    assert time.monotonic() - began < 2.5
    assert ipmitool.calls() == ["dcmi power reading"]


def test_a_tool_that_hangs_is_an_error(ipmitool: FakeIpmitool) -> None:
    source = IpmiSource(timeout_s=1.0)
    source.setup()
    ipmitool.mode("slow")
    assert source.sample() is None
    time.sleep(1.2)
    with pytest.raises(SampleError, match="no answer in 1 s"):
        source.sample()
    source.close()


def _kinds(path: Path) -> list[str]:
    if not path.exists():
        return []
    return [kind(json.loads(x)) for x in path.read_text().splitlines() if x.endswith("}")]


def _wait(predicate: Callable[[], bool], timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_loop_records_readings_errors_and_recovery(ipmitool: FakeIpmitool,
                                                  tmp_path: Path) -> None:
    log = tmp_path / "out" / "pwr_monitor.log"
    stopper = Stopper()
    loop = threading.Thread(target=run_monitor, args=(tmp_path / "out", 0.2, None, "cpu"),
                            kwargs={"stopper": stopper, "sources": [IpmiSource()]})
    loop.start()
    try:
        _wait(lambda: _kinds(log).count("sample") >= 2)
        ipmitool.mode("garbage")
        _wait(lambda: "error" in _kinds(log))
        ipmitool.mode("dcmi")
        _wait(lambda: "sample" in _kinds(log)[_kinds(log).index("error"):])
    finally:
        stopper.stop("test over")
        loop.join(30)
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    kinds = [kind(r) for r in lines]
    assert kinds[0] == "info" and lines[0]["info"]["method"] == "dcmi"
    # "test over; N tick(s) skipped" when a loaded machine delays a 0.2 s tick
    assert lines[-1]["end"].split(";")[0] == "test over"
    first_error = kinds.index("error")
    assert "Instantaneous power reading" in lines[first_error]["error"]
    assert kinds[1:first_error] == ["sample"] * (first_error - 1)
    samples = [r for r in lines if kind(r) == "sample"]
    assert all(r["power_w"] == 220.0 for r in samples)
    stamps = [r["ts_ms"] for r in lines]  # readings are stamped when asked: still in order
    assert stamps == sorted(stamps)
    assert lines[-1]["errors"] >= 1 and lines[-1]["samples"] == len(samples) >= 3
