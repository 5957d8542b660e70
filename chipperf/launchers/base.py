"""The launcher interface: a node's launch context -> argv and env for its container."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Protocol


@dataclass(frozen=True)
class LaunchContext:
    """Everything a launcher needs for one node of one round (all paths inside the container)."""

    nnodes: int
    node_rank: int
    nproc_per_node: int
    master_addr: str
    master_port: int
    node_addr: str             # this node's own address
    hosts: tuple[str, ...]     # addresses of all nodes, node rank = index
    entry: str                 # the case's entry script (absolute path)
    case_args: tuple[str, ...] # --data_dir ... --output_dir ...
    output_dir: str            # the node's result dir: rank<R>.out.log and launcher.log go here
    python: str = "python3"

    @property
    def world_size(self) -> int:
        return self.nnodes * self.nproc_per_node


class Launcher(Protocol):
    def command(self, ctx: LaunchContext) -> list[str]:
        """argv of the node's launcher process (it starts nproc ranks)."""

    def env(self, ctx: LaunchContext) -> Mapping[str, str]:
        """Extra environment for the node's launcher process."""


def rank_exec(ctx: LaunchContext) -> list[str]:
    """argv prefix that sends one rank's stdout+stderr to rank<RANK>.out.log in the node dir."""
    return [ctx.python, "-m", "chipperf_runtime.launch.rankexec", f"{ctx.output_dir}/rank{{RANK}}.out.log"]


def spawn_command(ctx: LaunchContext, *spawn_args: str) -> list[str]:
    """The node's ``chipperf_runtime.launch.spawn`` command: it starts the node's
    nproc_per_node ranks of the case entry, each through rank_exec (``spawn_args``: the
    framework's own spawn options)."""
    return [
        ctx.python, "-m", "chipperf_runtime.launch.spawn",
        f"--nnodes={ctx.nnodes}",
        f"--node_rank={ctx.node_rank}",
        f"--nproc_per_node={ctx.nproc_per_node}",
        *spawn_args,
        "--",
        *rank_exec(ctx),
        ctx.python, "-u", ctx.entry, *ctx.case_args,
    ]
