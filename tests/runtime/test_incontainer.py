"""IN_CONTAINER_LAUNCH's processes: started detached in an existing container (here: this
machine, as chipperf's LocalHost), their exit status kept on disk, stopped as a group."""

from __future__ import annotations

import os
import sys
import time

import pytest

from chipperf.containers import runtime
from chipperf.containers.incontainer import InContainerEngine, Process
from chipperf.errors import HostError
from chipperf.remote.host import LocalHost

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture
def engine(tmp_path, monkeypatch):
    monkeypatch.setattr("chipperf.containers.incontainer.STATE_ROOT", str(tmp_path / "state"))
    monkeypatch.setattr("chipperf.containers.incontainer.POLL_S", 0.05)
    monkeypatch.setenv("PATH", f"{os.path.dirname(sys.executable)}:{os.environ['PATH']}")
    host = LocalHost()
    host.use_engine(InContainerEngine(host))
    return host.docker()


def spec(name: str, *command: str) -> runtime.ContainerSpec:
    return runtime.ContainerSpec(name, "never-pulled:image", tuple(command),
                                 {"PYTHONPATH": REPO, "GREETING": "hello"}, {}, "run1")


def test_a_process_runs_with_the_plans_environment_and_its_status_is_kept(engine, tmp_path):
    out = tmp_path / "out.txt"
    proc = runtime.start(engine, spec("case", sys.executable, "-c",
                                      "import os, sys; open(sys.argv[1], 'w').write("
                                      "os.environ['GREETING']); sys.exit(3)", str(out)), "local")
    assert runtime.exit_code(proc, timeout=30) == 3
    assert out.read_text() == "hello"
    life = runtime.lifetime(proc)
    assert life["exit_code"] == 3 and life["running"] is False
    assert life["finished_ms"] >= life["started_ms"] > 0
    assert [p.name for p in engine.containers.list(filters={"label": "chipperf.run=run1"})] \
        == ["case"]
    runtime.remove(proc)
    assert engine.containers.list(filters={"label": "chipperf.run=run1"}) == []
    assert not (tmp_path / "state" / "run1").exists()


def test_stop_ends_the_whole_process_group(engine, tmp_path):
    child_pid = tmp_path / "child.pid"
    script = ("import subprocess, sys, time; p = subprocess.Popen([sys.executable, '-c', "
              "'import time; time.sleep(60)']); open(sys.argv[1], 'w').write(str(p.pid)); "
              "print('started', flush=True); time.sleep(60)")
    proc = runtime.start(engine, spec("launcher", sys.executable, "-c", script, str(child_pid)),
                         "local")
    deadline = time.monotonic() + 20
    while not child_pid.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    with pytest.raises(TimeoutError):
        proc.wait(timeout=0.2)
    assert runtime.lifetime(proc)["running"] is True
    assert "started" in runtime.logs_tail(proc, 5)
    proc.stop(timeout=5)
    assert proc.wait(timeout=10)["StatusCode"] == 128 + 15          # SIGTERM
    pid = int(child_pid.read_text())
    deadline = time.monotonic() + 10
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid)                                           # its rank went too


def test_what_the_command_leaves_behind_is_adopted_ended_and_reaped(engine, tmp_path):
    """An orphan of the command becomes the supervisor's child (a child subreaper), and what
    is still running when the command ends is ended and reaped before ``exit`` is written:
    in a container whose PID 1 reaps nothing no zombie is left."""
    orphan, go = tmp_path / "orphan.pid", tmp_path / "go"
    script = f"(sleep 60 & echo $! > {orphan}); while [ ! -e {go} ]; do sleep 0.05; done"
    proc = runtime.start(engine, spec("leaver", "sh", "-c", script), "local")
    deadline = time.monotonic() + 20
    while not (orphan.exists() and orphan.read_text().strip()) and time.monotonic() < deadline:
        time.sleep(0.05)
    pid = int(orphan.read_text())
    supervisor = int((tmp_path / "state" / "run1" / "leaver" / "pid").read_text())
    assert _parent(pid) == supervisor                                # adopted, not init's
    go.touch()
    assert runtime.exit_code(proc, timeout=30) == 0
    with pytest.raises(ProcessLookupError):                          # ended and reaped
        os.kill(pid, 0)
    assert f"left 1 process(es) running: {pid} (sleep); sending SIGTERM" in runtime.logs_tail(proc)


def test_node_power_says_whether_rapl_reads_where_the_processes_run(tmp_path, monkeypatch):
    """The probe reads the powercap tree the monitor will (flat or nested, at the container's
    CHIPPERF_POWERCAP_ROOT); this machine has none of its own, so trees are made here."""
    from chipperf.containers.incontainer import node_power

    nested = tmp_path / "host-powercap" / "intel-rapl" / "intel-rapl:0"
    nested.mkdir(parents=True)
    (nested / "energy_uj").write_text("123456\n")
    monkeypatch.setenv("CHIPPERF_POWERCAP_ROOT", str(tmp_path / "host-powercap"))
    assert node_power(LocalHost()) == (True, "RAPL energy read inside the container that is "
                                             f"the host from {tmp_path / 'host-powercap'}")
    monkeypatch.setenv("CHIPPERF_POWERCAP_ROOT", str(tmp_path / "none"))
    readable, line = node_power(LocalHost())
    assert readable is False and line.startswith(
        f"no RAPL energy counter inside the container that is the host under {tmp_path / 'none'}")
    assert "-e CHIPPERF_POWERCAP_ROOT=/host/powercap` to measure them" in line


def test_a_command_that_cannot_start_says_so(engine):
    proc = runtime.start(engine, spec("missing", "/no/such/program"), "local")
    assert runtime.exit_code(proc, timeout=30) == 127
    assert "cannot start /no/such/program" in runtime.logs_tail(proc)


def test_no_python_in_the_container_is_refused_in_preflight(monkeypatch):
    host = LocalHost()
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(HostError, match="no python3 in this container"):
        InContainerEngine(host).version()


def test_version_names_the_mode(engine):
    facts = engine.version()
    assert facts["Version"].startswith("none: IN_CONTAINER_LAUNCH (Python 3")
    assert facts["Os"] == "Linux"


def test_a_missing_process_state_reads_as_not_running_yet(tmp_path):
    proc = Process(LocalHost(), "gone", str(tmp_path / "none"), "")
    proc.reload()
    assert proc.attrs["State"]["Running"] is True and proc.attrs["State"]["ExitCode"] is None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as stat:                       # a zombie is gone too
        return stat.read().split(") ")[1][0] != "Z"


def _parent(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as stat:
        return int(stat.read().rsplit(")", 1)[1].split()[1])


def test_the_switch_in_test_conf_or_flagperfs_environment(tmp_path, monkeypatch):
    from chipperf.config import load_test

    conf = tmp_path / "test_conf.py"
    base = 'VENDOR = "cpu"\nCASES = {"resnet50:pytorch_2.13:xeon:1:1:1": "/data"}\n'
    monkeypatch.delenv("EXEC_IN_CONTAINER", raising=False)
    conf.write_text(base)
    assert load_test(conf).in_container_launch is False
    conf.write_text(base + "IN_CONTAINER_LAUNCH = True\n")
    assert load_test(conf).in_container_launch is True
    monkeypatch.setenv("EXEC_IN_CONTAINER", "True")        # FlagPerf's own switch
    conf.write_text(base)
    assert load_test(conf).in_container_launch is True
    conf.write_text(base + "IN_CONTAINER_LAUNCH = False\n")  # the file says otherwise: it wins
    assert load_test(conf).in_container_launch is False
