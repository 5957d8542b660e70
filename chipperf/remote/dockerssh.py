"""The Docker SDK over our own paramiko connection.

The SDK's ``ssh://`` transport runs ``docker system dial-stdio`` on the host (so the
host's DOCKER_HOST is honoured), but it builds its own paramiko client from
~/.ssh/config. We give it a client made with the cluster config's user, key,
port, timeouts and host-key policy instead.

The SDK also keys its connection pools by the request's whole URL, so every call
naming a new container (create, start, inspect, wait, stop, remove) opened a new
SSH session, and with it a login shell and a `docker` process on the host, several
per node per round. Here one pool per host keeps its channels open across
calls, and a channel whose dial-stdio has ended is dropped, not reused.
"""

from __future__ import annotations

from typing import Any, Protocol

import docker
import paramiko
from docker import constants
from docker.transport.basehttpadapter import BaseHTTPAdapter
from docker.transport.sshconn import SSHConnectionPool, SSHHTTPAdapter

from chipperf.errors import HostError

try:  # urllib3 2.x
    from urllib3._collections import RecentlyUsedContainer
except ImportError:  # pragma: no cover
    from requests.packages.urllib3._collections import RecentlyUsedContainer  # type: ignore


_POOL_KEY = "http+docker://ssh"


class SSHEndpoint(Protocol):
    """What the transport needs of a host (chipperf.remote.ssh.SSHHost): its name, and a new
    client made with the cluster config's settings."""
    name: str

    def new_ssh_client(self) -> paramiko.SSHClient: ...


class _Pool(SSHConnectionPool):
    def _get_conn(self, timeout: float | None = None) -> Any:
        conn = super()._get_conn(timeout)
        if conn.sock is not None and _ended(conn.sock):
            conn.close()  # connects again (a new session) on its next request
        return conn


def _ended(channel: Any) -> bool:
    return bool(channel.closed or channel.eof_received or channel.exit_status_ready())


class _Adapter(SSHHTTPAdapter):
    def __init__(self, host: SSHEndpoint, timeout: float):
        self._host = host
        self.ssh_client = host.new_ssh_client()
        self.ssh_params: dict[str, Any] = {}
        self.ssh_host = host.name
        self.timeout = timeout
        self.max_pool_size = constants.DEFAULT_MAX_POOL_SIZE
        self.pools: Any = RecentlyUsedContainer(constants.DEFAULT_NUM_POOLS,
                                           dispose_func=lambda p: p.close())
        BaseHTTPAdapter.__init__(self)

    def _connect(self) -> None:  # called by the SDK when the transport dropped
        self.ssh_client = self._host.new_ssh_client()

    def get_connection(self, url: str, proxies: Any = None) -> Any:
        """The host's one pool, whatever the URL."""
        with self.pools.lock:
            pool = self.pools.get(_POOL_KEY)
            if pool is not None:
                return pool
            transport = self.ssh_client.get_transport()
            if transport is None or not transport.is_active():
                self._connect()
            pool = _Pool(ssh_client=self.ssh_client, timeout=self.timeout,
                         maxsize=self.max_pool_size, host=self.ssh_host)
            self.pools[_POOL_KEY] = pool
        return pool


def docker_over_ssh(host: SSHEndpoint, timeout: float = 600) -> Any:
    api = docker.APIClient(base_url=f"ssh://{host.name}", version="1.41", timeout=timeout,
                           use_ssh_client=True)  # shell-out mode: builds no client of its own
    adapter = _Adapter(host, timeout)
    api._custom_adapter = adapter
    api.mount("http+docker://ssh", adapter)
    try:
        api._version = api.version(api_version=False)["ApiVersion"]
    except Exception as exc:
        adapter.close()
        raise HostError(host.name, f"no Docker engine answers over SSH ({exc})",
                        "install Docker on the host, start dockerd, and make sure the SSH user "
                        "may use it (docker group or root)") from exc
    client = docker.DockerClient.__new__(docker.DockerClient)
    client.api = api
    return client
