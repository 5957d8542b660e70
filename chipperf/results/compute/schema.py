"""The one typed result schema: per node, per round, per case, per run.

Every renderer (JSON, CSV, Markdown, console, HTML) reads these objects and
nothing else. A figure that could not be measured is ``None`` and its field
name maps to the reason in ``reasons``; it is never zero. ``to_dict`` /
``from_dict`` round-trip through plain JSON; ``from_dict`` ignores unknown keys
and defaults missing ones, so an older or newer ``summary.json`` still loads.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from chipperf.results.compute.figures import (
    AGGREGATED,
    CORE,
    LATENCY,
    PER_ITEM,
    SPEC_ONLY,
    WHOLE,
    aggregated_for,
    figures_for,
    label,
    round_reason,
    round_value,
    suite_kind,
)
from chipperf.suites import suite_of
from chipperf_runtime.base.methods import TOOLKIT as TOOLKIT  # re-exported for the renderers

# the figures by name live in chipperf.results.compute.figures; importable from here as before
__all__ = ["AGGREGATED", "CORE", "CaseResult", "Exclusion", "Fingerprint", "LATENCY", "Latency",
           "Metric", "NodeResult", "PER_ITEM", "Reference", "RoundResult", "RunSummary",
           "SCHEMA_VERSION", "SPEC_ONLY", "SYNTHETIC_LABEL", "ShapeResult", "Stat", "Throughput",
           "WHOLE", "aggregated_for", "figures_for", "label", "round_reason", "round_value",
           "suite_kind", "to_dict"]

SCHEMA_VERSION = 4                 # 2: inference figures (latency, engine, reference)
                                   # 3: the workload fingerprint of a case
                                   # 4: base/ and operation/ method, shapes, bare reference


def to_dict(obj: Any) -> Any:
    """A dataclass tree -> JSON-ready dicts and lists (tuples become lists)."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_dict(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, Mapping):
        return {str(k): to_dict(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_dict(v) for v in obj]
    return obj


def _from_dict(cls: type, data: Any) -> Any:
    if not isinstance(data, Mapping):
        return None
    nested: Mapping[str, Any] = getattr(cls, "NESTED", {})
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.name not in data:
            continue
        value = data[f.name]
        kind = nested.get(f.name)
        if isinstance(kind, tuple):          # (Class,): a tuple of Class
            value = tuple(_from_dict(kind[0], v) for v in value or ())
        elif isinstance(kind, dict):         # {"": Class}: a mapping of str -> Class
            value = {k: _from_dict(kind[""], v) for k, v in (value or {}).items()}
        elif kind is not None:
            value = _from_dict(kind, value)
        elif isinstance(value, list):
            value = tuple(value)
        kwargs[f.name] = value
    return cls(**kwargs)


class _Schema:
    NESTED: ClassVar[Mapping[str, Any]] = {}

    def to_dict(self) -> dict[str, Any]:
        return to_dict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Any:
        return _from_dict(cls, data)


@dataclass(frozen=True)
class Throughput(_Schema):
    raw: float | None = None
    no_eval: float | None = None
    pure_compute: float | None = None
    unit: str | None = None          # "<work_unit>/s"


@dataclass(frozen=True)
class Metric(_Schema):
    name: str | None = None
    value: float | None = None
    target: float | None = None
    higher_is_better: bool | None = None


@dataclass(frozen=True)
class Latency(_Schema):
    """Single-stream query latency of an inference round, in milliseconds (FINISHED)."""

    p50: float | None = None
    p90: float | None = None
    p99: float | None = None
    mean: float | None = None
    min: float | None = None
    max: float | None = None
    count: int | None = None                      # queries measured


@dataclass(frozen=True)
class Reference(_Schema):
    """An inference engine's outputs against the fp32 eager reference (FINISHED)."""

    max_abs_diff: float | None = None
    mean_abs_diff: float | None = None
    bound: float | None = None                    # tolerance x max |reference output|
    tolerance: float | None = None
    within_bound: bool | None = None
    nonfinite_outputs: int | None = None


@dataclass(frozen=True)
class ShapeResult(_Schema):
    """operation/: one shape of an operator (FINISHED ``shapes`` and ``correctness``)."""

    shape: str = ""                               # "512x512x512" in the method's shape_form
    calls: int | None = None                      # timed calls
    latency_ms: Latency | None = None
    value: float | None = None                    # TFLOP/s (FLOP-counted ops) or GB/s
    unit: str | None = None
    passed: bool | None = None                    # within tolerance of the float64 reference
    max_abs_err: float | None = None


@dataclass(frozen=True)
class NodeResult(_Schema):
    """One node of one round; power and utilisation over the round's timed window."""

    name: str                                        # "<host>_noderank<K>"
    host: str = ""
    node_rank: int | None = None
    status: str | None = None
    reason: str = ""
    chips: int | None = None                      # devices the accelerator monitor saw
    avg_power_w: float | None = None              # whole node (pwr_monitor)
    peak_power_w: float | None = None
    energy_j: float | None = None
    cpu_power_w: float | None = None                 # CPU packages + DRAM (RAPL), window avg
    cpu_energy_j: float | None = None
    accel_avg_power_w_per_chip: float | None = None
    accel_peak_power_w_per_chip: float | None = None
    accel_energy_j: float | None = None           # all chips of the node together
    peak_accel_memory_bytes: int | None = None    # highest one chip reached
    avg_accel_util_pct: float | None = None
    avg_cpu_util_pct: float | None = None
    peak_host_memory_bytes: int | None = None
    peak_host_memory_pct: float | None = None
    coverage: Mapping[str, float] = field(default_factory=dict)  # monitor -> share of window
    samples: Mapping[str, int] = field(default_factory=dict)     # monitor -> samples in window
    reasons: Mapping[str, str] = field(default_factory=dict)
    problems: tuple[str, ...] = ()


@dataclass(frozen=True)
class RoundResult(_Schema):
    NESTED: ClassVar[Mapping[str, Any]] = {
        "throughput": Throughput, "metric": Metric, "latency_ms": Latency,
        "reference": Reference, "nodes": (NodeResult,), "shapes": (ShapeResult,)}

    number: int
    status: str | None = None
    reason: str = ""
    started_ms: int | None = None
    finished_ms: int | None = None
    train_start_ms: int | None = None             # PerfLog TRAIN_START on global rank 0
    train_end_ms: int | None = None               # PerfLog TRAIN_END on global rank 0
    e2e_time_s: float | None = None
    train_time_s: float | None = None
    train_no_eval_time_s: float | None = None
    pure_compute_time_s: float | None = None
    work_unit: str | None = None
    work_done: int | None = None
    throughput: Throughput | None = None
    converged: bool | None = None
    metric: Metric | None = None
    dtype: str | None = None
    flops_per_unit: float | None = None
    world_size: int | None = None
    peak_memory_bytes: int | None = None          # as the framework reported it (FINISHED)
    peak_accel_memory_bytes: int | None = None    # as the accelerator monitor saw it
    peak_rss_bytes: int | None = None             # training FINISHED: rank 0's peak RSS (host)
    avg_power_w_per_chip: float | None = None
    peak_power_w_per_chip: float | None = None
    avg_power_w_per_node: float | None = None
    peak_power_w_per_node: float | None = None
    energy_j: float | None = None                 # all nodes' wall power over the window
    accel_energy_j: float | None = None           # all chips over the window
    cpu_energy_j: float | None = None             # all nodes' CPU packages + DRAM (RAPL)
    work_per_joule: float | None = None           # window_work / energy_j
    work_per_joule_accel: float | None = None     # window_work / accel_energy_j
    # inference rounds (suite "inference"); absent with a reason there, None elsewhere
    engine: str | None = None
    precision: str | None = None
    latency_ms: Latency | None = None
    reference: Reference | None = None
    window_work: int | None = None                # work done inside the timed window
    serving: Mapping[str, Any] | None = None      # LLM serving figures per scenario (FINISHED)
    energy_per_item_j: float | None = None        # energy_j / window_work
    accel_energy_per_item_j: float | None = None  # accel_energy_j / window_work
    cpu_energy_per_item_j: float | None = None    # cpu_energy_j / window_work
    mfu: float | None = None
    mfu_causal: float | None = None               # mfu with a causal model's attention halved
    mfu_dtype: str | None = None
    peak_flops_per_chip: float | None = None
    attention_flops_per_unit: float | None = None  # FINISHED: attention's part of flops_per_unit
    causal_attention: bool | None = None          # FINISHED: is the model's attention causal
    # training run mode from FINISHED: "performance: W warm-up + T timed steps" or
    # "convergence"; cut: the round ended without FINISHED and its throughput comes from the
    # STEP_ENDs of the steps it completed (chipperf/results/compute/cut.py)
    run_mode: str | None = None
    cut: bool | None = None
    # late: its node files came home after the run (chipperf collect) and it was judged then
    late: bool | None = None
    data_mode: str | None = None                  # FINISHED data_mode: "real" | "predecoded" | "synthetic"
    execution: Mapping[str, Any] | None = None    # FINISHED execution: compile, attention, fused optimizer...
    mfu_measured: float | None = None             # against base/'s measured GEMM peak
    mfu_reported: float | None = None             # as a FlagPerf LLM case printed it
    share_of_peak: float | None = None            # base/ and operation/: of the spec sheet's
    reported_peak_tflops: float | None = None     # its "Theory TFLOPS" (the peak it used)
    measured_peak_flops_per_chip: float | None = None
    measured_peak_source: str | None = None       # <base run>/<case dir>/round<N>
    # base/ and operation/ (FINISHED): how the figure was measured (sizes, warm-up,
    # iterations, timing), operation/'s check against float64 and its figures per shape,
    # base/'s bare torch loop timed beside it (chipperf_runtime.base.reference), and on a
    # host CPU numpy's GEMM of the same sizes
    method: Mapping[str, Any] | None = None
    correct: bool | None = None
    shapes: tuple[ShapeResult, ...] = ()
    bare_value: float | None = None               # in the round's value unit
    bare_method: str | None = None
    bare_ratio: float | None = None               # value / bare_value
    numpy_value: float | None = None              # numpy's GEMM beside it (host CPU only)
    numpy_method: str | None = None
    numpy_ratio: float | None = None              # value / numpy_value
    chips: int | None = None
    avg_accel_util_pct: float | None = None
    avg_cpu_util_pct: float | None = None
    nodes: tuple[NodeResult, ...] = ()
    reasons: Mapping[str, str] = field(default_factory=dict)
    problems: tuple[str, ...] = ()


@dataclass(frozen=True)
class Stat(_Schema):
    """One figure over the counted rounds."""

    n: int = 0
    mean: float | None = None
    median: float | None = None
    min: float | None = None
    max: float | None = None
    stdev: float | None = None
    cv: float | None = None                       # stdev / mean (sample stdev, n - 1)
    olympic_mean: float | None = None             # mean without fastest and slowest, n >= 5
    reasons: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Exclusion(_Schema):
    round: int
    why: str


@dataclass(frozen=True)
class Fingerprint(_Schema):
    """The workload a case ran (chipperf.results.compute.fingerprint): two results are one
    comparison only when these agree. None: the result does not say."""

    case: str | None = None           # the implementation: "<harness>:<model>/<framework>"
    case_version: str | None = None   # a digest of the case's code, or the harness version
    framework: str | None = None      # the family: pytorch, paddle, tensorflow2, deepspeed...
    global_batch: int | None = None   # samples per step, all ranks together
    seq_len: int | None = None        # tokens per sample (text cases)
    image_size: int | None = None     # pixels per side (image cases)
    dataset: str | None = None        # the data set's name, or its data directory's
    precision: str | None = None      # fp32, bf16, fp16, amp...


SYNTHETIC_LABEL = "synthetic: compute only"      # every table's label of synthetic input
# what every page says of a base/ figure measured by the vendor's toolkit (CaseResult.method)
TOOLKIT_NOTE = ("measured by the vendor's toolkit (base/toolkits/, FlagPerf's TOOLKIT method), "
                "not chipperf's PyTorch benchmark: a case of its own (key <spec>-toolkit), never "
                "compared with the benchmark's figure")


@dataclass(frozen=True)
class CaseResult(_Schema):
    NESTED: ClassVar[Mapping[str, Any]] = {
        "rounds": (RoundResult,), "excluded": (Exclusion,), "aggregate": {"": Stat},
        "fingerprint": Fingerprint}

    dir_name: str
    key: str = ""                                    # model:framework:chip:nnodes:nproc:repeat
    suite: str | None = None                         # "training" | "inference" (run.json)
    model: str | None = None
    framework: str | None = None
    family: str | None = None
    chip: str | None = None
    # The chip as the nodes' sys_info.json names it (chipperf.results.read.hostchip); the
    # key's chip stays the config key (config_<chip>x<nnodes>x<nproc>.py, the spec sheet).
    chip_model: str = ""
    vendor: str | None = None
    nnodes: int | None = None
    nproc: int | None = None
    repeat: int | None = None
    image: str | None = None
    status: str | None = None
    reason: str = ""
    work_unit: str | None = None
    throughput_unit: str | None = None
    metric_name: str | None = None
    metric_target: float | None = None
    mfu_dtype: str | None = None
    engine: str | None = None                        # inference: as the rounds report it
    precision: str | None = None
    # Has chipperf's path for this vendor and chip run on real hardware here (the vendor
    # module's validated_on_hardware, when the report was written)? None: unknown vendor.
    hardware_validated: bool | None = None
    hardware_note: str = ""
    fingerprint: Fingerprint | None = None           # the workload (compare matches on it)
    # Why this case's figures are a smoke test's, not the chip's performance (the data dir's
    # dataset.json card, via SUBMIT_INFO's "dataset"); "" when the data does not say so.
    smoke_test: str = ""
    # A reduced preset (chipperf.results.compute.preset): "reduced preset: 0.612 M params",
    # and what differs from the named model; "" when the case ran the full model.
    preset: str = ""
    preset_detail: str = ""
    # FlagPerf's key of another implementation (Megatron-LM, FlagScale) run as chipperf's
    # torch-native case: what differs (run.json's case "implementation", else SUBMIT_INFO's)
    implementation: str = ""
    # base/: "benchmark" (chipperf's PyTorch program) or "toolkit" (the vendor's own program,
    # base/toolkits/): SUBMIT_INFO's method; "" for the other suites and older runs
    method: str = ""
    run_mode: str = ""                               # the rounds' (see RoundResult.run_mode)
    data_mode: str = ""                              # the rounds' FINISHED data_mode
    rounds: tuple[RoundResult, ...] = ()
    counted: tuple[int, ...] = ()                    # round numbers in the aggregate
    excluded: tuple[Exclusion, ...] = ()
    aggregate: Mapping[str, Stat] = field(default_factory=dict)
    reasons: Mapping[str, str] = field(default_factory=dict)
    problems: tuple[str, ...] = ()

    @property
    def topology(self) -> str:
        return f"{self.nnodes or '?'}x{self.nproc or '?'}"

    @property
    def chip_label(self) -> str:
        """The chip as tables show it: the nodes' model with the config key beside it,
        "AMD EPYC 7B13 64-Core Processor (xeon)"; the key alone where they agree."""
        chip = self.chip or ""
        if not self.chip_model or self.chip_model.lower() == chip.lower():
            return chip
        return f"{self.chip_model} ({chip})" if chip else self.chip_model

    @property
    def title(self) -> str:
        """The case as every table names it: its key, and its reduced preset when it had one."""
        name = self.key or self.dir_name
        return f"{name} ({self.preset})" if self.preset else name

    @property
    def inference(self) -> bool:
        return suite_of(self.suite).infers

    @property
    def synthetic(self) -> bool:
        return self.data_mode == "synthetic"


@dataclass(frozen=True)
class RunSummary(_Schema):
    NESTED: ClassVar[Mapping[str, Any]] = {"cases": (CaseResult,)}

    run_id: str
    run_dir: str = ""
    schema_version: int = SCHEMA_VERSION
    source: str = "chipperf"                         # "chipperf" | "flagperf"
    chipperf_version: str | None = None
    suite: str | None = None
    vendor: str | None = None
    status: str | None = None
    started_at: str | None = None
    finished_at: str | None = None
    hosts: tuple[str, ...] = ()
    cases: tuple[CaseResult, ...] = ()
    problems: tuple[str, ...] = ()
