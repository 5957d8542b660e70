"""JAX side of the device layer: the platform a JAX process computes on, or an error.

    device = open_jax_device()    # before JAX initialises a backend: pins JAX to one platform

JAX names its platforms ``cpu``, ``cuda`` (``jax[cuda12]``) and ``tpu`` (``jax[tpu]``, libtpu).
The process is pinned to the vendor's platform (``jax_platforms``), so a JAX build that lacks
it fails at once instead of computing on the CPU. One process sees every device of its
platform on its host (JAX's own model: one process per host on TPUs), except where several
processes share a GPU host (nvidia x1x8: one process per GPU, ``local_device_ids``); the case
spreads its batch over every process's devices with a ``Mesh``. Several processes on the CPU
backend exchange their collectives through gloo (``jax_cpu_collectives_implementation``),
each bound to its address towards the coordinator's host: JAX's own gloo setup binds the
address the hostname resolves to, loopback on many hosts (Debian's 127.0.1.1; 127.0.0.1 on the
simulated hosts), and a peer on another host then connects to itself ("Gloo context
initialization failed: ... Connection refused, remote=[127.0.0.1]:PORT").
"""

from __future__ import annotations

import functools
import os
import socket
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Optional

import jax

from chipperf_runtime.device import DeviceError, DeviceRequest

__all__ = ["JAX_PLATFORMS", "Coordinator", "DeviceError", "JaxDevice", "open_jax_device"]

# chipperf's device kind -> JAX platform; a kind missing here has no JAX build.
JAX_PLATFORMS = {"cpu": "cpu", "cuda": "cuda", "tpu": "tpu"}
# XLA's CPU client runs cross-process collectives only through an implementation named here
# (jaxlib ships gloo; "mpi" needs an MPI library): without it a multi-process step fails.
CPU_COLLECTIVES = "gloo"


@dataclass(frozen=True)
class JaxDevice:
    request: DeviceRequest
    platform: str
    devices: tuple[Any, ...]     # this process's local devices

    @property
    def is_accelerator(self) -> bool:
        return self.platform != "cpu"

    @property
    def kind(self) -> str:
        """The device kind as the runtime reports it ("cpu", "TPU v5p", "NVIDIA H100 ...")."""
        return str(self.devices[0].device_kind)

    def max_memory_allocated(self) -> Optional[int]:
        """Peak bytes in use on the busiest local device; None where the runtime keeps no
        statistics (XLA's CPU client)."""
        peaks = [(d.memory_stats() or {}).get("peak_bytes_in_use") for d in self.devices]
        known = [int(p) for p in peaks if p is not None]
        return max(known) if known else None

    def describe(self) -> dict[str, Any]:
        facts = {"vendor": self.request.vendor, "device": self.platform,
                 "device_kind": self.kind, "local_devices": len(self.devices),
                 "jax_version": jax.__version__}
        if self.platform == "cpu" and jax.process_count() > 1:
            facts["cpu_collectives"] = jax.config.values["jax_cpu_collectives_implementation"]
        return facts


@dataclass(frozen=True)
class Coordinator:
    """``jax.distributed.initialize``'s arguments: process 0's HOST:PORT and this process."""

    address: str
    num_processes: int
    process_id: int
    local_rank: int = 0
    local_processes: int = 1     # processes on this host

    def local_device_ids(self, platform: str) -> Optional[list[int]]:
        """The one accelerator of this process where several processes share a host (nvidia
        x1x8: GPU ``local_rank``); None (every local device) otherwise. The CPU backend has
        one device per process whatever the host."""
        if platform == "cpu" or self.local_processes == 1:
            return None
        return [self.local_rank]


def open_jax_device(environ: Mapping[str, str] | None = None,
                    coordinator: Coordinator | None = None) -> JaxDevice:
    """Pin JAX to the vendor's platform, join the other processes (``coordinator``: several
    processes, one global device list) and return this process's devices; ``DeviceError``
    when this JAX build or host cannot see them. Call before any JAX computation."""
    request = DeviceRequest.from_env(os.environ if environ is None else environ)
    platform = JAX_PLATFORMS.get(request.kind.name)
    if platform is None:
        raise request.missing(f"JAX has no build for this device kind (JAX runs on "
                              f"{', '.join(JAX_PLATFORMS)})")
    jax.config.update("jax_platforms", platform)
    if coordinator is not None:
        join(coordinator, platform)
    try:
        devices = tuple(jax.local_devices())
    except RuntimeError as e:
        raise request.missing(f"JAX {jax.__version__} cannot initialise its {platform!r} "
                              f"backend here ({e}): this JAX build has no {platform} support "
                              f"(jax[{platform}]) or no such device is attached") from e
    if not devices:
        raise request.missing(f"JAX {jax.__version__} lists no {platform} device")
    return JaxDevice(request, platform, devices)


def join(coordinator: Coordinator, platform: str) -> None:
    """``jax.distributed.initialize``: process 0 serves the coordinator, every process joins."""
    if platform == "cpu":
        jax.config.update("jax_cpu_collectives_implementation", CPU_COLLECTIVES)
    jax.distributed.initialize(coordinator.address, coordinator.num_processes,
                               coordinator.process_id,
                               local_device_ids=coordinator.local_device_ids(platform))
    if platform == "cpu":
        use_gloo_towards(coordinator.address.rsplit(":", 1)[0], os.environ)


def use_gloo_towards(coordinator_host: str, environ: Mapping[str, str]) -> None:
    """Make the CPU backend's gloo collectives bind the interface GLOO_SOCKET_IFNAME names,
    else this host's address towards the coordinator's host (jax.distributed has joined;
    no backend is open yet). jax 0.10.2 (the images' pin) has no public setting for it: this
    is xla_bridge's own CPU factory given the collectives it would have made, addressed."""
    from jax._src import distributed, xla_bridge
    from jax._src.lib import _jax

    interface = environ.get("GLOO_SOCKET_IFNAME") or None
    address = None if interface else local_address_towards(coordinator_host)
    collectives = _jax.make_gloo_tcp_collectives(distributed.global_state.client,
                                                 hostname=address, interface=interface)
    xla_bridge.register_backend_factory(
        "cpu", functools.partial(xla_bridge.make_cpu_client, collectives=collectives),
        priority=0, fail_quietly=False)


def local_address_towards(host: str) -> str:
    """The address the kernel would send from to reach ``host`` (no packet is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.connect((socket.gethostbyname(host), 9))
        return str(s.getsockname()[0])
