"""Reading FlagPerf's result directories, so old runs compare with new ones.

FlagPerf (github.com/FlagOpen/FlagPerf) writes ``result/run<ts>/<case>/round<N>/
<host>_noderank<K>/`` with ``rank<R>.out.log`` (its PerfLog lines; FINISHED keys
mapped by ``chipperf_runtime.perflog.normalize_finished``) and text monitor logs, as its
``training/utils/sys_monitor.py`` and ``training/<vendor>/<vendor>_monitor.py``
write them::

    cpu_monitor.log   "2023-03-03-10:00:01\t0.125"   mpstat busy share, every 5 s
    mem_monitor.log   "2023-03-03-10:00:01\t0.453"   free -g used/total, every 5 s
    pwr_monitor.log   "2023-03-03-10:00:01\t350"     ipmitool's highest Watts sensor, every 120 s
    nvidia_monitor.log
        2023-03-03-10:00:01                          then one line per GPU, every 5 s:
        34C 61W 4MiB 81920MiB 0%                     temp, power, used, total, utilisation

A timestamp may also be written "2023-03-03 10:00:01" (space), and the value may be a
percentage instead of a share: when every value of a cpu/mem file is <= 1 the file
is read as shares and multiplied by 100. Timestamps carry no zone: they are read in
the local time zone of the machine summarising (set TZ to the zone of the hosts).
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Protocol

from chipperf.results.read.samples import Record

_TS = re.compile(r"^(\d{4}-\d{2}-\d{2})[-T ](\d{2}:\d{2}:\d{2})(?:[.,](\d+))?")
_TOKEN = re.compile(r"^(-?\d+(?:\.\d+)?)(C|W|MiB|GiB|KiB|MB|GB|%)$")
_UNIT_BYTES = {"KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "MB": 10**6, "GB": 10**9}

# Global rank 0's log, by FlagPerf launcher: pytorch/paddle/flagscale name a rank's log by its
# global rank; tensorflow2 one log per node; deepspeed/megatron one torchrun log per node.
RANK_ZERO_LOGS = ("rank0.out.log", "noderank0.out.log", "rank0.log.txt")


class ProblemSink(Protocol):
    """Where a reader reports a bad line (``samples.MonitorFile``, or the checker)."""

    def problem(self, line: int, message: str) -> None: ...


def rank_zero_log(node_dir: Path) -> Path:
    """Global rank 0's log in node rank 0's dir (rank0.out.log when none is there)."""
    return next((node_dir / n for n in RANK_ZERO_LOGS if (node_dir / n).is_file()),
                node_dir / RANK_ZERO_LOGS[0])


# FlagPerf's sampling periods (sys_monitor.py rate1/rate2, <vendor>_monitor.py rate).
INTERVAL_S = {"cpu": 5.0, "mem": 5.0, "pwr": 120.0, "accel": 5.0}

# Old demo case dir names: BERT_TORCH_DEMO_A100_1X8, CPM_TORCH_DEMO_A100_1X8 ...
_DEMO_NAME = re.compile(r"^(?P<model>[A-Za-z0-9]+)_(?P<fw>[A-Za-z0-9]+)_.*?"
                        r"(?P<chip>[A-Za-z0-9]+)_(?P<nnodes>\d+)[xX](?P<nproc>\d+)$")
_SLUG_NAME = re.compile(r"^(?P<model>.+)-(?P<fw>[^-]+)-(?P<chip>[^-]+)-(?P<nnodes>\d+)x(?P<nproc>\d+)$")


def parse_timestamp(text: str) -> int | None:
    """Epoch ms of a FlagPerf monitor timestamp (local time), or None."""
    match = _TS.match(text.strip())
    if not match:
        return None
    try:
        stamp = time.mktime(time.strptime(f"{match[1]} {match[2]}", "%Y-%m-%d %H:%M:%S"))
    except (ValueError, OverflowError):
        return None
    fraction = float(f"0.{match[3]}") if match[3] else 0.0
    return int((stamp + fraction) * 1000)


def monitor_kind(path: Path) -> str:
    stem = path.name.split("_monitor")[0]
    return stem if stem in ("cpu", "mem", "pwr") else "accel"


def text_records(path: Path, lines: Iterable[tuple[int, str, bool]],
                 out: ProblemSink) -> Iterator[Record]:
    """Samples of a FlagPerf text monitor log."""
    kind = monitor_kind(path)
    if kind == "accel":
        return _accel_records(lines, out)
    return iter(_scalar_records(kind, lines, out))


def _scalar_records(kind: str, lines: Iterable[tuple[int, str, bool]],
                    out: ProblemSink) -> list[Record]:
    key = {"cpu": "util_pct", "mem": "used_pct", "pwr": "power_w"}[kind]
    rows: list[tuple[int, int, float]] = []
    for number, text, clean in lines:
        if not clean:
            out.problem(number, "not valid UTF-8 (bytes replaced)")
        if not text.strip():
            continue
        ts = parse_timestamp(text)
        value = _number(_TS.sub("", text.strip(), count=1).split())
        if ts is None or value is None:
            out.problem(number, f"not '<timestamp> <value>': {text.strip()[:60]!r}")
            continue
        rows.append((number, ts, value))
    scale = 100.0 if kind in ("cpu", "mem") and rows and max(v for _, _, v in rows) <= 1.0 else 1.0
    source = {"cpu": "cpu", "mem": "mem", "pwr": "ipmi"}[kind]   # FlagPerf reads ipmitool
    return [(number, ts, source, {key: value * scale}) for number, ts, value in rows]


def _number(tokens: list[str]) -> float | None:
    if not tokens:
        return None
    try:
        return float(tokens[0].rstrip("%W"))
    except ValueError:
        return None


def _accel_records(lines: Iterable[tuple[int, str, bool]], out: ProblemSink) -> Iterator[Record]:
    ts: int | None = None
    device = 0
    for number, text, clean in lines:
        if not clean:
            out.problem(number, "not valid UTF-8 (bytes replaced)")
        text = text.strip()
        if not text:
            continue
        stamp = parse_timestamp(text)
        if stamp is not None and not _TS.sub("", text, count=1).strip():
            ts, device = stamp, 0
            continue
        values = _device_values(text.split())
        if ts is None or not values:
            out.problem(number, f"not a timestamp or a device line: {text[:60]!r}")
            continue
        yield number, ts, device, values
        device += 1


def _device_values(tokens: list[str]) -> dict[str, float]:
    values: dict[str, float] = {}
    for token in tokens:
        match = _TOKEN.match(token)
        if not match:
            continue
        number, unit = float(match[1]), match[2]
        if unit == "W":
            values["power_w"] = number
        elif unit == "%":
            values["util_pct"] = number
        elif unit == "C":
            values["temp_c"] = number
        elif "mem_used_bytes" not in values:
            values["mem_used_bytes"] = number * _UNIT_BYTES[unit]
        else:
            values["mem_total_bytes"] = number * _UNIT_BYTES[unit]
    return values


def case_identity(name: str) -> dict[str, object]:
    """model, framework, chip, nnodes, nproc (and repeat) from a case dir name, as far as it
    tells: ``model:framework:chip:nnodes:nproc:repeat`` (FlagPerf), chipperf's slug
    ``model-framework-chip-NxP``, or FlagPerf's old ``MODEL_FW_DEMO_CHIP_NXP``."""
    parts = name.split(":")
    if len(parts) == 6 and all(p.isdigit() for p in parts[3:]):
        model, framework, chip, nnodes, nproc, repeat = parts
        return {"model": model, "framework": framework, "chip": chip, "nnodes": int(nnodes),
                "nproc": int(nproc), "repeat": int(repeat)}
    for pattern in (_SLUG_NAME, _DEMO_NAME):
        match = pattern.match(name)
        if match:
            model, framework = match["model"], match["fw"]
            if pattern is _DEMO_NAME:
                model, framework = model.lower(), framework.lower()
                framework = "pytorch" if framework == "torch" else framework
            return {"model": model, "framework": framework, "chip": match["chip"],
                    "nnodes": int(match["nnodes"]), "nproc": int(match["nproc"])}
    return {}


def target_from_config(config: object) -> float | None:
    """The target metric of a FlagPerf SUBMIT_INFO config (its ``target_*`` entry)."""
    if not isinstance(config, dict):
        return None
    for key, value in config.items():
        if str(key).startswith("target_") and isinstance(value, (int, float)) \
                and not isinstance(value, bool):
            return float(value)
    return None
