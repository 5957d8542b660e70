"""The workload facts a case states about itself: global batch, sequence length, image size and
precision, typed, in SUBMIT_INFO's ``workload`` (docs/results.md, "Workload fingerprint").

A case builds them once from its resolved config (``from_config``): this is the one place that
knows the names cases and FlagPerf give these settings. The engine reads the typed block
(``Workload.read``) and calls ``from_config`` itself only for a run directory that predates the
block or a FlagPerf result tree. Standard library only: it runs in every case container and the
engine imports it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

SEQ_NAMES = ("seq_len", "seq_length", "max_seq_length", "max_seq_len", "sequence_length")
IMAGE_NAMES = ("image_size", "img_size", "input_size", "resolution")
PRECISION_NAMES = ("dtype", "precision")
PRECISION_SWITCHES = ("bf16", "fp16", "amp")     # FlagPerf's boolean settings, in this order


@dataclass(frozen=True)
class Workload:
    global_batch: int | None = None   # samples per step, all ranks together
    seq_len: int | None = None        # tokens per sample (text cases)
    image_size: int | None = None     # pixels per side (image cases)
    precision: str | None = None      # fp32, bf16, fp16, amp...

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def read(cls, value: Any) -> Workload | None:
        """The typed block of a SUBMIT_INFO, None when it has none; a field of the wrong type
        reads as None (not said)."""
        if not isinstance(value, Mapping):
            return None
        return cls(global_batch=positive_int(value.get("global_batch")),
                   seq_len=positive_int(value.get("seq_len")),
                   image_size=positive_int(value.get("image_size")),
                   precision=text(value.get("precision")))


def from_config(config: Mapping[str, Any], *, precision: str | None = None,
                chips: int | None = None, flagperf: bool = False) -> Workload:
    """The workload a resolved case config describes. ``precision``: what the case states
    outright (an inference engine's), else the config's dtype or FlagPerf's switches;
    ``flagperf``: the config is FlagPerf's, whose ``train_batch_size`` is per chip (``chips``:
    the world size)."""
    return Workload(global_batch=_global_batch(config, chips, flagperf),
                    seq_len=_first_int(config, SEQ_NAMES), image_size=_image_size(config),
                    precision=text(precision) or _precision(config))


def _global_batch(config: Mapping[str, Any], chips: int | None, flagperf: bool) -> int | None:
    batch = positive_int(config.get("global_batch_size"))
    if batch is not None:
        return batch
    if flagperf:
        per_chip = positive_int(config.get("train_batch_size"))
        steps = positive_int(config.get("gradient_accumulation_steps")) or 1
        return per_chip * chips * steps if per_chip and chips else None
    return positive_int(config.get("batch_size"))     # chipperf inference: one device


def _first_int(config: Mapping[str, Any], names: tuple[str, ...]) -> int | None:
    return next((v for v in (positive_int(config.get(n)) for n in names) if v is not None), None)


def _image_size(config: Mapping[str, Any]) -> int | None:
    for name in IMAGE_NAMES:
        value = config.get(name)
        if isinstance(value, (list, tuple)) and value and all(v == value[0] for v in value):
            value = value[0]
        if positive_int(value) is not None:
            return positive_int(value)
    return None


def _precision(config: Mapping[str, Any]) -> str | None:
    for name in PRECISION_NAMES:
        if text(config.get(name)):
            return str(config[name])
    switches = [n for n in PRECISION_SWITCHES if isinstance(config.get(n), bool)]
    on = [n for n in switches if config[n]]
    if on:
        return on[0]
    return "fp32" if switches else None


def positive_int(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return int(value) if value == int(value) and value > 0 else None


def text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
