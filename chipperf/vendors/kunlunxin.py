"""Vendor ``kunlunxin``: Kunlunxin XPUs through its PyTorch plug-in torch_xmlir (device
``xpu``, plug-in named here since Intel's xpu needs none; backend ``xccl``, the name
FlagPerf's kunlunxin configs give ``dist_backend``).

Container options as FlagPerf's test_conf.py and its kunlunxin CI write them:
``--device=/dev/xpu0 ... --device=/dev/xpuN --device=/dev/xpuctrl`` (here one device
node per process of the node). Visible devices: ``XPU_VISIBLE_DEVICES`` (FlagPerf).

Telemetry: not yet. ``xpu-smi -m`` prints one machine-format line per XPU (FlagPerf's
kunlunxin monitor reads its fields by position), but no public sample of that output
was found to test a parser against, so the sampler reports itself unavailable with that
reason instead of guessing at the format.
"""

from __future__ import annotations

from typing import Any, Mapping

from chipperf.vendors.base import ChipSpec, SamplerUnavailable, Vendor

CHIPS = {
    # Kunlunxin publishes no R300 / P800 datasheet with peak FLOP/s, memory, bandwidth or
    # TDP that we could find: nothing is set.
    "R300": ChipSpec("R300", source="no public Kunlunxin R300 datasheet: numbers not set"),
}


def _container_options(nproc: int) -> Mapping[str, Any]:
    from chipperf.containers.options import vendor_options

    devices = " ".join(f"--device=/dev/xpu{i}" for i in range(nproc))
    return vendor_options(f"{devices} --device=/dev/xpuctrl --ipc=host "
                          "--ulimit memlock=-1 --ulimit stack=67108864")


def _sampler() -> Any:
    raise SamplerUnavailable("kunlunxin: no xpu-smi parser yet (no public sample of "
                             "`xpu-smi -m` output to validate one against)")


VENDOR = Vendor(
    name="kunlunxin",
    visible_devices_env="XPU_VISIBLE_DEVICES",
    chips=CHIPS,
    container_options=_container_options,
    accelerator_sampler=_sampler,
    device="xpu",
    device_plugin="torch_xmlir",
    dist_backend="xccl",
)
