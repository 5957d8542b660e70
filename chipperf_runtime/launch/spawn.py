"""Start a node's ranks, one process each, and wait for them (stdlib only; runs in containers).

    python3 -m chipperf_runtime.launch.spawn --nnodes N --node_rank K --nproc_per_node P
        [--tf_workers HOST:PORT,HOST:PORT,...] -- CMD [ARG ...]

Local rank L runs CMD with RANK=K*P+L, LOCAL_RANK=L, WORLD_SIZE=N*P, LOCAL_WORLD_SIZE=P,
NNODES, NODE_RANK and NPROC_PER_NODE set, and, with ``--tf_workers`` (all N*P worker
addresses in rank order), TF_CONFIG = {"cluster": {"worker": [...]}, "task": {"type":
"worker", "index": RANK}} for tf.distribute.MultiWorkerMirroredStrategy.

The first rank to fail decides: the others get SIGTERM (SIGKILL after ``--grace_s``) and
the spawner exits with that rank's status (128+N for a signal N). SIGTERM or SIGINT sent
to the spawner is passed on to every rank, and ranks still alive ``--grace_s`` later are
killed (TensorFlow's multi-worker runtime catches SIGTERM as a preemption notice and keeps
running).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Mapping, Sequence

GRACE_S = 10.0
POLL_S = 0.2


@dataclass(frozen=True)
class Topology:
    nnodes: int
    node_rank: int
    nproc_per_node: int
    tf_workers: tuple[str, ...] = ()

    @property
    def world_size(self) -> int:
        return self.nnodes * self.nproc_per_node

    def problems(self) -> list[str]:
        out = []
        if self.nnodes < 1 or self.nproc_per_node < 1:
            out.append("--nnodes and --nproc_per_node must be at least 1")
        if not 0 <= self.node_rank < self.nnodes:
            out.append(f"--node_rank {self.node_rank} is outside 0..{self.nnodes - 1}")
        if self.tf_workers and len(self.tf_workers) != self.world_size:
            out.append(f"--tf_workers lists {len(self.tf_workers)} addresses for "
                       f"{self.world_size} ranks")
        return out


def rank_env(topo: Topology, local_rank: int) -> dict[str, str]:
    """The variables one rank gets on top of the spawner's environment."""
    rank = topo.node_rank * topo.nproc_per_node + local_rank
    env = {
        "RANK": str(rank), "LOCAL_RANK": str(local_rank),
        "WORLD_SIZE": str(topo.world_size), "LOCAL_WORLD_SIZE": str(topo.nproc_per_node),
        "NNODES": str(topo.nnodes), "NODE_RANK": str(topo.node_rank),
        "NPROC_PER_NODE": str(topo.nproc_per_node),
    }
    if topo.tf_workers:
        env["TF_CONFIG"] = json.dumps({"cluster": {"worker": list(topo.tf_workers)},
                                       "task": {"type": "worker", "index": rank}})
    return env


def exit_code(returncode: int) -> int:
    """A Popen return code as a shell would report it (signal N -> 128+N)."""
    return 128 - returncode if returncode < 0 else returncode


class Ranks:
    """The node's rank processes."""

    def __init__(self, procs: Mapping[int, subprocess.Popen], grace_s: float = GRACE_S):
        self.procs = dict(procs)
        self.grace_s = grace_s
        self.stop_requested: float | None = None   # monotonic time of a forwarded signal

    @classmethod
    def start(cls, topo: Topology, command: Sequence[str], environ: Mapping[str, str],
              grace_s: float = GRACE_S) -> Ranks:
        ranks = cls({}, grace_s)
        try:
            for local_rank in range(topo.nproc_per_node):
                env = {**environ, **rank_env(topo, local_rank)}
                ranks.procs[local_rank] = subprocess.Popen(list(command), env=env)
        except OSError:
            ranks.stop()
            raise
        return ranks

    def running(self) -> list[subprocess.Popen]:
        return [p for p in self.procs.values() if p.poll() is None]

    def signal_all(self, sig: int) -> None:
        for proc in self.running():
            try:
                proc.send_signal(sig)
            except ProcessLookupError:
                pass

    def first_failure(self) -> tuple[int, int] | None:
        """(local rank, return code) of a rank that exited non-zero, if any."""
        for local_rank, proc in self.procs.items():
            if proc.poll() not in (None, 0):
                return local_rank, proc.returncode
        return None

    def forward(self, sig: int) -> None:
        """Pass a signal the spawner got on to the ranks; ``escalate`` kills them if they
        outlive the grace period (TensorFlow's workers catch SIGTERM and keep running)."""
        if self.stop_requested is None:
            self.stop_requested = time.monotonic()
        self.signal_all(sig)

    def escalate(self) -> None:
        if self.stop_requested is not None and \
                time.monotonic() - self.stop_requested > self.grace_s:
            self.signal_all(signal.SIGKILL)

    def stop(self) -> None:
        self.signal_all(signal.SIGTERM)
        deadline = time.monotonic() + self.grace_s
        while self.running() and time.monotonic() < deadline:
            time.sleep(POLL_S)
        self.signal_all(signal.SIGKILL)
        for proc in self.procs.values():
            proc.wait()


def supervise(ranks: Ranks, log=sys.stdout) -> int:
    """Wait for every rank; on the first failure stop the rest. Returns the exit status."""
    while True:
        failure = ranks.first_failure()
        if failure is not None:
            local_rank, code = failure
            print(f"spawn: local rank {local_rank} exited with status {exit_code(code)}; "
                  "stopping the other ranks", file=log, flush=True)
            ranks.stop()
            return exit_code(code)
        if not ranks.running():
            return 0
        ranks.escalate()
        time.sleep(POLL_S)


def parse_args(argv: Sequence[str]) -> tuple[Topology, list[str], float]:
    p = argparse.ArgumentParser(prog="python3 -m chipperf_runtime.launch.spawn",
                                description="start a node's ranks and wait for them")
    p.add_argument("--nnodes", type=int, required=True)
    p.add_argument("--node_rank", type=int, required=True)
    p.add_argument("--nproc_per_node", type=int, required=True)
    p.add_argument("--tf_workers", default="", help="HOST:PORT of every rank, comma-separated")
    p.add_argument("--grace_s", type=float, default=GRACE_S,
                   help="seconds a rank gets to exit after SIGTERM before SIGKILL")
    p.add_argument("command", nargs=argparse.REMAINDER, help="-- CMD [ARG ...]")
    ns = p.parse_args(argv)
    command = ns.command[1:] if ns.command[:1] == ["--"] else ns.command
    workers = tuple(w for w in ns.tf_workers.split(",") if w)
    topo = Topology(ns.nnodes, ns.node_rank, ns.nproc_per_node, workers)
    problems = topo.problems() + ([] if command else ["no command given after --"])
    if problems:
        p.error("; ".join(problems))
    return topo, command, ns.grace_s


def main(argv: Sequence[str] | None = None) -> int:
    topo, command, grace_s = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        ranks = Ranks.start(topo, command, os.environ, grace_s)
    except OSError as exc:
        print(f"spawn: cannot start {command[0]!r}: {exc}", file=sys.stderr, flush=True)
        return 127

    def forward(signum: int, _frame: object) -> None:
        ranks.forward(signum)

    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGINT, forward)
    return supervise(ranks)


if __name__ == "__main__":
    sys.exit(main())
