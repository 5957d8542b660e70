"""chipperf.remote.liveness: a host that stops answering its probes is named silent within
HOST_LOST_AFTER; one that answers, however slowly, is not."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from chipperf.config.load import parse_cluster
from chipperf.errors import HostError, failure
from chipperf.remote.host import CommandResult, Host
from chipperf.remote.liveness import Liveness, probe_interval, silence_error


class FakeHost(Host):
    """Answers `true` after ``delay_s``; while ``cut`` is set it answers nothing (blocks for
    the probe's timeout, then fails as an SSH command that did not finish would)."""

    def __init__(self, name: str, delay_s: float = 0.0):
        self.name = name
        self.delay_s = delay_s
        self.cut = threading.Event()
        self.probes = 0

    def run(self, argv, timeout=300, check=True):
        self.probes += 1
        if self.cut.is_set():
            time.sleep(timeout)
            raise HostError(self.name, f"`{argv[0]}` did not finish in {timeout:.0f} s")
        time.sleep(self.delay_s)
        return CommandResult(tuple(argv), 0, "", "")


def test_a_cut_off_host_is_silent_after_lost_after_s_and_only_it():
    fine, slow, cut = FakeHost("h4"), FakeHost("h5", delay_s=0.3), FakeHost("h6")
    with Liveness([fine, slow, cut], lost_after_s=1.2) as liveness:
        time.sleep(0.5)
        assert liveness.silent() == []
        cut.cut.set()
        started = time.monotonic()
        while not liveness.silent() and time.monotonic() - started < 10:
            time.sleep(0.05)
        waited = time.monotonic() - started
        assert liveness.silent() == ["h6"]
        assert 0.6 < waited < 3.0, waited       # within lost_after_s (+ a probe interval)
        assert liveness.silent_for("h4") < 1.0 and liveness.silent_for("h5") < 1.2
    assert fine.probes >= 3 and slow.probes >= 2


def test_probes_stop_with_the_round():
    host = FakeHost("h4")
    with Liveness([host], lost_after_s=0.6):
        time.sleep(0.4)
    time.sleep(0.3)                           # a probe in flight ends
    count = host.probes
    time.sleep(0.5)
    assert host.probes == count


def test_probe_interval_is_a_fraction_of_lost_after_capped():
    assert probe_interval(60) == 10 and probe_interval(30) == 5 and probe_interval(1) == 0.5


def test_silence_is_a_lost_host_naming_it_and_the_setting():
    kind, reason = failure(silence_error("10.0.0.5", 31.4, 5), "waiting for c1")
    assert kind == "unreachable"
    assert "10.0.0.5: no answer over SSH for 31 s (probed every 5 s)" in reason
    assert "lost contact with the host" in reason and "HOST_LOST_AFTER" in reason


@pytest.mark.parametrize("value, problem", [("20", None), ("0", "use seconds > 0"),
                                            ("'soon'", "use seconds > 0")])
def test_host_lost_after_in_the_cluster_config(tmp_path: Path, value, problem):
    conf = tmp_path / "cluster_conf.py"
    conf.write_text(f"HOSTS = ['10.0.0.1']\nHOST_LOST_AFTER = {value}\n")
    config, problems = parse_cluster(conf)
    if problem is None:
        assert problems == [] and config.host_lost_after_s == 20.0
    else:
        assert any("HOST_LOST_AFTER" in p.upper() and problem in p for p in problems), problems
