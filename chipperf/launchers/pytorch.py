"""PyTorch: torchrun, one launcher per node; master = node rank 0's host.

torchrun runs through ``chipperf.launchers.quickexit``, which skips the interpreter's
teardown once torchrun has returned (its ranks have all exited by then), except on node 0 of
a multi-node run: node 0's torchrun hosts the store that the other nodes' exit barrier reads,
and leaving at once can cut their last read short ("Error waiting on exit barrier").
"""

from __future__ import annotations

from typing import Mapping

from chipperf.launchers.base import LaunchContext, rank_exec


def command(ctx: LaunchContext) -> list[str]:
    hosts_store = ctx.nnodes > 1 and ctx.node_rank == 0
    runner = ["-m", "torch.distributed.run"] if hosts_store else \
        ["-m", "chipperf.launchers.quickexit", "torch.distributed.run"]
    return [
        ctx.python, *runner,
        f"--nnodes={ctx.nnodes}",
        f"--nproc_per_node={ctx.nproc_per_node}",
        f"--node_rank={ctx.node_rank}",
        f"--master_addr={ctx.master_addr}",
        f"--master_port={ctx.master_port}",
        "--no-python",
        *rank_exec(ctx),
        ctx.python, "-u", ctx.entry, *ctx.case_args,
    ]


def env(ctx: LaunchContext) -> Mapping[str, str]:
    return {}
