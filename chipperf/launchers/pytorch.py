"""PyTorch: torchrun, one launcher per node; master = node rank 0's host.

torchrun runs through ``chipperf_runtime.launch.quickexit``, which skips the interpreter's
teardown once torchrun has returned (its ranks have all exited by then). Node 0 of a
multi-node run hosts the store that the other nodes' exit barrier reads, and leaving at once
could cut their last read short ("Error waiting on exit barrier"), so there it first waits
for the other nodes to drop their connections to the master port (``--store-port``).
"""

from __future__ import annotations

from typing import Mapping

from chipperf.launchers.base import LaunchContext, rank_exec


def command(ctx: LaunchContext) -> list[str]:
    hosts_store = ctx.nnodes > 1 and ctx.node_rank == 0
    runner = ["-m", "chipperf_runtime.launch.quickexit",
              *(["--store-port", str(ctx.master_port)] if hosts_store else []),
              "torch.distributed.run"]
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
