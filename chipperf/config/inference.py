"""The inference suite's config: ``inference/configs/host.yaml`` (FlagPerf's inference form).

One file holds both the cluster part (HOSTS, SSH_PORT, ...) and the test part
(VENDOR, CASES, image settings ...). A case key is ``model:framework`` (or the full
training form, whose chip wins over CHIP; without CHIP, as FlagPerf writes host.yaml, the
vendor's default chip); an inference case runs on one node, cases are spread over the hosts
in turn, and its number of rounds is ``repeat`` in ``configs/<model>/configuration.yaml``.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from chipperf.config.flagperf_aliases import chipperf_case_name
from chipperf.config.limits import count_problem
from chipperf.config.load import (
    IGNORED,
    Fields,
    chipperf_named,
    cluster_fields,
    finish,
    read_config,
    test_fields,
)
from chipperf.config.model import CaseEntry, CaseKey, ClusterConfig, TestConfig
from chipperf.config.textread import load_yaml, read_utf8
from chipperf.errors import ConfigError

log = logging.getLogger(__name__)
KEY_FORM = "model:framework (e.g. resnet50:pytorch_2.13)"
INFERENCE_KEYS = {"chip", "log_call_information", "hosts_ports"}


def load_inference(path: str | Path, suite_dir: Path
                   ) -> tuple[ClusterConfig, TestConfig, list[str]]:
    """Both configs (defaults where a value was bad) and every problem found."""
    path = Path(path)
    raw = read_config(path)
    f = Fields.of(path, raw)
    cluster = cluster_fields(f)
    chip = f.get("chip", str, "") or _default_chip(f.path, str(f.data.get("vendor") or ""))
    cases = _cases(f, cluster.hosts, chip, suite_dir)
    test = test_fields(f, cases, suite="inference")
    return cluster, test, raw.problems + finish(f, IGNORED | INFERENCE_KEYS)


def _default_chip(path: Path, vendor: str) -> str:
    """FlagPerf's inference host.yaml has no CHIP: the vendor's default chip, the first of its
    spec sheet (cpu: xeon, nvidia: A100), said in a warning. A case key's own chip
    (model:framework:chip:1:1:repeat) still wins."""
    from chipperf_runtime.vendors import get_vendor, vendor_names

    if vendor not in vendor_names() or not get_vendor(vendor).chips:
        return ""
    chip = next(iter(get_vendor(vendor).chips))
    log.warning("%s: CHIP is not set: case keys without a chip get vendor %s's default chip %s "
                "(the first of its spec sheet, chipperf_runtime/vendors/%s.py); set CHIP to name another",
                path, vendor, chip, vendor)
    return chip


def _cases(f: Fields, hosts: tuple[str, ...], chip: str, suite_dir: Path) -> tuple[CaseEntry, ...]:
    raw = f.get("cases", lambda v: v, {})
    if not isinstance(raw, dict) or not raw:
        f.fail("cases", "no cases listed", f"set CASES to {{'{KEY_FORM}': '/path/to/data'}}")
        return ()
    entries = []
    for index, (text, data_dir) in enumerate(raw.items()):
        parts = str(text).split(":")
        if len(parts) == 2:
            if not chip:
                f.fail("chip", f"case {text!r} names no chip and CHIP is not set",
                       "set CHIP (e.g. CHIP: xeon) or write the key as model:framework:chip:1:1:repeat")
                continue
            model = chipperf_case_name("inference", parts[0])
            repeat = _repeat(f, suite_dir / "configs" / model / "configuration.yaml")
            text = f"{parts[0]}:{parts[1]}:{chip}:1:1:{repeat}"
        try:
            key = chipperf_named(f.path, "inference", CaseKey.parse(str(text)))
        except ValueError as exc:
            f.fail("cases", f"case key {text!r} {exc}", f"write it as {KEY_FORM}")
            continue
        if key.nnodes != 1:
            f.fail("cases", f"case {text!r}: inference cases run on one node", "set nnodes to 1")
        pinned = (hosts[index % len(hosts)],) if hosts else ()
        entries.append(CaseEntry(key, str(data_dir), pinned))
    return tuple(entries)


def _repeat(f: Fields, configuration: Path) -> int:
    if not configuration.is_file():
        return 1  # the catalogue check reports the missing case
    try:
        data: Any = load_yaml(configuration, read_utf8(configuration)) or {}
    except ConfigError as exc:
        f.problems.extend(exc.problems)
        return 1
    repeat = data.get("repeat", 1) if isinstance(data, dict) else 1
    if isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 1:
        f.problems.append(f"{configuration}: repeat: {repeat!r} is not a whole number >= 1")
        return 1
    too_many = count_problem("repeat", repeat)
    if too_many:
        f.problems.append(f"{configuration}: {too_many}")
        return 1
    return repeat
