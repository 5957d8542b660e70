"""The keys every inference case has, as one frozen typed object (validated, all problems at once).

Case-specific keys (image_size, seq_len, ...) stay in the configuration mapping and are read
by the case. See docs/inference.md for what each key means.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Mapping, Optional, Protocol, TypeVar

from chipperf_runtime.device import DEVICE_KINDS
from chipperf_runtime.inference.errors import CaseError
from chipperf_runtime.inference.loadgen_rules import scenario_problems

# Keys a configuration may leave out: ``device`` is named by the vendor (chipperf_runtime.device);
# when a configuration also gives it, it must agree with the vendor's device.
OPTIONAL = {"device": None}


class _Checked(Protocol):
    def problems(self) -> list[str]: ...


C = TypeVar("C", bound=_Checked)


def from_keys(cls: type[C], config: Mapping[str, Any]) -> C:
    """``cls`` (a dataclass of settings) from the configuration's keys of its fields' names;
    a missing key (but those in OPTIONAL) or any of ``problems()`` is a CaseError."""
    names = [f.name for f in fields(cls)]  # type: ignore[arg-type]
    missing = [name for name in names if name not in config and name not in OPTIONAL]
    if missing:
        raise CaseError(f"configuration.yaml lacks {', '.join(missing)}: add them "
                        "(see docs/inference.md for every key)")
    settings = cls(**{name: config.get(name, OPTIONAL.get(name)) for name in names})
    problems = settings.problems()
    if problems:
        raise CaseError("configuration problems:\n  " + "\n  ".join(problems))
    return settings


class Targets:
    """The agreement and tolerance tables every inference case's settings carry, read as
    numbers: a value that is not one is a CaseError naming its key."""

    agreement_target: Mapping[str, float]
    tolerance: Mapping[str, Mapping[str, float]]

    def agreement_for(self, precision: str) -> Optional[float]:
        value = self.agreement_target.get(precision)
        return None if value is None else _number(value, f"agreement_target.{precision}")

    def tolerance_for(self, engine: str, precision: str) -> Optional[float]:
        """The relative bound for (engine, precision): the engine's entry, else ``default``'s."""
        for name in (engine, "default"):
            table = self.tolerance.get(name) or {}
            if precision in table:
                return _number(table[precision], f"tolerance.{name}.{precision}")
        return None


@dataclass(frozen=True)
class Settings(Targets):
    model: str
    engine: str
    precision: str
    device: Optional[str]
    batch_size: int
    seed: int
    checkpoint: Optional[str]
    warmup_batches: int
    repeat: int
    offline_passes: int
    max_items: Optional[int]
    latency_queries: int
    latency_warmup: int
    accuracy_items: Optional[int]
    accuracy_target: float
    agreement_target: Mapping[str, float]
    tolerance: Mapping[str, Mapping[str, float]]
    flops_per_item: Optional[float]
    onnx_file: Optional[str]
    onnx_opset: int
    num_threads: Optional[int]
    compile_mode: str
    trt_workspace_gb: float
    scenarios: tuple                 # MLPerf LoadGen's scenarios to run (loadgen.SCENARIOS)
    loadgen_min_duration_ms: int     # LoadGen's min_duration_ms (MLPerf: 600000)
    loadgen_max_duration_ms: int     # LoadGen's max_duration_ms (0: none)
    offline_expected_qps: float
    single_stream_expected_latency_ms: float
    server_target_qps: float
    server_latency_ms: float         # LoadGen's server_target_latency (at SERVER_PERCENTILE)
    server_queries: int

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> "Settings":
        return from_keys(cls, config)

    def problems(self) -> list[str]:
        out = []
        for name in ("batch_size", "repeat", "offline_passes", "latency_queries", "onnx_opset",
                     "server_queries"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) < 1:
                out.append(f"{name}: must be a whole number >= 1, got {getattr(self, name)!r}")
        for name in ("warmup_batches", "latency_warmup"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) < 0:
                out.append(f"{name}: must be a whole number >= 0, got {getattr(self, name)!r}")
        for name in ("max_items", "accuracy_items", "num_threads"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or value < 1):
                out.append(f"{name}: must be null or a whole number >= 1, got {value!r}")
        if self.device is not None and self.device not in DEVICE_KINDS:
            out.append(f"device: {self.device!r} is unknown: leave it out (the vendor names the "
                       f"device) or use one of {', '.join(DEVICE_KINDS)}")
        if self.flops_per_item is not None and not self.flops_per_item > 0:
            out.append(f"flops_per_item: must be null (count it) or > 0, got {self.flops_per_item!r}")
        return out + scenario_problems(self.__dict__)


def _number(value: Any, key: str) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        raise CaseError(f"{key}: expected a number, got {value!r}") from None
