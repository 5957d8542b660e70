"""Each node's two containers, planned: the case container and its monitor sidecar.

Pure, like the rest of the plan: the vendor's options and ACCE_CONTAINER_OPT are parsed
here once, split into the typed parts of a ``ContainerSpec`` (environment, mounts,
devices, shm size) and the remaining docker options. The sidecar gets its own spec: the
work dir, the host's power sensors where the host has them, and the device access the
vendor's accelerator sampler needs; none of the case's options.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from chipperf.containers.options import parse_cli_options, vendor_options
from chipperf.containers.spec import ContainerSpec, Device, Mount
from chipperf_runtime.monitors.command import MonitorCommand
from chipperf_runtime.vendors import get_vendor, vendor_names

POWERCAP, IPMI = "/sys/devices/virtual/powercap", "/dev/ipmi0"
POWERCAP_INSIDE = "/host/powercap"
MONITOR_SHM = "64m"


@dataclass(frozen=True)
class SpecParts:
    """Docker options split into what a ContainerSpec types and what it passes on."""
    env: Mapping[str, str]
    mounts: tuple[Mount, ...]
    devices: tuple[Device, ...]
    shm_size: str | None
    options: Mapping[str, Any]


def split_options(*layers: Mapping[str, Any]) -> SpecParts:
    """Option layers (vendor first, the user's last) merged and split: variables, binds and
    devices merge by name (a later layer's wins); any other option a later layer gives
    replaces the earlier one whole (``--gpus device=0`` replaces the vendor's ``--gpus all``)."""
    env: dict[str, str] = {}
    binds: dict[str, Mount] = {}
    devices: dict[str, Device] = {}
    rest: dict[str, Any] = {}
    shm: str | None = None
    for layer in layers:
        for key, value in layer.items():
            if key == "environment":
                env.update(value)
            elif key == "volumes_extra":
                binds.update({src: Mount(src, b["bind"], b.get("mode", "rw"))
                              for src, b in value.items()})
            elif key == "devices":
                devices.update({d.path: d for d in map(_device, value)})
            elif key == "shm_size":
                shm = value
            else:
                rest[key] = value
    return SpecParts(env, tuple(binds.values()), tuple(devices.values()), shm, rest)


def _device(text: str) -> Device:
    path, _, more = text.partition(":")
    inside, _, perms = more.partition(":")
    return Device(path, inside, perms or "rwm")


def case_options(vendor: str, nproc: int, container_opt: str) -> SpecParts:
    """The vendor's options for ``nproc`` ranks, then the user's (checked by plan.check)."""
    user, _ = parse_cli_options(container_opt)
    own = vendor_options(get_vendor(vendor).container_options(nproc)) if vendor in vendor_names() else {}
    return split_options(own, user)


def monitor_options(vendor: str, nproc: int) -> SpecParts:
    """The sidecar's: host power sensors (where present) and the vendor sampler's access."""
    sensors = SpecParts({"CHIPPERF_POWERCAP_ROOT": POWERCAP_INSIDE},
                        (Mount(POWERCAP, POWERCAP_INSIDE, "ro", if_present=True),),
                        (Device(IPMI, if_present=True),), None, {})
    sampler = sampler_options(vendor, nproc) if vendor in vendor_names() else {}
    parts = split_options(sampler)
    return SpecParts({**sensors.env, **parts.env}, sensors.mounts + parts.mounts,
                     sensors.devices + parts.devices, None, parts.options)


@dataclass(frozen=True)
class NodeContainers:
    case: ContainerSpec
    monitor: ContainerSpec


def node_containers(*, name: str, image: str, run_id: str, work_dir: str, data_dir: str,
                    output_dir: str, command: tuple[str, ...], env: Mapping[str, str],
                    shm_size: str, vendor: str, interval_s: float, case: SpecParts,
                    monitor: SpecParts) -> NodeContainers:
    """The case container (its ranks under rankexec) and the monitor sidecar of one node."""
    launch = ("python3", "-m", "chipperf_runtime.launch.rankexec", f"{output_dir}/launcher.log",
              *command)
    # Options' variables sit under the plan's own; --shm-size in the options is the more
    # specific setting and wins over the test config's SHM_SIZE.
    case_spec = ContainerSpec(
        name, image, launch, {**case.env, **env},
        (Mount(work_dir, work_dir, "rw"), Mount(data_dir, data_dir, "ro"), *case.mounts),
        run_id, case.shm_size or shm_size, case.devices, case.options)
    watch = MonitorCommand(out=output_dir, interval_s=interval_s, vendor=vendor).to_argv()
    monitor_env = {"PYTHONPATH": env["PYTHONPATH"], "PYTHONUNBUFFERED": "1", **monitor.env}
    monitor_spec = ContainerSpec(
        f"{name}-monitor", image, watch, monitor_env,
        (Mount(work_dir, work_dir, "rw"), *monitor.mounts), run_id, MONITOR_SHM,
        monitor.devices, monitor.options, pid_host=True)
    return NodeContainers(case_spec, monitor_spec)


# The device access a vendor's smi tool or library needs to see the accelerators: device
# nodes, the engine's device requests, driver mounts, device groups. Not ipc, ulimits,
# privileges or the user's own options (those are the case container's).
SAMPLER_KEYS = ("devices", "device_requests", "volumes_extra", "group_add")


def sampler_options(vendor: str, nproc: int) -> Mapping[str, Any]:
    """The docker options of the monitor sidecar's accelerator sampler: the vendor's own
    ``monitor_options``, else the device access of its case options."""
    v = get_vendor(vendor)
    if v.monitor_options is not None:
        return vendor_options(v.monitor_options(nproc))
    return {k: val for k, val in vendor_options(v.container_options(nproc)).items() if k in SAMPLER_KEYS}
