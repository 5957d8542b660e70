"""Ending a launcher or a rank without interpreter teardown loses no output and keeps the status."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from chipperf_runtime.launch.quickexit import remote_peers, tcp_table

REPO = Path(__file__).resolve().parents[2]


def run_python(args: list[str], tmp_path: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(tmp_path), str(REPO), str(REPO / "training/benchmarks")])}
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=60)


@pytest.mark.parametrize("body, code, out, err", [
    ("print('work done', sys.argv[1:])", 0, "work done ['--x', 'y z']", ""),
    ("print('partial', end='')\nsys.exit(3)", 3, "partial", ""),
    ("sys.exit('launcher said no')", 1, "", "launcher said no"),
    ("raise ValueError('boom')", 1, "", "ValueError: boom"),
    ("import logging\nlogging.basicConfig()\nlogging.getLogger('x').error('logged')", 0, "",
     "logged"),
])
def test_quickexit_keeps_output_and_exit_status(tmp_path, body, code, out, err):
    (tmp_path / "fake_launcher.py").write_text("import sys\n" + body + "\n")
    proc = run_python(["-m", "chipperf_runtime.launch.quickexit", "fake_launcher", "--x", "y z"],
                      tmp_path)
    assert proc.returncode == code, proc
    assert out in proc.stdout and err in proc.stderr, proc


def test_quickexit_skips_teardown(tmp_path):
    """atexit handlers are part of the teardown it skips (a sign that it did skip it)."""
    (tmp_path / "fake_launcher.py").write_text("import atexit\natexit.register(print, 'teardown')\n")
    proc = run_python(["-m", "chipperf_runtime.launch.quickexit", "fake_launcher"], tmp_path)
    assert (proc.returncode, proc.stdout) == (0, "")


@pytest.mark.parametrize("quick, teardown", [(True, False), (False, True)])
def test_run_case_quick_exit_flushes_and_exits_zero(tmp_path, quick, teardown):
    (tmp_path / "case_entry.py").write_text(textwrap.dedent(f"""
        import atexit, sys
        from chipperf_runtime.training.driver import run_case
        atexit.register(print, "teardown")
        def main():
            sys.stdout.write("[PerfLog] FINISHED")   # buffered: stdout is a pipe
            sys.stderr.write("warned")
        run_case(main, quick_exit={quick})
    """))
    proc = run_python(["case_entry.py"], tmp_path)
    assert proc.returncode == 0
    assert proc.stdout.startswith("[PerfLog] FINISHED") and proc.stderr == "warned"
    assert ("teardown" in proc.stdout) is teardown


def test_run_case_error_still_exits_2_with_quick_exit(tmp_path):
    (tmp_path / "case_entry.py").write_text(textwrap.dedent("""
        from chipperf_runtime.training.driver import ConfigError, run_case
        def main():
            raise ConfigError("global_batch_size 7 does not divide over 2 ranks")
        run_case(main, quick_exit=True)
    """))
    proc = run_python(["case_entry.py"], tmp_path)
    assert proc.returncode == 2
    assert "chipperf case error: global_batch_size 7" in proc.stderr


# /proc/net/tcp rows: (local, remote, state); 0x1F90 = 8080, state 01 = ESTABLISHED.
STORE_ROWS = [
    ("0B00E70A:1F90", "00000000:0000", "0A"),   # the listener
    ("0B00E70A:1F90", "0B00E70A:9C40", "01"),   # our own agent's client, accepted ...
    ("0B00E70A:9C40", "0B00E70A:1F90", "01"),   # ... and its end
    ("0B00E70A:1F90", "0C00E70A:B000", "01"),   # node 1's agent (10.231.0.12)
    ("0B00E70A:1F90", "0D00E70A:B001", "08"),   # node 2 has left (CLOSE_WAIT)
    ("0B00E70A:2000", "0C00E70A:B002", "01"),   # another port
]


def test_remote_peers_are_other_hosts_still_connected_to_the_port():
    assert remote_peers(8080, STORE_ROWS) == {"0C00E70A:B000"}
    assert remote_peers(8080, STORE_ROWS[:3] + STORE_ROWS[4:]) == set()


def test_a_connection_from_this_host_is_not_a_remote_peer():
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        with socket.create_connection(("127.0.0.1", port)), server.accept()[0]:
            table = tcp_table()
            assert any(int(local.rsplit(":", 1)[1], 16) == port and state == "01"
                       for local, _, state in table)
            assert remote_peers(port, table) == set()


def test_store_port_flag_runs_the_module_and_keeps_its_output_without_peers(tmp_path):
    (tmp_path / "fake_launcher.py").write_text("import atexit\natexit.register(print, 'teardown')\n"
                                               "print('ran')\n")
    proc = run_python(["-m", "chipperf_runtime.launch.quickexit", "--store-port", "1", "fake_launcher"],
                      tmp_path)
    assert (proc.returncode, proc.stdout) == (0, "ran\n")
