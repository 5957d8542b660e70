"""Hosts (SSH and local) and parallel fan-out over them."""

from chipperf.remote.group import HostGroup, each
from chipperf.remote.host import CommandResult, Host, LocalHost, SSHHost, open_host

__all__ = ["CommandResult", "Host", "HostGroup", "LocalHost", "SSHHost", "each", "open_host"]
