"""What a vendor plugin says: container device options, visible-devices variable,
how to read one accelerator sample, and its chips' spec sheets.

Vendor modules run inside containers too (the monitor sidecar imports them), so
they import only the standard library at module level; a vendor library such as
``pynvml`` is imported inside the sampler.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Protocol, runtime_checkable

from chipperf_runtime.vendors._chiplayout import bare_chip


@dataclass(frozen=True)
class ChipSpec:
    """One chip's spec sheet. ``peak_flops`` maps dtype -> dense FLOP/s (OP/s for int8) per
    chip of the unit a GEMM in that dtype runs on: the matrix (tensor-core) unit where the chip
    has one for the dtype (FP64 on A100/H100/H200: the FP64 tensor cores), else the vector
    unit. ``vector_flops`` keeps the vector (non-matrix) figures apart where they differ.

    "Chip" is what the framework sees as one device (one rank). A number the vendor does
    not publish is left out (the dtype missing): never estimated; ``missing`` says why, per
    dtype, where the reason is known (e.g. the chip has no FP8 unit)."""

    name: str
    peak_flops: Mapping[str, float] = field(default_factory=dict)
    memory_bytes: Optional[int] = None
    tdp_watts: Optional[float] = None
    source: str = ""  # where the numbers come from (datasheet name / URL)
    memory_bandwidth: Optional[float] = None  # bytes/s, peak, from the same sheet
    # The most chips one node of the vendor's standard server holds (plan refuses a larger
    # nproc); None where chipperf does not know it: then nproc is not checked at plan time.
    devices_per_node: Optional[int] = None
    vector_flops: Mapping[str, float] = field(default_factory=dict)
    missing: Mapping[str, str] = field(default_factory=dict)   # dtype -> why no peak

    def why_missing(self, dtype: str) -> str:
        """Why the sheet has no ``dtype`` peak: its reason, or what it has instead."""
        have = ", ".join(sorted(self.peak_flops)) or "none"
        why = self.missing.get(dtype.lower())
        return f"{why} (has {have})" if why else f"not on the sheet (has {have})"


@dataclass(frozen=True)
class HardwareValidation:
    """Whether chipperf's path for a vendor (its image, device layer, sampler, a training
    case) has run on that vendor's real hardware here, and what is known about it.

    ``chips``: the chips it ran on; None means every chip of the vendor (the cpu vendor,
    whose "chips" are labels for whatever CPU the host has). Set ``ran`` only with a note
    saying where and when, and the vendor README recording what happened."""

    ran: bool = False
    note: str = "not yet run on this vendor's hardware by chipperf: spec sheet, plan and code only"
    chips: Optional[tuple[str, ...]] = None

    def covers(self, chip: Optional[str]) -> bool:
        """True when this vendor path ran on real hardware with ``chip`` (any chip: None)."""
        if not self.ran:
            return False
        if self.chips is None or chip is None:
            return True
        return chip.lower() in {c.lower() for c in self.chips}


class SamplerUnavailable(Exception):
    """The accelerator telemetry source is not available on this node (raised at setup)."""


class SampleError(Exception):
    """One read failed (a device fell off the bus, the tool printed something unparseable).

    The monitor records it, rate-limited, and keeps sampling."""


@runtime_checkable
class AcceleratorSampler(Protocol):
    """What a vendor's sampler factory returns; see docs/adding-a-vendor.md.

    The factory (``Vendor.accelerator_sampler``) does the expensive setup once (load
    the library, enumerate devices) and raises ``SamplerUnavailable`` with the reason
    when the source is missing. Then the monitor loop calls ``read()`` once per tick.
    """

    def info(self) -> dict[str, Any]:
        """Once, for sys_info.json: ``model``, ``count``, ``driver_version``,
        ``runtime_version``, ``devices`` (list of dicts) and ``unsupported``
        ({metric key: reason}) for metrics this hardware cannot report."""
        ...

    def read(self) -> list[dict[str, Any]]:
        """One sample: a dict per device with ``index`` and the keys it can report,
        each with its unit in the name (``util_pct``, ``mem_used_bytes``,
        ``mem_total_bytes``, ``power_w``, ``energy_mj``, ``temp_c``,
        ``sm_clock_mhz``). A metric it cannot read is left out, never 0.
        Raises ``SampleError`` when this read failed."""
        ...

    def close(self) -> None:
        """Release the library (called once when the monitor stops)."""
        ...


# A pure parser of a vendor tool's output: text -> (per-device dicts, problems).
SmiParser = Callable[[str], "tuple[list[dict[str, Any]], list[str]]"]


class SmiToolSampler:
    """An ``AcceleratorSampler`` for vendors whose telemetry is a command-line tool.

    ``argv`` is run once per ``read()`` (a process per sample: prefer a library when
    the vendor has one) and its stdout goes to ``parse``, a pure function
    ``text -> (devices, problems)``. Any problem fails the read with ``SampleError``.
    """

    def __init__(self, argv: Sequence[str], parse: SmiParser,
                 info: Mapping[str, Any] | None = None, timeout_s: float = 10.0):
        if not argv or shutil.which(argv[0]) is None:
            raise SamplerUnavailable(f"{argv[0] if argv else '(no tool)'} not found on PATH")
        self._argv = list(argv)
        self._parse = parse
        self._info = dict(info or {})
        self._timeout_s = timeout_s
        self.read()  # fail at setup, not on every tick, when the tool cannot answer

    def info(self) -> dict[str, Any]:
        return dict(self._info)

    def read(self) -> list[dict[str, Any]]:
        try:
            done = subprocess.run(self._argv, check=False, capture_output=True, text=True,
                                  timeout=self._timeout_s, stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired) as e:
            raise SampleError(f"{self._argv[0]}: {e}") from e
        if done.returncode != 0:
            raise SampleError(f"{self._argv[0]} exited {done.returncode}: "
                              f"{(done.stderr or done.stdout).strip()[-300:]}")
        devices, problems = self._parse(done.stdout)
        if problems:
            raise SampleError(f"{self._argv[0]} output: " + "; ".join(problems[:5]))
        return devices

    def close(self) -> None:
        pass


@dataclass(frozen=True)
class LibraryPath:
    """How a vendor runs the cases of one Hugging Face library (case.yaml's ``library``):
    through a package of its own that its image must install (intel_gaudi: transformers and
    diffusers through Optimum Habana). The plan refuses an image folder without it
    (chipperf/plan/libraries.py); the case says the same when the module does not import."""

    package: str                      # the product's name, for messages ("Optimum Habana")
    module: str                       # what the case imports ("optimum.habana")
    distributions: tuple[str, ...]    # what installs it (pip names)
    framework: str                    # the image folder (case key framework) that installs it


@dataclass(frozen=True)
class Vendor:
    name: str
    visible_devices_env: Optional[str]
    chips: Mapping[str, ChipSpec]
    # The case container's device access for nproc ranks, as `docker run` flags (``--gpus all
    # --ipc=host``...): data the engine parses (chipperf.containers.options), so that this
    # module needs neither the engine nor the docker SDK inside a container.
    container_options: Callable[[int], str] = lambda nproc: ""
    # What the monitor sidecar needs for the accelerator sampler (its own, not the case's
    # options), as flags too; None: the device access of ``container_options`` and nothing else.
    monitor_options: Optional[Callable[[int], str]] = None
    # Factory of the accelerator sampler (None: the vendor has no accelerator telemetry).
    # Called once by the monitor; raises SamplerUnavailable when the source is missing.
    accelerator_sampler: Optional[Callable[[], AcceleratorSampler]] = None
    # Value of the visible-devices variable for nproc processes on a node.
    visible_devices: Callable[[int], str] = lambda nproc: ",".join(str(i) for i in range(nproc))
    # The device layer's kind (a key of chipperf_runtime.device.DEVICE_KINDS), set as CHIPPERF_DEVICE
    # in the launch environment; plug-in and collective backend only where they differ from
    # the kind's defaults (e.g. Kunlunxin's torch_xmlir on xpu).
    device: str = "cpu"
    device_plugin: Optional[str] = None
    dist_backend: Optional[str] = None
    # torch_xla's PJRT device on this vendor's chips (PJRT_DEVICE: "CPU", "TPU"), for a
    # pytorch_xla_<version> framework (device kind xla); None: torch_xla has no path here.
    pjrt_device: Optional[str] = None
    # Honest status: has this path run on the vendor's real hardware here? (plan, cases, report)
    validated_on_hardware: HardwareValidation = HardwareValidation()
    # The spec sheet a case key's chip stands for, where a chip name carries more than the
    # chip (tpu: a slice, "v5p-16" -> "v5p"); unknown names come back unchanged.
    sheet_name: Callable[[str], str] = lambda chip: chip
    # What this vendor cannot run with a case key, said at plan time: (chip, framework family
    # ("pytorch_xla" for a pytorch_xla_<version> framework), nnodes, nproc) -> problems
    # ('what is wrong: how to fix'); [] for every key by default.
    plan_problems: Callable[[str, str, int, int], list[str]] = lambda chip, family, nnodes, nproc: []
    # A vendor whose chip no framework reaches (no PyTorch device): the one inference engine
    # that drives it through the vendor's SDK (zixiao: zxrt). Its ``device`` is then the host
    # CPU, where that engine's case keeps PyTorch's part; any other engine is refused by name.
    only_engine: Optional[str] = None
    # Hugging Face library -> how this vendor runs its cases (LibraryPath); {}: as on any device
    library_paths: Mapping[str, LibraryPath] = field(default_factory=dict)

    def chip(self, name: str) -> Optional[ChipSpec]:
        """The spec sheet of a case key's chip; a FlagPerf layout prefix (``TP2PP4SH1SP1``,
        vendors/_chiplayout.py) is not part of the chip's name."""
        name = self.sheet_name(bare_chip(name))
        return self.chips.get(name) or self.chips.get(name.lower()) or next(
            (c for k, c in self.chips.items() if k.lower() == name.lower()), None)
