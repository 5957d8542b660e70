"""JAX: one process per rank, joined by ``jax.distributed.initialize``.

Each node runs ``python3 -m chipperf_runtime.launch.spawn``, which starts the node's
nproc_per_node ranks, each through rankexec (output to ``rank<R>.out.log``), with
RANK/LOCAL_RANK/WORLD_SIZE set. A case with several ranks calls
``jax.distributed.initialize(MASTER_ADDR:MASTER_PORT, WORLD_SIZE, RANK)``: rank 0 serves the
coordinator on the master port. Each process sees every device of its platform on its host,
so on TPUs (and wherever one process drives a host's chips) nproc is 1.
"""

from __future__ import annotations

from typing import Mapping

from chipperf.launchers.base import LaunchContext, spawn_command


def command(ctx: LaunchContext) -> list[str]:
    return spawn_command(ctx)


def env(ctx: LaunchContext) -> Mapping[str, str]:
    return {}
