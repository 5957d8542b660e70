"""quickexit --store-port on two simulated hosts: the store's host leaves only after the
other host has dropped its connection (as node 0's torchrun must, for the exit barrier)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
PORT = 29611
HOLD_S = 1.5

# Serves one connection from a daemon thread, as a store's server does, and returns at once.
SERVER = textwrap.dedent(f"""
    import socket, threading
    server = socket.create_server(("0.0.0.0", {PORT}), reuse_port=True)
    conn, _ = server.accept()
    threading.Thread(target=conn.recv, args=(1,), daemon=True).start()
    print("served", flush=True)
""")
CLIENT = textwrap.dedent(f"""
    import socket, sys, time
    for _ in range(200):
        try:
            conn = socket.create_connection((sys.argv[1], {PORT}))
            break
        except OSError:
            time.sleep(0.05)
    time.sleep({HOLD_S})
    conn.close()
    print(time.monotonic(), flush=True)
""")


def in_netns(host, argv: list[str], cwd: Path) -> subprocess.Popen:
    return subprocess.Popen(["nsenter", f"--net=/var/run/netns/chipperf-{host.name}", *argv],
                            cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={"PYTHONPATH": f"{cwd}:{REPO}", "PATH": "/usr/bin:/bin"})


@pytest.mark.parametrize("wait", [True, False])
def test_the_store_host_leaves_after_the_other_host(sim_cluster, tmp_path, wait):
    store, other = sim_cluster.hosts[:2]
    (tmp_path / "fake_store.py").write_text(SERVER)
    flag = ["--store-port", str(PORT)] if wait else []
    server = in_netns(store, [sys.executable, "-m", "chipperf_runtime.launch.quickexit", *flag,
                              "fake_store"], tmp_path)
    client = in_netns(other, [sys.executable, "-c", CLIENT, store.address], tmp_path)
    server_out, server_err = server.communicate(timeout=30)
    server_left = time.monotonic()
    client_out, client_err = client.communicate(timeout=30)
    assert (server.returncode, server_out) == (0, "served\n"), server_err
    assert client.returncode == 0, client_err
    client_left = float(client_out)
    if wait:
        assert client_left <= server_left < client_left + 1.0
    else:
        assert server_left < client_left - HOLD_S / 2
