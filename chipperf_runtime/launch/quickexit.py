"""Run a Python module as ``__main__`` and end the process without interpreter teardown.

``python -m chipperf_runtime.launch.quickexit [--store-port PORT] MODULE ARG ...`` runs MODULE
(e.g. ``torch.distributed.run``) with ``sys.argv = [MODULE, ARG ...]``, then flushes stdout,
stderr and logging and calls ``os._exit`` with the module's exit status. A process that
has imported torch spends about half a second tearing the interpreter down after its
work is done (measured in the pytorch image: a one-rank torchrun of a script that
all-reduces one tensor returned 0.65 s sooner with the rank exiting this way); the
launcher waits for its ranks before it returns, so nothing is cut short. An uncaught
exception prints its traceback and exits 1, as Python would.

``--store-port`` is for the process that hosts a TCP store other hosts still read when
the module returns: node 0's torchrun serves the store behind every node's exit barrier,
and the other nodes' last reply may still be unsent when its own barrier passes. It
first waits (up to STORE_WAIT_S) until no other host holds a connection to PORT, read from
the kernel's TCP table of this network namespace, then leaves.

Standard library only: this module runs inside case containers.
"""

from __future__ import annotations

import logging
import os
import runpy
import sys
import time
import traceback

STORE_WAIT_S = 10.0
ESTABLISHED = "01"


def main(argv: list[str]) -> None:
    store_port = None
    if argv[:1] == ["--store-port"] and len(argv) > 1:
        store_port, argv = int(argv[1]), argv[2:]
    if not argv:
        sys.exit("usage: python -m chipperf_runtime.launch.quickexit [--store-port PORT] MODULE [ARG ...]")
    sys.argv = list(argv)
    code = 0
    try:
        runpy.run_module(argv[0], run_name="__main__", alter_sys=True)
    except SystemExit as exc:
        code = exit_status(exc.code)
    except BaseException:  # noqa: BLE001 - reported like the interpreter would, then exit 1
        traceback.print_exc()
        code = 1
    if store_port is not None:
        wait_for_peers_to_leave(store_port, STORE_WAIT_S)
    end(code)


def wait_for_peers_to_leave(port: int, timeout_s: float) -> None:
    started = time.monotonic()
    while peers := remote_peers(port, tcp_table()):
        if time.monotonic() - started > timeout_s:
            print(f"quickexit: {len(peers)} connection(s) from other hosts still open on port "
                  f"{port} after {timeout_s:.0f} s; leaving anyway", file=sys.stderr)
            return
        time.sleep(0.02)


def tcp_table() -> list[tuple[str, str, str]]:
    """(local, remote, state) of every TCP socket in this network namespace, as the kernel
    writes them in /proc/net/tcp{,6} (hex address:port, hex state)."""
    rows = []
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(name) as table:
                lines = table.readlines()[1:]
        except OSError:
            continue
        for line in lines:
            _, local, remote, state, *_ = line.split()
            rows.append((local, remote, state))
    return rows


def remote_peers(port: int, table: list[tuple[str, str, str]]) -> set[str]:
    """Open connections to local ``port`` whose other end is not a socket of this host."""
    ours = {local for local, _, _ in table}
    return {remote for local, remote, state in table
            if state == ESTABLISHED and int(local.rsplit(":", 1)[1], 16) == port
            and remote not in ours}


def exit_status(code: object) -> int:
    """``sys.exit``'s argument as a process exit status (a message means 1, printed)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def end(code: int) -> None:
    """Flush what Python buffers, then leave without running the interpreter's teardown."""
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


if __name__ == "__main__":
    main(sys.argv[1:])
