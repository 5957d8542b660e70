"""The frozen typed config objects every other part reads."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional

from chipperf.config.limits import count_problem
from chipperf.config.sweep import Sweep
from chipperf.frameworks import family as framework_family
from chipperf_runtime.monitors.command import DEFAULT_INTERVAL_S

CASE_KEY_FORM = "model:framework:chip:nnodes:nproc:repeat"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")


@dataclass(frozen=True)
class CaseKey:
    """``model:framework:chip:nnodes:nproc:repeat``, e.g. ``resnet50:pytorch_2.13:xeon:1:2:3``."""

    model: str
    framework: str
    chip: str
    nnodes: int
    nproc: int
    repeat: int

    @classmethod
    def parse(cls, text: str) -> "CaseKey":
        parts = text.split(":")
        if len(parts) != 6:
            raise ValueError(f"has {len(parts)} ':'-separated parts, expected 6 ({CASE_KEY_FORM})")
        model, framework, chip, *numbers = (p.strip() for p in parts)
        for label, value in (("model", model), ("framework", framework), ("chip", chip)):
            if not _NAME.match(value):
                raise ValueError(f"{label} {value!r} must be letters, digits, '_', '.', '-'")
        counts = []
        for label, value in zip(("nnodes", "nproc", "repeat"), numbers):
            if not value.isdigit() or int(value) < 1:
                raise ValueError(f"{label} {value!r} must be a whole number >= 1")
            too_many = count_problem(label, int(value))
            if too_many:
                raise ValueError(too_many)
            counts.append(int(value))
        return cls(model, framework, chip, *counts)

    @property
    def family(self) -> str:
        """The launcher / standard case folder: the framework's part before '_' or '-'
        (FlagPerf's ``ngctorch2403`` is pytorch)."""
        return framework_family(self.framework)

    @property
    def vendor_config_name(self) -> str:
        return f"config_{self.chip}x{self.nnodes}x{self.nproc}.py"

    @property
    def slug(self) -> str:
        """Directory and container-name friendly form."""
        return f"{self.model}-{self.framework}-{self.chip}-{self.nnodes}x{self.nproc}"

    def __str__(self) -> str:
        return ":".join(str(x) for x in (self.model, self.framework, self.chip,
                                         self.nnodes, self.nproc, self.repeat))


@dataclass(frozen=True)
class CaseEntry:
    key: CaseKey
    data_dir: str
    hosts: tuple[str, ...] = ()  # pinned nodes (inference: one host per case); () = first nnodes
    case_args: tuple[str, ...] = ()  # passed to the entry after the contract's (operation: --dtype ...)
    # FlagPerf's key of another implementation run as chipperf's torch-native case: what
    # differs (chipperf.config.implementations); "" for a key run as written
    implementation: str = ""


@dataclass(frozen=True)
class SlurmConfig:
    """EXECUTOR = "slurm": the run's nodes are a Slurm allocation (chipperf.slurm)."""

    nodes: int                           # SLURM_NODES: how many nodes to ask for
    partition: Optional[str] = None      # None: the cluster's default partition
    account: Optional[str] = None
    queue_timeout_s: float = 600.0       # QUEUE_TIMEOUT: pending longer: scancel, fail
    extra_args: tuple[str, ...] = ()     # SLURM_EXTRA_ARGS: more sbatch options, as words
    time_limit_min: Optional[int] = None  # SLURM_TIME_LIMIT; None: every round's deadline + margin

    @property
    def placeholders(self) -> tuple[str, ...]:
        """The hosts a plan names until Slurm has allocated the nodes (node rank = index)."""
        return tuple(f"slurm-node{i}" for i in range(1, self.nodes + 1))


@dataclass(frozen=True)
class ClusterConfig:
    hosts: tuple[str, ...]
    ssh_port: int = 22
    master_port: int = 29501
    ssh_user: Optional[str] = None       # None: the current user
    ssh_key: Optional[str] = None        # None: the SSH agent / default keys
    known_hosts: str = "~/.ssh/known_hosts"
    host_key_policy: str = "verify"      # "verify" | "accept-any" (explicit opt-out)
    connect_timeout_s: float = 10.0
    host_lost_after_s: float = 60.0      # a round's host silent over SSH this long is lost
    work_root: str = "/tmp/chipperf"     # per-run work dirs on every host go under here
    executor: str = "ssh"                # "ssh": HOSTS as listed; "slurm": hosts from Slurm
    slurm: Optional[SlurmConfig] = None  # set when executor is "slurm"


@dataclass(frozen=True)
class ImageBuildConfig:
    """Passed through to image builds so they work behind mirrors and offline."""

    pip_index_url: Optional[str] = None
    pip_extra_index_urls: tuple[str, ...] = ()
    pip_find_links: tuple[str, ...] = ()   # URLs, or directories on the master (copied in)
    wheelhouse: Optional[str] = None       # a directory of wheels on the master (copied in)
    ca_bundle: Optional[str] = None        # CA bundle on the master (copied in, PIP_CERT)
    http_proxy: Optional[str] = None
    https_proxy: Optional[str] = None
    no_proxy: Optional[str] = None
    debian_mirror: str = "http://deb.debian.org/debian"
    build_timeout_s: float = 3600.0
    pip_from_master: bool = True           # fill unset pip settings from the master's pip
    base_image: Optional[str] = None       # BASE_IMAGE build arg: the user's registry's image


@dataclass(frozen=True)
class SkippedCase:
    """A case key left out of the run by --keep-going, with every reason it cannot run."""

    key: str
    problems: tuple[str, ...]


@dataclass(frozen=True)
class TestConfig:
    __test__ = False  # not a pytest class

    vendor: str
    cases: tuple[CaseEntry, ...]
    image: ImageBuildConfig = field(default_factory=ImageBuildConfig)
    shm_size: str = "16g"
    container_opt: str = ""                 # extra docker options, CLI form ("--gpus all ...")
    visible_devices_env: Optional[str] = None  # override the vendor's variable
    clear_caches: bool = False
    retry_lost_hosts: bool = False          # start a case's later rounds on a host it lost
    in_container_launch: bool = False       # FlagPerf's: HOSTS are existing containers
    # IN_CONTAINER_NAME: with IN_CONTAINER_LAUNCH, HOSTS are hosts and the cases run in the
    # running container of this name on each (docker exec over SSH; chipperf.remote.container)
    in_container_name: Optional[str] = None
    framework_match: str = "nearest"        # "nearest" | "exact" (chipperf.frameworks)
    round_timeout_s: float = 3600.0
    monitor_interval_s: float = DEFAULT_INTERVAL_S
    result_root: str = "result"
    training_dir: Optional[str] = None      # case catalogue root; default: the repo's <suite>/
    log_level: str = "info"
    suite: str = "training"                 # "training" | "inference" | "base" | "operation"
    measured_peaks: Optional[str] = None    # a base/ run dir: MFU also against its GEMM peaks
    # training: case parameters set for every case of the run, over its vendor config (each
    # must be one of the case's mutable_params; passed as the case's --set NAME=VALUE)
    overrides: Mapping[str, Any] = field(default_factory=dict)
    # cases the plan left out (--keep-going): listed on the console and in run.json's "skipped"
    skipped: tuple[SkippedCase, ...] = ()
    # SWEEPS: case key -> its grid of batch size / sequence length / precision values
    # (chipperf.config.sweep): one round per point, times the case key's repeat
    sweeps: Mapping[str, Sweep] = field(default_factory=dict)
    sweep_deadline_s: Optional[float] = None   # SWEEP_DEADLINE: the most a case's grid may take
    sweep_round_s: Optional[float] = None      # SWEEP_ROUND_S: one round's measured length
