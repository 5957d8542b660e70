"""The MMLU cases' keys as one frozen typed object (configuration.yaml; docs/inference.md)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Optional

from chipperf_runtime.device import DEVICE_KINDS
from chipperf_runtime.inference.mmlu.questions import SUBJECTS
from chipperf_runtime.inference.settings import Targets, from_keys

ENGINES = ("eager", "compile")


@dataclass(frozen=True)
class MMLUSettings(Targets):
    model: str
    engine: str
    precision: str
    device: Optional[str]
    batch_size: int
    seed: int
    repeat: int
    offline_passes: int
    weight_dir: str
    mmlu_dir: str
    few_shots: int
    subjects: Optional[list]
    max_prompt_tokens: int
    max_items: Optional[int]
    warmup_questions: int
    reference_items: int
    accuracy_target: Optional[float]
    agreement_target: Mapping[str, float]
    tolerance: Mapping[str, Mapping[str, float]]
    flops_per_item: Optional[float]
    onnx_file: Optional[str]
    num_threads: Optional[int]
    compile_mode: str
    trust_remote_code: bool

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> "MMLUSettings":
        return from_keys(cls, config)

    @property
    def subject_list(self) -> tuple[str, ...]:
        return tuple(self.subjects) if self.subjects else SUBJECTS

    def problems(self) -> list[str]:
        out = [f"{name}: must be a whole number >= 1, got {getattr(self, name)!r}"
               for name in ("repeat", "offline_passes", "max_prompt_tokens", "reference_items")
               if not _whole(getattr(self, name), 1)]
        out += [f"{name}: must be a whole number >= 0, got {getattr(self, name)!r}"
                for name in ("few_shots", "warmup_questions") if not _whole(getattr(self, name), 0)]
        if self.batch_size != 1:
            out.append(f"batch_size: must be 1 (one question per forward pass, as FlagPerf's "
                       f"MMLU cases assert), got {self.batch_size!r}")
        if self.engine not in ENGINES:
            out.append(f"engine {self.engine!r}: the MMLU cases run {' or '.join(ENGINES)} "
                       "(prompts of every length: no fixed-shape ONNX or TensorRT engine)")
        if self.onnx_file is not None:
            out.append("onnx_file: the MMLU cases run PyTorch engines only: leave it null")
        unknown = [s for s in self.subjects or () if s not in SUBJECTS]
        if unknown:
            out.append(f"subjects: {', '.join(map(str, unknown))} not among MMLU's 57 subjects "
                       "(e.g. abstract_algebra): null means all of them")
        if self.max_items is not None and not _whole(self.max_items, 1):
            out.append(f"max_items: must be null or a whole number >= 1, got {self.max_items!r}")
        if self.device is not None and self.device not in DEVICE_KINDS:
            out.append(f"device: {self.device!r} is unknown: leave it out (the vendor names it)")
        return out


def _whole(value: Any, least: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= least
