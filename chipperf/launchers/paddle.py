"""Paddle: ``python3 -m paddle.distributed.launch``, one launcher per node.

Node rank 0's host:master_port is the rendezvous; ``--rank`` fixes each node's rank, so
global ranks follow chipperf's node order. On CPU-only nodes Paddle's launcher starts the
ranks with the gloo backend (PADDLE_DISTRI_BACKEND=gloo); on GPU nodes it gives each rank
one GPU (FLAGS_selected_gpus) and NCCL. ``--max_restart 0``: a failed rank fails the run
(Paddle's default restarts it up to three times). Paddle's own logs go to
``<output_dir>/paddle_launch/``; each rank's output goes through rankexec to
``rank<R>.out.log``, R read from PADDLE_TRAINER_ID (Paddle sets no RANK; the case maps
PADDLE_TRAINER_ID/PADDLE_LOCAL_RANK to the contract's RANK/LOCAL_RANK itself).

The ``--`` before the rank command is needed: Paddle's parser would otherwise read
option-like words of the rank command (it matches abbreviations) as its own.
"""

from __future__ import annotations

from typing import Mapping

from chipperf.launchers.base import LaunchContext

RANK_VARIABLE = "PADDLE_TRAINER_ID"


def rank_exec(ctx: LaunchContext) -> list[str]:
    """rankexec prefix with the rank taken from Paddle's PADDLE_TRAINER_ID."""
    return [ctx.python, "-m", "chipperf_runtime.launch.rankexec",
            f"{ctx.output_dir}/rank{{{RANK_VARIABLE}}}.out.log"]


def command(ctx: LaunchContext) -> list[str]:
    return [
        ctx.python, "-m", "paddle.distributed.launch",
        "--nnodes", str(ctx.nnodes),
        "--master", f"{ctx.master_addr}:{ctx.master_port}",
        "--rank", str(ctx.node_rank),
        "--nproc_per_node", str(ctx.nproc_per_node),
        "--log_dir", f"{ctx.output_dir}/paddle_launch",
        "--max_restart", "0",
        "--",
        *rank_exec(ctx),
        ctx.python, "-u", ctx.entry, *ctx.case_args,
    ]


def env(ctx: LaunchContext) -> Mapping[str, str]:
    return {}
