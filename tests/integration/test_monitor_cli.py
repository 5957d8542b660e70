"""``python3 -m chipperf_runtime.monitors`` as a separate process: a timed run, a SIGTERM stop,
and a refused argument."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from chipperf_runtime.monitors.records import kind

pytestmark = pytest.mark.integration
REPO = Path(__file__).resolve().parents[2]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = f"{REPO}{os.pathsep}{env.get('PYTHONPATH', '')}"
    return env


def _monitor(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "chipperf_runtime.monitors", *args], env=_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            stdin=subprocess.DEVNULL)


def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_timed_run_writes_every_file(tmp_path: Path) -> None:
    began = time.monotonic()
    proc = _monitor("--out", str(tmp_path), "--interval", "1", "--duration", "3")
    out, err = proc.communicate(timeout=60)
    took = time.monotonic() - began
    assert proc.returncode == 0, err
    assert 3.0 <= took < 20.0
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "cpu_monitor.log", "mem_monitor.log", "pwr_monitor.log", "sys_info.json"]
    for name in ("cpu_monitor.log", "mem_monitor.log"):
        lines = _records(tmp_path / name)
        samples = [r for r in lines if kind(r) == "sample"]
        assert kind(lines[0]) == "info" and lines[-1]["end"] == "duration"
        assert 2 <= len(samples) <= 3  # ticks at 0, 1, 2 s (the cpu's first primes)
        stamps = [r["ts_ms"] for r in samples]
        assert stamps == sorted(stamps)
    sys_info = json.loads((tmp_path / "sys_info.json").read_text())
    assert sys_info["cpu"]["logical_cpus"] == os.cpu_count()


def test_sigterm_stops_it_cleanly(tmp_path: Path) -> None:
    proc = _monitor("--out", str(tmp_path), "--interval", "0.5")
    cpu_log = tmp_path / "cpu_monitor.log"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if cpu_log.exists() and sum(kind(r) == "sample" for r in _records(cpu_log)) >= 2:
            break
        time.sleep(0.1)
    sent = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert time.monotonic() - sent < 5.0
    for name in ("cpu_monitor.log", "mem_monitor.log", "pwr_monitor.log"):
        ends = [r for r in _records(tmp_path / name) if kind(r) == "end"]
        assert ends and all(r["end"] == "signal SIGTERM" for r in ends), name


def test_unknown_vendor_is_refused(tmp_path: Path) -> None:
    proc = _monitor("--out", str(tmp_path), "--vendor", "nosuch", "--duration", "1")
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 2 and "unknown vendor 'nosuch'" in err
