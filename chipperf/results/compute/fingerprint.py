"""The workload fingerprint of a case: what it ran, so only like is compared with like.

Two results of one model name can be different workloads: FlagPerf's resnet50 trains ImageNet
at 224x224, a chipperf resnet50 may train a 32x32 digits set at another batch. A fingerprint
holds what decides the work (docs/results.md, "Workload fingerprint")::

    case          "<harness>:<model>/<framework family>"  chipperf:resnet50/pytorch, and
                  "+<implementation>" for a case run by another implementation than its own
                  (the config's ``implementation``: chipperf:mixtral_8x7B/pytorch+megatron_core)
    case_version  SUBMIT_INFO's case_version (a digest of the case's code), else the harness
                  version (chipperf <version>; FlagPerf writes none)
    framework     the family (pytorch_2.1 and pytorch_2.13 are one framework)
    global_batch  ] SUBMIT_INFO's typed ``workload`` (chipperf_runtime/workload.py: the case
    seq_len       ] states them); a run directory without it and a FlagPerf result tree: the
    image_size    ] same module's reading of the config (FlagPerf: train_batch_size x chips x
    precision     ] accumulation steps); FlagPerf inference: Finish Info's batchsize, precision
    dataset       a ``dataset`` setting, else the last part of the data directory

Pure: mappings in, a ``Fingerprint`` out. A field a result does not say is None.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import PurePosixPath
from typing import Any

from chipperf.results.compute.schema import Fingerprint
from chipperf_runtime.training.llmtrain.implementation import KNOB, fingerprint_suffix
from chipperf_runtime.workload import Workload, from_config, positive_int, text

FIELDS = tuple(f.name for f in dataclasses.fields(Fingerprint))


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
    version = text(info.get("case_version")) or (
        f"{harness} {harness_version}" if harness_version else None)
    work = workload(info, chips=chips, flagperf=harness == "flagperf")
    return Fingerprint(
        case=f"{harness}:{model or '?'}/{family or '?'}{fingerprint_suffix(config.get(KNOB))}",
        case_version=version,
        framework=family,
        global_batch=positive_int(finish.get("batchsize")) or work.global_batch,
        seq_len=work.seq_len, image_size=work.image_size, dataset=_dataset(config, data_dir),
        precision=text(finish.get("precision")) or work.precision)


def workload(submit: Any, *, chips: int | None = None, flagperf: bool = False) -> Workload:
    """The workload a SUBMIT_INFO states (its typed ``workload``); for a run directory that
    predates it, or FlagPerf's, the runtime's reading of its config (the one place that knows
    the settings' names)."""
    info: Mapping[str, Any] = submit if isinstance(submit, Mapping) else {}
    stated = Workload.read(info.get("workload"))
    if stated is not None:
        return stated
    raw = info.get("config")
    return from_config(raw if isinstance(raw, Mapping) else {},
                       precision=text(info.get("precision")), chips=chips, flagperf=flagperf)


def differences(a: Fingerprint, b: Fingerprint) -> list[str]:
    """'field: a vs b' for each field the two disagree on ('?': the result does not say)."""
    return [f"{name} {_show(getattr(a, name))} vs {_show(getattr(b, name))}" for name in FIELDS
            if getattr(a, name) != getattr(b, name)]


def describe(fp: Fingerprint) -> str:
    """The fields a fingerprint knows, as 'name=value' pairs."""
    return ", ".join(f"{name}={getattr(fp, name)}" for name in FIELDS
                     if getattr(fp, name) is not None)


def _dataset(config: Mapping[str, Any], data_dir: str | None) -> str | None:
    named = text(config.get("dataset"))
    if named:
        return named
    path = data_dir or text(config.get("data_dir"))
    return PurePosixPath(path.rstrip("/")).name or None if path else None


def _show(value: Any) -> str:
    return "?" if value is None else str(value)
