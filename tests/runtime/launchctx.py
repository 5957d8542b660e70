"""The launch context the launcher tests build: one node of a run, paths inside the container."""

from __future__ import annotations

from chipperf.launchers.base import LaunchContext


def launch_context(output_dir: str, entry: str, *, nnodes: int = 1, node_rank: int = 0,
                   nproc: int = 2, hosts: tuple[str, ...] = ("127.0.0.1",), port: int = 29500,
                   python: str = "python3") -> LaunchContext:
    """Node ``node_rank`` of ``hosts`` (the first is the master), the case's arguments pointing
    its output at ``output_dir``."""
    return LaunchContext(
        nnodes=nnodes, node_rank=node_rank, nproc_per_node=nproc, master_addr=hosts[0],
        master_port=port, node_addr=hosts[node_rank], hosts=hosts, entry=entry,
        case_args=("--data_dir", "/data", "--output_dir", output_dir), output_dir=output_dir,
        python=python)
