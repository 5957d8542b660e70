"""DeepSpeed: DeepSpeed's own per-node launcher, one per node, no ssh/pdsh between nodes.

``deepspeed --no_ssh --node_rank=K`` (and the pdsh runner on every node) ends in
``python -m deepspeed.launcher.launch --world_info=<base64 json> --node_rank=K
--master_addr=A --master_port=P``, which starts this node's ranks with RANK, LOCAL_RANK,
WORLD_SIZE, MASTER_ADDR/PORT, CROSS_RANK, CROSS_SIZE and LOCAL_SIZE set. chipperf starts that
module directly on every node, so no hostfile has to be written inside the container. The
world info maps each node to its local device indices ``0..nproc-1`` (DeepSpeed sets the
accelerator's visible-devices variable from it, as chipperf's vendor plan does).

The launch module runs through ``chipperf_runtime.launch.quickexit`` (no interpreter teardown once
it has returned): unlike torchrun's agents it hosts no store that other nodes still read,
since rank 0's process group hosts the rendezvous.
"""

from __future__ import annotations

import base64
import json
from typing import Mapping

from chipperf.launchers.base import LaunchContext, rank_exec


def world_info(ctx: LaunchContext) -> str:
    """DeepSpeed's ``--world_info``: urlsafe base64 of {node name: [local device ids]}, in
    node-rank order (the names only label the nodes; duplicates get their rank appended)."""
    names = [host if ctx.hosts.count(host) == 1 else f"{host}#{rank}"
             for rank, host in enumerate(ctx.hosts)]
    info = {name: list(range(ctx.nproc_per_node)) for name in names}
    return base64.urlsafe_b64encode(json.dumps(info).encode()).decode()


def command(ctx: LaunchContext) -> list[str]:
    return [
        ctx.python, "-u", "-m", "chipperf_runtime.launch.quickexit", "deepspeed.launcher.launch",
        f"--world_info={world_info(ctx)}",
        f"--node_rank={ctx.node_rank}",
        f"--master_addr={ctx.master_addr}",
        f"--master_port={ctx.master_port}",
        "--no_python", "--no_local_rank",
        *rank_exec(ctx),
        ctx.python, "-u", ctx.entry, *ctx.case_args,
    ]


def env(ctx: LaunchContext) -> Mapping[str, str]:
    return {}
