"""`chipperf run` and `chipperf plan` with EXECUTOR = "slurm"."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from chipperf.config.model import ClusterConfig, TestConfig
from chipperf.errors import ConfigError
from chipperf.slurm import checks, commands
from chipperf.slurm.allocation import allocate
from chipperf.slurm.commands import Request
from chipperf.suites.catalogue import Catalogue
from chipperf_runtime.vendors import get_vendor

if TYPE_CHECKING:
    from chipperf.run.clusterlease import Wait
    from chipperf.run.controller import RunOutcome

log = logging.getLogger("chipperf")


def slurm_request(cluster: ClusterConfig, test: TestConfig) -> Request:
    """Pure: GPUs per node are asked for where the vendor's device is not the CPU."""
    return commands.request(cluster, test, gpus=get_vendor(test.vendor).device != "cpu")


def checked_request(cluster: ClusterConfig, test: TestConfig) -> Request:
    """The request, after sinfo/scontrol said it can be met (ConfigError: nothing queued)."""
    req = slurm_request(cluster, test)
    found = checks.problems(req)
    if found:
        raise ConfigError(found)
    for warning in checks.warnings(req):
        log.warning("slurm: %s", warning)
    return req


def run(cluster: ClusterConfig, test: TestConfig, catalogue: Catalogue, *, suite: str,
        debug: bool = False, wait: Wait | None = None) -> RunOutcome:
    """Allocate, run the usual engine on the allocated nodes, release (scancel) on every
    way out; run.json's "executor" holds the job."""
    from chipperf.run import controller

    alloc = allocate(checked_request(cluster, test))
    try:
        on_cluster, on_test = commands.on_nodes(cluster, test, alloc.addresses)
        return controller.run(on_cluster, on_test, catalogue, suite=suite, debug=debug,
                              wait=wait, executor=alloc)
    finally:
        alloc.release()
