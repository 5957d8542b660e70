"""The two methods of a base spec, FlagPerf's BENCHMARK and TOOLKIT, and the output contract
of a toolkit (what ``[FlagPerf Result]`` line it prints, read by ``parse_output``). Pure: the
engine (config, plan checks) and the case (toolkit.py) share it.

A toolkit lives in ``base/toolkits/<spec>/<vendor>/[<chip>/]main.sh``; ``find`` says which
folder serves a (spec, vendor, chip), and what was looked for when none does.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

TOOLKIT = "toolkit"
BENCHMARK = "benchmark"
METHODS = (BENCHMARK, TOOLKIT)
# a toolkit case's model is its spec with this suffix (a case of its own: its own result
# directory, key and workload fingerprint, never compared with the benchmark's silently)
SUFFIX = "-toolkit"
FOLDER = "toolkits"
COMMON = "_common"      # toolkits/_common/<vendor>/: what a vendor's toolkits share
MAIN = "main.sh"
LOG = "toolkit.log.txt"
RESULT = re.compile(r"\[FlagPerf Result\]\s*(?P<spec>[A-Za-z0-9_.-]+)\s*=\s*"
                    r"(?P<value>[-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*(?P<unit>[A-Za-z/]+)")
STATED = "[chipperf toolkit]"
# printed unit -> (the spec kind it measures, factor to the benchmark method's unit)
UNITS: dict[str, tuple[str, float]] = {
    "TFLOPS": ("rate", 1.0), "TFLOP/s": ("rate", 1.0), "TOPS": ("rate", 1.0),
    "GFLOPS": ("rate", 1e-3), "GFLOP/s": ("rate", 1e-3), "GOPS": ("rate", 1e-3),
    "GB/s": ("bandwidth", 1.0), "TB/s": ("bandwidth", 1e3), "MB/s": ("bandwidth", 1e-3),
    "GiB/s": ("bandwidth", 2**30 / 1e9), "TiB/s": ("bandwidth", 2**40 / 1e9),
    "GiB": ("capacity", 1.0), "GB": ("capacity", 1e9 / 2**30), "MiB": ("capacity", 1 / 1024),
    "TiB": ("capacity", 1024.0), "TB": ("capacity", 1e12 / 2**30),
}
# the kind -> the benchmark method's unit, the work unit and its size in base units
KINDS = {"rate": ("TFLOP/s", "FLOP", 1e12), "bandwidth": ("GB/s", "bytes", 1e9),
         "capacity": ("GiB", "bytes", float(2**30))}


def is_toolkit_model(model: str) -> bool:
    return model.endswith(SUFFIX)


def spec_of(model: str) -> str:
    """The spec a case key's model names (``computation-FP32-toolkit`` -> ``computation-FP32``)."""
    return model[: -len(SUFFIX)] if is_toolkit_model(model) else model


def spec_kind(spec: str) -> str:
    if spec.startswith("computation-"):
        return "rate"
    return "capacity" if spec == "main_memory-capacity" else "bandwidth"


def find(root: Path, spec: str, vendor: str, chip: str) -> tuple[Optional[Path], list[Path]]:
    """The toolkit folder of (spec, vendor, chip) under ``root`` (``base/toolkits``): the
    chip's own ``<vendor>/<chip>/main.sh``, else the vendor's ``<vendor>/main.sh``; and the
    files looked for, for the message when there is none."""
    looked = [root / spec / vendor / chip / MAIN, root / spec / vendor / MAIN] if chip else \
        [root / spec / vendor / MAIN]
    found = next((p.parent for p in looked if p.is_file()), None)
    return found, looked


@dataclass(frozen=True)
class Printed:
    """What a toolkit printed, read by the contract."""

    value: float                    # in the benchmark method's unit of the spec
    unit: str                       # that unit
    line: str                       # the result line as printed
    stated: Mapping[str, Any] = field(default_factory=dict)   # the chipperf line's JSON


def parse_output(lines: Iterable[str], spec: str) -> tuple[Optional[Printed], list[str]]:
    """The spec's figure from a toolkit's output lines, and every problem met. Pure."""
    problems: list[str] = []
    results, stated = [], {}
    for n, line in enumerate(lines, 1):
        if STATED in line:
            stated = _stated(line, n, problems)
            continue
        found = RESULT.search(line)
        if found and found["spec"] == spec:
            results.append((n, found))
        elif found:
            problems.append(f"line {n}: a result for {found['spec']!r}, not {spec!r}: ignored")
    if not results:
        return None, problems + [f"no line '[FlagPerf Result]{spec}=<number><unit>'"]
    n, last = results[-1]
    if len(results) > 1:
        problems.append(f"{len(results)} result lines for {spec}: line {n}'s is taken")
    unit = UNITS.get(last["unit"])
    if unit is None or unit[0] != spec_kind(spec):
        fits = sorted(u for u, (kind, _) in UNITS.items() if kind == spec_kind(spec))
        return None, problems + [f"line {n}: unit {last['unit']!r} is not one for {spec} "
                                 f"(use one of {', '.join(fits)})"]
    value = float(last["value"]) * unit[1]
    if value <= 0:
        return None, problems + [f"line {n}: the figure {last['value']} is not above 0"]
    return Printed(value, KINDS[unit[0]][0], last.group(0), stated), problems


def _stated(line: str, n: int, problems: list[str]) -> dict[str, Any]:
    try:
        data = json.loads(line.split(STATED, 1)[1])
    except ValueError as exc:
        problems.append(f"line {n}: {STATED} is not followed by a JSON object ({exc}): ignored")
        return {}
    if not isinstance(data, dict):
        data = {}
    window, work = data.get("window_s"), data.get("work_done")
    if not all(isinstance(x, (int, float)) and x > 0 for x in (window, work)):
        problems.append(f"line {n}: {STATED} needs window_s and work_done, both numbers above "
                        "0: ignored")
        return {}
    return data


