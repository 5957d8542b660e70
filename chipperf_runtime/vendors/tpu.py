"""Vendor ``tpu``: Google Cloud TPUs (v4, v5e, v5p, v6e, v7) through the TPU runtime (libtpu).

One process per host drives every chip of its host (TensorFlow's ``TPUStrategy``; JAX's own
model, one process per host joined by ``jax.distributed``), so a case runs with nproc=1 and
nnodes = the slice's hosts; the case key's chip may name the slice (``v5p-16``, ``v6e-2x4``:
``_tpu_slices``). Three paths: TensorFlow 2, JAX (``jax[tpu]``: resnet50/jax) and PyTorch through
torch_xla 2.9 on PJRT (framework ``pytorch_xla_2.9``: device kind xla, ``PJRT_DEVICE=TPU``;
eager PyTorch is refused at plan time, and chipperf's torch 2.13 has no torch_xla). Container access
as Google's "Run TPU workloads in a Docker container" writes it (``--privileged --net=host``).
Telemetry from libtpu's runtime metrics through the ``tpu-info`` library: HBM used/total and
TensorCore duty cycle per device; libtpu exposes no power, temperature or clock, so those are
``unsupported`` with that reason.

None of it has run on a TPU: chipperf's machines have none (``validated_on_hardware``).
"""

from __future__ import annotations

from typing import Any

from chipperf_runtime.vendors._tpu_slices import TopologyError, parse_slice
from chipperf_runtime.vendors.base import (
    ChipSpec,
    HardwareValidation,
    SampleError,
    SamplerUnavailable,
    Vendor,
)

_T = 1e12
_G = 1e9
_GIB = 2**30
_DOCS = "https://cloud.google.com/tpu/docs/"
_NO_FP32 = "Cloud TPU pages publish no fp32 peak"

# Per chip, from each generation's Cloud TPU system-architecture page (read 2026-12-02).
CHIPS = {
    "v4": ChipSpec("v4", {"bf16": 275 * _T, "int8": 275 * _T}, memory_bytes=32 * _GIB,
                   memory_bandwidth=1200 * _G, source=_DOCS + "v4 (275 TFLOPS bf16 or int8, "
                   "32 GiB HBM2 at 1200 GBps; measured power 90/170/192 W min/mean/max, no TDP)",
                   missing={"fp8": "the v4 page gives no fp8 figure", "fp32": _NO_FP32}),
    "v5e": ChipSpec("v5e", {"bf16": 197 * _T, "int8": 393 * _T}, memory_bytes=16 * _GIB,
                    memory_bandwidth=819 * _G, source=_DOCS + "v5e (197 TFLOPS bf16, 393 int8, "
                    "HBM2 16 GB at 819 GBps; tpu-info's chip table: 16 GiB)",
                    missing={"fp8": "the v5e page gives no fp8 figure", "fp32": _NO_FP32}),
    "v5p": ChipSpec("v5p", {"bf16": 459 * _T, "fp8": 459 * _T}, memory_bytes=95 * _GIB,
                    memory_bandwidth=2765 * _G, source=_DOCS + "v5p (459 TFLOPS bf16 and fp8, "
                    "95 GiB HBM2e at 2765 GBps)",
                    missing={"int8": "the v5p page gives bf16 and fp8 only", "fp32": _NO_FP32}),
    "v6e": ChipSpec("v6e", {"bf16": 918 * _T, "int8": 1836 * _T}, memory_bytes=32 * _GIB,
                    memory_bandwidth=1638 * _G, source=_DOCS + "v6e (918 TFLOPS bf16, 1836 TOPS "
                    "int8) and tpu7x's comparison table (32 GiB HBM at 1638 GBps; the v6e page "
                    "says 1640 GBps)",
                    missing={"fp8": "the v6e page gives no fp8 figure", "fp32": _NO_FP32}),
    # TPU7x (Ironwood): two chiplets; frameworks see two devices per chip (tpu-info's chip
    # table: devices_per_chip 2), each with half of these figures.
    "v7": ChipSpec("v7", {"bf16": 2307 * _T, "fp8": 4614 * _T}, memory_bytes=192 * _GIB,
                   memory_bandwidth=7380 * _G, source=_DOCS + "tpu7x (TPU7x Ironwood: 2307 TFLOPS "
                   "bf16, 4614 fp8, 192 GiB HBM at 7380 GBps per chip of two devices)",
                   missing={"int8": "the tpu7x page gives bf16 and fp8 only", "fp32": _NO_FP32}),
}

# Bidirectional inter-chip interconnect (ICI) bandwidth per chip, bytes/s: v5e from its page
# (400 GBps), v5p, v6e and v7 from the tpu7x page's table (1200, 800, 1200 GBps). The v4 page
# gives pod-level figures only (all-reduce 1.1 PB/s, bisection 24 TB/s): not here.
ICI_BIDIRECTIONAL = {"v5e": 400 * _G, "v5p": 1200 * _G, "v6e": 800 * _G, "v7": 1200 * _G}

# "pytorch_xla": the family the plan names for a pytorch_xla_<version> framework
FAMILIES = ("tensorflow2", "jax", "pytorch_xla")
TORCH_XLA = "pytorch_xla_2.9"     # the image folder of PyTorch on TPUs (docker_image/)
_REFUSED = {
    "pytorch": f"PyTorch reaches TPUs only through torch_xla (PJRT), and this is eager PyTorch: "
               f"use framework {TORCH_XLA!r} (torch 2.9.0 with torch_xla 2.9.0, the newest "
               f"torch_xla; chipperf's eager torch 2.13 has none)",
    "deepspeed": "DeepSpeed has no TPU accelerator",
    "paddle": "PaddlePaddle has no TPU build",
}
# libtpu's runtime metrics (tpu-info) hold no power, energy, temperature or clock figures.
_NOT_IN_LIBTPU = ("power_w", "energy_mj", "temp_c", "sm_clock_mhz")


def sheet_name(chip: str) -> str:
    """The spec sheet a case key's chip stands for: ``v5p-16`` -> ``v5p``; unparsed: itself."""
    try:
        return parse_slice(chip).generation.name
    except TopologyError:
        return chip


def plan_problems(chip: str, family: str, nnodes: int, nproc: int) -> list[str]:
    """What the tpu vendor cannot run with this case key (said at plan time)."""
    if family not in FAMILIES:
        why = _REFUSED.get(family, f"no {family} path exists for TPUs in chipperf")
        return [f"vendor 'tpu' runs {', '.join(FAMILIES)} cases only: {why}: use a "
                f"{' or '.join(FAMILIES)} case"]
    try:
        tpu_slice = parse_slice(chip)
    except TopologyError as e:
        return [f"{e}"]
    problems = []
    if tpu_slice.generation.name == "v7" and family == "tensorflow2":
        problems.append("TensorFlow is not supported on TPU7x (v7; " + _DOCS + "tpu7x): "
                        "use a jax case there, or v4, v5e, v5p or v6e")
    if nproc != 1:
        driver = {"tensorflow2": "TPUStrategy", "jax": "JAX, one process per host"}.get(
            family, "torch_xla, one process per host")
        problems.append(f"nproc={nproc}: one process per host drives all of its TPU chips "
                        f"({driver}): use nproc=1")
    if tpu_slice.shape or tpu_slice.chips > 1:
        if nnodes != tpu_slice.hosts:
            problems.append(f"TPU slice {chip!r} is {tpu_slice.chips} chips on "
                            f"{tpu_slice.hosts} host(s), but nnodes={nnodes}: use "
                            f"nnodes={tpu_slice.hosts}")
    return problems


def _container_options(nproc: int) -> str:
    return "--privileged --net=host"


def usage_samples(usages: list[Any]) -> list[dict[str, Any]]:
    """tpu-info's ``Usage`` records (device_id, memory_usage, total_memory, duty_cycle_pct)
    -> monitor samples."""
    return [{"index": int(u.device_id), "mem_used_bytes": int(u.memory_usage),
             "mem_total_bytes": int(u.total_memory), "util_pct": float(u.duty_cycle_pct)}
            for u in usages]


class TpuInfoSampler:
    """The host's TPU devices through the ``tpu-info`` library (libtpu's metrics server,
    localhost:8431, which answers only while a TPU program runs: a read before that fails
    with ``SampleError`` and the monitor tries again on the next tick)."""

    def __init__(self) -> None:
        try:
            from tpu_info import device, metrics
        except ImportError as e:
            raise SamplerUnavailable(f"tpu-info is not importable (pip install tpu-info; it "
                                     f"reads libtpu's runtime metrics): {e}") from e
        chip, count = device.get_local_chips()
        if chip is None or count == 0:
            raise SamplerUnavailable("no Google TPU on this node (tpu-info finds no PCI device "
                                     "of vendor 0x1ae0 under /sys/bus/pci/devices)")
        self._chip, self._count, self._metrics = chip, count, metrics

    def info(self) -> dict[str, Any]:
        return {"model": str(self._chip), "count": self._count, "tool": "tpu-info",
                "unsupported": {k: "libtpu's runtime metrics do not report it"
                                for k in _NOT_IN_LIBTPU}}

    def read(self) -> list[dict[str, Any]]:
        try:
            return usage_samples(self._metrics.get_chip_usage(self._chip))
        except Exception as e:   # grpc errors: the metrics server is not (yet) serving
            raise SampleError(f"libtpu metrics (localhost:8431): {e}") from e

    def close(self) -> None:
        pass


VENDOR = Vendor(
    name="tpu",
    visible_devices_env=None,        # the TPU runtime takes every chip of the host
    chips=CHIPS,
    container_options=_container_options,
    accelerator_sampler=TpuInfoSampler,
    device="tpu",
    pjrt_device="TPU",     # pytorch_xla_<version>: torch_xla on the host's TPU chips
    sheet_name=sheet_name,
    plan_problems=plan_problems,
    validated_on_hardware=HardwareValidation(
        ran=False, note="no TPU has been available: spec sheets, plan checks and the XLA path "
        "on the CPU backend only"),
)
