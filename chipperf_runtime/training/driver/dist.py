"""Distributed facts from the launch environment (no framework needed).

torchrun sets RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, GROUP_RANK; chipperf's launch
contract adds NNODES, NODE_RANK, NPROC_PER_NODE, MASTER_ADDR, MASTER_PORT. Other launchers
(Paddle, TensorFlow, DeepSpeed) set some of them under other names; a case maps those itself
and passes the mapping to ``DistEnv.from_env``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from chipperf_runtime.device import usable_cores
from chipperf_runtime.training.driver.errors import ConfigError, LaunchError


@dataclass(frozen=True)
class DistEnv:
    rank: int = 0
    local_rank: int = 0
    world_size: int = 1
    node_rank: int = 0
    nnodes: int = 1
    nproc_per_node: int = 1
    master_addr: str = "127.0.0.1"
    master_port: int = 29500

    @property
    def is_main(self) -> bool:
        return self.rank == 0

    @property
    def distributed(self) -> bool:
        return self.world_size > 1

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> DistEnv:
        env = os.environ if environ is None else environ
        world = _int(env, "WORLD_SIZE", 1)
        nproc = _int(env, "LOCAL_WORLD_SIZE", _int(env, "NPROC_PER_NODE", world))
        dist = cls(
            rank=_int(env, "RANK", 0),
            local_rank=_int(env, "LOCAL_RANK", 0),
            world_size=world,
            node_rank=_int(env, "NODE_RANK", _int(env, "GROUP_RANK", 0)),
            nnodes=_int(env, "NNODES", max(1, world // max(1, nproc))),
            nproc_per_node=nproc,
            master_addr=env.get("MASTER_ADDR", "127.0.0.1"),
            master_port=_int(env, "MASTER_PORT", 29500),
        )
        dist.check()
        return dist

    def check(self) -> None:
        if self.world_size < 1 or not 0 <= self.rank < self.world_size:
            raise LaunchError(f"RANK={self.rank} is outside WORLD_SIZE={self.world_size}")
        if not 0 <= self.local_rank < max(1, self.nproc_per_node):
            raise LaunchError(f"LOCAL_RANK={self.local_rank} is outside "
                              f"nproc_per_node={self.nproc_per_node}")


def _int(env: Mapping[str, str], name: str, default: int) -> int:
    text = env.get(name, "").strip()
    if not text:
        return default
    try:
        return int(text)
    except ValueError:
        raise LaunchError(f"environment variable {name}={text!r} is not an integer") from None


def split_batch(global_batch: int, world_size: int, name: str = "global_batch_size") -> int:
    """Per-rank batch size; the global batch must divide evenly across the ranks."""
    if global_batch < 1:
        raise ConfigError(f"{name} = {global_batch} must be at least 1")
    if global_batch % world_size:
        raise ConfigError(
            f"{name} = {global_batch} does not divide across {world_size} ranks: use a multiple "
            f"of {world_size} (e.g. {max(1, global_batch // world_size) * world_size})")
    return global_batch // world_size


def rank_threads(dist: DistEnv, configured: int | None = None,
                 environ: Mapping[str, str] | None = None) -> int:
    """Intra-op threads for one rank: ``configured`` (a case's ``cpu_threads``) when set, else
    OMP_NUM_THREADS when set (torchrun sets 1 for nproc > 1), else the usable cores shared
    among this node's ranks."""
    if configured:
        return int(configured)
    text = (os.environ if environ is None else environ).get("OMP_NUM_THREADS", "").strip()
    return int(text) if text.isdigit() else max(1, usable_cores() // max(1, dist.nproc_per_node))


def use_interface_towards_master(dist: DistEnv) -> None:
    """Multi-node gloo: point GLOO_SOCKET_IFNAME at the interface that routes to the master
    (gloo otherwise takes the hostname's address, which may not be reachable from the other
    nodes); a value the user set is kept."""
    from chipperf_runtime.training.driver.netif import interface_towards

    if dist.nnodes > 1 and "GLOO_SOCKET_IFNAME" not in os.environ:
        ifname = interface_towards(dist.master_addr)
        if ifname:
            os.environ["GLOO_SOCKET_IFNAME"] = ifname
