"""One interface to a host: run an argv, move files, open its Docker engine.

``SSHHost`` speaks paramiko (key auth, host keys checked against known_hosts
unless the cluster config opts out; chipperf.remote.ssh); ``LocalHost`` serves 127.0.0.1 /
localhost without SSH (chipperf.remote.local); what both offer is chipperf.remote.interface.
Commands are argument lists, quoted once at the edge.
"""

from __future__ import annotations

from chipperf.config.model import ClusterConfig
from chipperf.remote.interface import HELD, CommandResult, Held, HoldEnded, Host
from chipperf.remote.local import LocalHost
from chipperf.remote.ssh import SSHHost, keyscan_command

# what other modules import from here, from where it now lives
__all__ = ["HELD", "LOCAL_NAMES", "CommandResult", "Held", "HoldEnded", "Host", "LocalHost",
           "SSHHost", "keyscan_command", "open_host"]

LOCAL_NAMES = ("127.0.0.1", "localhost", "::1")


def open_host(address: str, cluster: ClusterConfig) -> Host:
    if address in LOCAL_NAMES:
        return LocalHost(address)
    return SSHHost(address, cluster)
