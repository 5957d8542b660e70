#!/usr/bin/env python3
"""base/'s inter-node all-reduce bus bandwidth beside a plain socket transfer between the same
two simulated hosts.

    python3 selfbench/interconnect_reference.py [--bytes 67108864] [--repeat 3]

Needs the simulated cluster (``python3 tests/simcluster/simcluster.py up``) and root. Runs
base/'s interconnect-MPI_interserver program as a torchrun job with one rank in each of the
first two hosts' network namespaces (gloo over their veth link; one message of ``--bytes``)
and, alternating with it, one TCP stream of the same number of bytes from the first host to
the second (``socket.sendall`` of a buffer, timed from the first byte to the receiver's
acknowledgement). For two ranks nccl-tests' all-reduce bus bandwidth is algbw x 2(n-1)/n =
algbw, the bytes each rank sends over its link per second, so the two figures measure the
same link. Prints the best of ``--repeat`` for each and the ratio; the target is >= 0.95.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
STATE = Path("/run/chipperf-sim/cluster.json")
SPEC = "interconnect-MPI_interserver"

# The receiver, run in the second host's namespace: accept one stream, read ``size`` bytes,
# answer one byte. The sender times from connect to that answer.
RECEIVER = """
import socket, sys
size = int(sys.argv[2])
server = socket.create_server((sys.argv[1], 0))
print(server.getsockname()[1], flush=True)
conn, _ = server.accept()
view, got = memoryview(bytearray(1 << 22)), 0
while got < size:
    n = conn.recv_into(view)
    if not n:
        sys.exit("sender closed early")
    got += n
conn.sendall(b"k")
"""


def hosts() -> list[dict]:
    if not STATE.is_file():
        raise SystemExit(f"{STATE} not found: bring the simulated cluster up first "
                         "(python3 tests/simcluster/simcluster.py up)")
    found = json.loads(STATE.read_text())["hosts"]
    if len(found) < 2:
        raise SystemExit("the simulated cluster has fewer than two hosts")
    return found[:2]


def in_ns(host: dict, argv: list[str]) -> list[str]:
    return ["ip", "netns", "exec", host["netns"], *argv]


def allreduce_busbw(pair: list[dict], size: int, port: int) -> float:
    """GB/s: base/'s MPI_interserver FINISHED busbw_gbs, one rank on each host."""
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "cpu_configuration.yaml").write_text(
            f"defaults:\n  warmup: 2\n  iters: 10\n  min_time_s: 2.0\n"
            f"interconnect:\n  bytes: {size}\n")
        env = {**os.environ, "PYTHONPATH": f"{REPO}:{REPO / 'base' / 'benchmarks'}",
               "CHIPPERF_VENDOR": "cpu", "CHIPPERF_DEVICE": "cpu", "NNODES": "2",
               "NPROC_PER_NODE": "1"}
        procs = []
        for rank, host in enumerate(pair):
            argv = [sys.executable, "-m", "torch.distributed.run", "--nnodes=2",
                    "--nproc_per_node=1", f"--node_rank={rank}",
                    f"--master_addr={pair[0]['address']}", f"--master_port={port}",
                    str(REPO / "base" / "benchmarks" / SPEC / "pytorch" / "main.py"),
                    "--extern_config_dir", tmp, "--extern_config_file", "cpu_configuration.yaml"]
            procs.append(subprocess.Popen(in_ns(host, argv), env={**env, "GLOO_SOCKET_IFNAME":
                                                                  "eth0"},
                                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                          text=True))
        outs = [p.communicate(timeout=600)[0] for p in procs]
    if any(p.returncode for p in procs):
        raise SystemExit("the all-reduce job failed:\n" + "\n".join(o[-2000:] for o in outs))
    line = [x for x in outs[0].splitlines() if '"event": "FINISHED"' in x][-1]
    return float(json.loads(line.split("[PerfLog] ", 1)[1])["value"]["busbw_gbs"])


def socket_gbs(pair: list[dict], size: int) -> float:
    """GB/s of one TCP stream of ``size`` bytes from the first host to the second."""
    receiver = subprocess.Popen(in_ns(pair[1], [sys.executable, "-c", RECEIVER,
                                                pair[1]["address"], str(size)]),
                                stdout=subprocess.PIPE, text=True)
    port = int(receiver.stdout.readline())
    sender = (f"import socket, time\nbuf = bytes({size})\n"
              f"s = socket.create_connection(({pair[1]['address']!r}, {port}))\n"
              "t = time.perf_counter()\ns.sendall(buf)\ns.recv(1)\n"
              "print(time.perf_counter() - t)\n")
    done = subprocess.run(in_ns(pair[0], [sys.executable, "-c", sender]), capture_output=True,
                          text=True, check=True, timeout=600)
    receiver.wait(timeout=60)
    return size / float(done.stdout.strip()) / 1e9


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return 29600 + s.getsockname()[1] % 300


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bytes", type=int, default=64 << 20, help="message / stream size")
    p.add_argument("--repeat", type=int, default=3)
    a = p.parse_args()
    pair = hosts()
    ours, ref = [], []
    for _ in range(a.repeat):
        ours.append(allreduce_busbw(pair, a.bytes, free_port()))
        ref.append(socket_gbs(pair, a.bytes))
        time.sleep(1)
    print(f"hosts {pair[0]['name']} -> {pair[1]['name']} ({pair[0]['address']} -> "
          f"{pair[1]['address']}), {a.bytes} bytes; best of {a.repeat}")
    print(f"all-reduce busbw (base/ {SPEC}): {max(ours):.3f} GB/s  (runs: "
          + ", ".join(f"{x:.3f}" for x in ours) + ")")
    print(f"plain TCP stream:                 {max(ref):.3f} GB/s  (runs: "
          + ", ".join(f"{x:.3f}" for x in ref) + ")")
    print(f"ratio all-reduce / socket: {max(ours) / max(ref):.3f} (target >= 0.95)")


if __name__ == "__main__":
    main()
