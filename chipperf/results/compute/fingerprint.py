"""The workload fingerprint of a case: what it ran, so only like is compared with like.

Two results of one model name can be different workloads: FlagPerf's resnet50 trains ImageNet
at 224x224, a chipperf resnet50 may train a 32x32 digits set at another batch. A fingerprint
holds what decides the work (docs/results.md, "Workload fingerprint")::

    case          "<harness>:<model>/<framework family>"  chipperf:resnet50/pytorch
    case_version  SUBMIT_INFO's case_version (a digest of the case's code), else the harness
                  version (chipperf <version>; FlagPerf writes none)
    framework     the family (pytorch_2.1 and pytorch_2.13 are one framework)
    global_batch  global_batch_size; FlagPerf: train_batch_size x chips x accumulation steps;
                  inference: batch_size (FlagPerf's Finish Info: batchsize)
    seq_len       seq_len / seq_length / max_seq_length / max_seq_len
    image_size    image_size / img_size / input_size (a square side; [h, w] of equal sides)
    dataset       a ``dataset`` setting, else the last part of the data directory
    precision     SUBMIT_INFO's precision or the config's dtype / precision; FlagPerf's
                  fp16 / bf16 / amp switches; Finish Info's precision

Pure: mappings in, a ``Fingerprint`` out. A field a result does not say is None.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import PurePosixPath
from typing import Any

from chipperf.results.compute.schema import Fingerprint

FIELDS = tuple(f.name for f in dataclasses.fields(Fingerprint))
_SEQ = ("seq_len", "seq_length", "max_seq_length", "max_seq_len", "sequence_length")
_IMAGE = ("image_size", "img_size", "input_size", "resolution")
_PRECISION_SWITCHES = ("bf16", "fp16", "amp")     # FlagPerf's boolean settings, in this order


def fingerprint(harness: str, model: str | None, family: str | None,
                submit: Mapping[str, Any] | None = None, *, data_dir: str | None = None,
                chips: int | None = None, harness_version: str | None = None,
                finish_info: Mapping[str, Any] | None = None) -> Fingerprint:
    """``submit``: rank 0's SUBMIT_INFO value; ``finish_info``: a FlagPerf inference case's
    Finish Info; ``chips``: the world size (FlagPerf's batch is per chip)."""
    info: Mapping[str, Any] = submit if isinstance(submit, Mapping) else {}
    raw = info.get("config")
    config: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
    finish = finish_info or {}
    version = _text(info.get("case_version")) or (
        f"{harness} {harness_version}" if harness_version else None)
    return Fingerprint(
        case=f"{harness}:{model or '?'}/{family or '?'}", case_version=version,
        framework=family,
        global_batch=_int(finish.get("batchsize")) or _global_batch(harness, config, chips),
        seq_len=_first_int(config, _SEQ), image_size=_image_size(config),
        dataset=_dataset(config, data_dir),
        precision=_text(finish.get("precision")) or _text(info.get("precision"))
        or _precision(config))


def differences(a: Fingerprint, b: Fingerprint) -> list[str]:
    """'field: a vs b' for each field the two disagree on ('?': the result does not say)."""
    return [f"{name} {_show(getattr(a, name))} vs {_show(getattr(b, name))}" for name in FIELDS
            if getattr(a, name) != getattr(b, name)]


def describe(fp: Fingerprint) -> str:
    """The fields a fingerprint knows, as 'name=value' pairs."""
    return ", ".join(f"{name}={getattr(fp, name)}" for name in FIELDS
                     if getattr(fp, name) is not None)


def _global_batch(harness: str, config: Mapping[str, Any], chips: int | None) -> int | None:
    batch = _int(config.get("global_batch_size"))
    if batch is not None:
        return batch
    if harness == "flagperf":
        per_chip = _int(config.get("train_batch_size"))
        steps = _int(config.get("gradient_accumulation_steps")) or 1
        return per_chip * chips * steps if per_chip and chips else None
    return _int(config.get("batch_size"))             # chipperf inference: one device


def _first_int(config: Mapping[str, Any], names: tuple[str, ...]) -> int | None:
    return next((v for v in (_int(config.get(n)) for n in names) if v is not None), None)


def _image_size(config: Mapping[str, Any]) -> int | None:
    for name in _IMAGE:
        value = config.get(name)
        if isinstance(value, (list, tuple)) and value and all(v == value[0] for v in value):
            value = value[0]
        if _int(value) is not None:
            return _int(value)
    return None


def _dataset(config: Mapping[str, Any], data_dir: str | None) -> str | None:
    named = _text(config.get("dataset"))
    if named:
        return named
    path = data_dir or _text(config.get("data_dir"))
    return PurePosixPath(path.rstrip("/")).name or None if path else None


def _precision(config: Mapping[str, Any]) -> str | None:
    for name in ("dtype", "precision"):
        if _text(config.get(name)):
            return str(config[name])
    switches = [n for n in _PRECISION_SWITCHES if isinstance(config.get(n), bool)]
    on = [n for n in switches if config[n]]
    if on:
        return on[0]
    return "fp32" if switches else None


def _show(value: Any) -> str:
    return "?" if value is None else str(value)


def _int(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return int(value) if value == int(value) and value > 0 else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
