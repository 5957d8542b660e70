"""Vendor ``intel_gaudi``: Intel Gaudi HPUs through habana_frameworks (device ``hpu``,
backend hccl).

Container options as Intel Gaudi's Docker guide writes them: ``--runtime=habana``
(Habana's container runtime maps the devices named by ``HABANA_VISIBLE_DEVICES``),
``--cap-add=sys_nice``, ``--ipc=host``. Telemetry: ``hl-smi -Q <fields> -f csv,noheader``.
"""

from __future__ import annotations

from typing import Any

from chipperf_runtime.vendors import _smi
from chipperf_runtime.vendors.base import (
    ChipSpec,
    HardwareValidation,
    LibraryPath,
    SmiToolSampler,
    Vendor,
)

_TF = 1e12

CHIPS = {
    # Intel Gaudi 3 AI Accelerator white paper (HL-325L OAM): 1835 TFLOPS FP8 and BF16
    # (matrix engines), 128 GB HBM2e, 3.7 TB/s, 900 W.
    "Gaudi3": ChipSpec("Gaudi3", {"bf16": 1835 * _TF, "fp8": 1835 * _TF},
                       memory_bytes=128 * 10**9, tdp_watts=900, memory_bandwidth=3.7e12,
                       source="Intel Gaudi 3 AI Accelerator white paper, HL-325L OAM"),
    # Intel Gaudi 2 (HL-225H) product brief: 96 GB HBM2E, 2.45 TB/s, 600 W. Intel publishes
    # no dense peak FLOP/s figure for Gaudi 2 in it: not set.
    "Gaudi2": ChipSpec("Gaudi2", memory_bytes=96 * 10**9, tdp_watts=600, memory_bandwidth=2.45e12,
                       source="Intel Gaudi 2 (HL-225H) product brief; no peak FLOP/s published"),
}

# The query and the sample key each field fills (None: kept for info only).
QUERY = (("index", None), ("uuid", None), ("name", None), ("driver_version", None),
         ("memory.total", "mem_total_bytes"), ("memory.used", "mem_used_bytes"),
         ("memory.free", None), ("power.draw", "power_w"), ("power.max", None),
         ("temperature.aip", "temp_c"), ("utilization.aip", "util_pct"))


# The transformers and diffusers cases run through Optimum Habana (GaudiTrainer's lazy mode
# and HPU graphs, GaudiStableDiffusionPipeline), which the pytorch_optimum_habana images
# install (optimum-habana 1.15.0, for Intel Gaudi software 1.19.0).
OPTIMUM_HABANA = LibraryPath(package="Optimum Habana", module="optimum.habana",
                             distributions=("optimum-habana",), framework="pytorch_optimum_habana")


def optimum_habana_missing(error: object, image: str) -> str:
    """The one message of a case whose image lacks optimum-habana: what, and the image
    folder (``image``) that installs it."""
    return ("intel_gaudi: optimum-habana is not installed in this image "
            f"(import optimum.habana: {error}): the Gaudi path of the transformers and diffusers "
            f"cases needs it: run the case with the framework {OPTIMUM_HABANA.framework} (its "
            f"image, {image}, installs it), or pip install the optimum-habana release for the "
            "image's Gaudi software")


def _container_options(nproc: int) -> str:
    return ("--runtime=habana --cap-add=sys_nice --ipc=host "
                          "--ulimit memlock=-1 --ulimit stack=67108864")


def parse_hl_smi_csv(text: str) -> tuple[list[dict[str, Any]], list[str]]:
    """``hl-smi -Q <QUERY> -f csv,noheader`` -> per HPU (memory MiB -> bytes)."""
    devices: list[dict[str, Any]] = []
    problems: list[str] = []
    for line in filter(str.strip, text.splitlines()):
        fields = [f.strip() for f in line.split(",")]
        if len(fields) != len(QUERY):
            problems.append(f"hl-smi line has {len(fields)} fields, queried {len(QUERY)}: {line!r}")
            continue
        try:
            devices.append(_hpu(fields))
        except ValueError as e:
            problems.append(f"hl-smi line {line!r}: {e}")
    return devices, _smi.no_devices(devices, problems, "hl-smi")


def _hpu(fields: list[str]) -> dict[str, Any]:
    sample: dict[str, Any] = {"index": int(fields[0])}
    for (name, key), value in zip(QUERY, fields):
        if key is None or value.upper().startswith("N/A"):
            continue
        number = _smi.number(value, name)
        sample[key] = int(number * 2**20) if key.startswith("mem_") else number
    return sample


def _sampler() -> SmiToolSampler:
    fields = ",".join(name for name, _ in QUERY)
    return SmiToolSampler(["hl-smi", "-Q", fields, "-f", "csv,noheader"], parse_hl_smi_csv,
                          {"tool": "hl-smi"})


VENDOR = Vendor(
    name="intel_gaudi",
    visible_devices_env="HABANA_VISIBLE_DEVICES",
    chips=CHIPS,
    container_options=_container_options,
    accelerator_sampler=_sampler,
    device="hpu",
    validated_on_hardware=HardwareValidation(note=(
        "not yet run on this vendor's hardware by chipperf: spec sheet, plan and code only; its "
        "images (pytorch_2.13, pytorch_optimum_habana: Optimum Habana for the transformers "
        "and diffusers cases) cannot be built or run here: no Gaudi and no access to "
        "vault.habana.ai")),
    library_paths={"transformers": OPTIMUM_HABANA, "diffusers": OPTIMUM_HABANA},
)
