"""Vendor ``mthreads``: Moore Threads GPUs through torch_musa (device ``musa``, backend mccl).

Container options as FlagPerf's test_conf.py writes them for mthreads:
``--env MTHREADS_VISIBLE_DEVICES=all`` (Moore Threads' container runtime, set as the
Docker default runtime, maps the GPUs). Visible devices inside: ``MUSA_VISIBLE_DEVICES``.

Telemetry: not yet. ``mthreads-gmi -q`` is nvidia-smi-like text, but no public sample of
its output was found to test a parser against, so the sampler reports itself
unavailable with that reason instead of guessing at the format.
"""

from __future__ import annotations

from typing import Any, Mapping

from chipperf.vendors.base import ChipSpec, SamplerUnavailable, Vendor

_TF = 1e12

CHIPS = {
    # Moore Threads MTT S4000 product page: FP32 25 TFLOPS, TF32 50 TFLOPS, FP16/BF16
    # 100 TFLOPS, 48 GB GDDR6, 768 GB/s, 450 W.
    "S4000": ChipSpec("S4000", {"fp32": 25 * _TF, "tf32": 50 * _TF, "fp16": 100 * _TF,
                                "bf16": 100 * _TF},
                      memory_bytes=48 * 10**9, tdp_watts=450, memory_bandwidth=768e9,
                      source="Moore Threads MTT S4000 product page"),
}


def _container_options(nproc: int) -> Mapping[str, Any]:
    from chipperf.containers.options import vendor_options

    return vendor_options("--env MTHREADS_VISIBLE_DEVICES=all --ipc=host "
                          "--ulimit memlock=-1 --ulimit stack=67108864")


def _sampler() -> Any:
    raise SamplerUnavailable("mthreads: no mthreads-gmi parser yet (no public sample of "
                             "its output to validate one against)")


VENDOR = Vendor(
    name="mthreads",
    visible_devices_env="MUSA_VISIBLE_DEVICES",
    chips=CHIPS,
    container_options=_container_options,
    accelerator_sampler=_sampler,
    device="musa",
)
