"""What a plan is: the run, its cases, their rounds and each node's containers, as frozen data
(and the names and paths derived from a host and a run id)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from chipperf.config.adaptation import Adaptation
from chipperf.config.model import CaseEntry, ClusterConfig
from chipperf.containers.containerplan import (
    NodeContainers,
)
from chipperf.containers.spec import ContainerSpec


@dataclass(frozen=True)
class Upload:
    source: Path   # on the master
    target: str    # relative to the host's work dir


@dataclass(frozen=True)
class NodePlan:
    host: str
    node_rank: int
    work_dir: str          # on the host (and the same path inside the containers)
    container: str
    monitor: str
    result_rel: str        # <case dir>/round<N>/<host>_noderank<K>, relative to the run dir
    output_dir: str        # where the node's files are written on the host
    env: Mapping[str, str]
    command: tuple[str, ...]
    containers: NodeContainers    # what runs: exactly these two are started

    @property
    def case_spec(self) -> ContainerSpec:
        return self.containers.case

    @property
    def monitor_spec(self) -> ContainerSpec:
        return self.containers.monitor


@dataclass(frozen=True)
class RoundPlan:
    number: int
    master_addr: str
    master_port: int
    timeout_s: float
    nodes: tuple[NodePlan, ...]
    point: Mapping[str, Any] = field(default_factory=dict)   # its SWEEPS point ({}: none)


@dataclass(frozen=True)
class CasePlan:
    key: str
    dir_name: str
    vendor: str
    framework: str
    family: str
    chip: str
    nnodes: int
    nproc: int
    data_dir: str
    image_name: str        # repository part; the tag is the build-input hash (containers.images)
    image_context: Path
    rounds: tuple[RoundPlan, ...]
    image_folder: str = ""           # <vendor>/docker_image/<image_folder>
    notes: tuple[str, ...] = ()      # warnings decided while planning (substitutions, aliases)
    implementation: str = ""         # CaseEntry.implementation: FlagPerf's other implementation
    # the vendor case's environment files, requirements (an image layer) and trainer adapter
    adaptation: Adaptation = Adaptation()


@dataclass(frozen=True)
class RunPlan:
    run_id: str
    result_dir: Path
    hosts: tuple[str, ...]
    uploads: tuple[Upload, ...]
    cases: tuple[CasePlan, ...]
    files: tuple[tuple[str, str], ...] = ()   # (target, text) written beside the uploads


    def work_dir(self, host: str, work_root: str) -> str:
        return host_work_dir(work_root, self.run_id, host)

    def sensor_paths(self) -> tuple[str, ...]:
        """Host paths the sidecars mount where present: preflight looks for them."""
        return tuple(dict.fromkeys(p for c in self.cases for r in c.rounds for n in r.nodes
                                   for p in n.monitor_spec.sensor_paths()))


def host_label(host: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", host)


def host_work_dir(work_root: str, run_id: str, host: str) -> str:
    """Per run and per host, so two nodes sharing a filesystem never collide."""
    return f"{work_root.rstrip('/')}/{run_id}/{host_label(host)}"


def case_dir_name(entry: CaseEntry) -> str:
    return entry.key.slug


def case_hosts(entry: CaseEntry, cluster: ClusterConfig) -> tuple[str, ...]:
    """The case's nodes: its pinned hosts, else the first nnodes hosts (node rank = index)."""
    return (entry.hosts or cluster.hosts)[: entry.key.nnodes]
