"""TensorFlow 2: one MultiWorkerMirroredStrategy worker process per rank.

Each node runs ``python3 -m chipperf_runtime.launch.spawn``, which starts the node's
nproc_per_node ranks, each through rankexec, with RANK/LOCAL_RANK and a TF_CONFIG naming
every worker. Worker ``r`` (global rank; node ``r // nproc_per_node``) listens on
``hosts[r // nproc_per_node]:(master_port + r)``: ports master_port .. master_port +
world_size - 1 must be free on the nodes (distinct even when two nodes share an address).
"""

from __future__ import annotations

from typing import Mapping

from chipperf.launchers.base import LaunchContext, spawn_command


def worker_addresses(ctx: LaunchContext) -> list[str]:
    """HOST:PORT of every worker, in global rank order."""
    return [f"{ctx.hosts[rank // ctx.nproc_per_node]}:{ctx.master_port + rank}"
            for rank in range(ctx.world_size)]


def command(ctx: LaunchContext) -> list[str]:
    return spawn_command(ctx, f"--tf_workers={','.join(worker_addresses(ctx))}")


def env(ctx: LaunchContext) -> Mapping[str, str]:
    return {}
