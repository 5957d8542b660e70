"""`chipperf cases`: the catalogue with each full-size model's size and FLOPs.

Each standard case folder may hold ``case.yaml``::

    description: what it trains
    work_unit: samples            # or tokens
    full_size:
      params: 25557032            # checked against the model by the case's tests
      flops_per_unit: 1.2e10      # training FLOPs per sample/token of the full-size model
    parallel: ...                 # layout and memory needs checked at plan time:
    memory: ...                   # see chipperf/config/caseneeds.py
    ci_data: {script: ..., args: [...]}   # the CI data when not the case's own
                                          # prepare_data.py (selfbench/case_efficiency.py)
"""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path
from typing import Any

from chipperf.containers.images import LOCAL_BASE, base_images, never_built
from chipperf.suites import get_suite
from chipperf.suites.catalogue import Catalogue, read_case_meta
from chipperf_runtime.vendors import get_vendor, hardware_status, vendor_names

_CHIP = re.compile(r"^config_(?P<chip>.+)x\d+x\d+\.py$")


def catalogue_rows(root: Path, suite: str = "training") -> list[dict[str, Any]]:
    catalogue = Catalogue.scan(root, suite=suite)
    rows = []
    for (model, family), folder in sorted(catalogue.cases.items()):
        meta = read_case_meta(folder)
        full = meta.get("full_size") or {}
        rows.append({
            "model": model, "framework": family,
            "vendors": sorted(v for v, m, f in catalogue.vendor_cases if (m, f) == (model, family)),
            "configs": {v: sorted(c) for (v, m, f), c in catalogue.vendor_configs.items()
                        if (m, f) == (model, family)},
            "hardware": _hardware(catalogue, model, family),
            **({"toolkits": sorted(v for s, v in catalogue.toolkits if s == model)}
               if catalogue.toolkits else {}),
            "description": meta.get("description", ""),
            "work_unit": meta.get("work_unit"),
            "params": full.get("params"), "flops_per_unit": full.get("flops_per_unit"),
        })
    return rows


def _hardware(catalogue: Catalogue, model: str, family: str) -> dict[str, dict[str, Any]]:
    """vendor/chip -> {"ran": bool | None, "note": str}: has chipperf run it on real hardware?"""
    out = {}
    for (vendor, m, f), names in sorted(catalogue.vendor_configs.items()):
        if (m, f) != (model, family):
            continue
        if not catalogue.suite.vendor_config_per_topology:   # one config for all its chips
            ran, note = hardware_status(vendor)
            out[vendor] = {"ran": ran, "note": note}
            continue
        for chip in sorted({c["chip"] for c in map(_CHIP.match, names) if c}):
            ran, note = hardware_status(vendor, chip)
            out[f"{vendor}/{chip}"] = {"ran": ran, "note": note + _sheetless(vendor, chip)}
    return out


def _sheetless(vendor: str, chip: str) -> str:
    """What a config's chip lacks when its vendor module has no spec sheet for it."""
    if vendor not in vendor_names() or get_vendor(vendor).chip(chip) is not None:
        return ""
    return f"; chipperf_runtime/vendors/{vendor}.py has no spec sheet for {chip}"


def print_cases(root: Path, as_json: bool = False, suite: str = "training") -> int:
    rows = catalogue_rows(root, suite)
    if as_json:
        print(json.dumps(rows, indent=2))
        return 0
    if get_suite(suite).measures_spec:
        _print_spec_rows(rows, get_suite(suite).case_noun)
    else:
        _print_model_rows(rows)
    print("\nhas chipperf run it on real hardware here? (per vendor and chip)")
    for line in sorted({h["note"] for r in rows for h in r["hardware"].values()}):
        print(textwrap.fill(line, WIDTH, initial_indent="  ", subsequent_indent="    "))
    toolkits = toolkit_lines(Catalogue.scan(root, suite=suite))
    if toolkits:
        print("\nvendor toolkits (base/toolkits/<spec>/<vendor>/main.sh; BENCHMARKS_OR_TOOLKITS: "
              "TOOLKIT)")
    for line in toolkits:
        print(textwrap.fill(line, WIDTH, initial_indent="  ", subsequent_indent="    "))
    print("\ncan the vendor images be built? (per vendor and image folder, from its Dockerfile's base)")
    for line in image_lines(Catalogue.scan(root, suite=suite)):
        print(textwrap.fill(line, WIDTH, initial_indent="  ", subsequent_indent="    "))
    return 0


def toolkit_lines(catalogue: Catalogue) -> list[str]:
    """base/: per vendor, the specs its own toolkit measures (BENCHMARKS_OR_TOOLKITS: TOOLKIT),
    and what its folders' case.yaml says was never run."""
    if not catalogue.toolkits:
        return []
    vendors = sorted({v for _, v in catalogue.toolkits})
    lines = []
    for vendor in vendors:
        specs = sorted(s for s, v in catalogue.toolkits if v == vendor)
        unrun = sorted({str(read_case_meta(catalogue.toolkits[(s, vendor)]).get("not_run") or "")
                        for s in specs} - {""})
        lines.append(f"{vendor}: {', '.join(specs)}"
                     + (f"; not run here: {'; '.join(unrun)}" if unrun else ""))
    return lines


def image_lines(catalogue: Catalogue) -> list[str]:
    """One line per vendor image folder: what its Dockerfile builds on, and so whether it can
    be built here (offline, on the local Debian base), only where its base can be pulled, or
    not at all until the test config names the vendor's image (BASE_IMAGE); and, where its
    Dockerfile says so, that chipperf has never built it."""
    return [f"{vendor}/{folder}: {_buildable(context / 'Dockerfile')}"
            f"{_never_built(context / 'Dockerfile')}"
            for (vendor, folder), context in sorted(catalogue.images.items())]


def _never_built(dockerfile: Path) -> str:
    why = never_built(dockerfile)
    return f"; NEVER BUILT by chipperf: {why}" if why else ""


def _buildable(dockerfile: Path) -> str:
    bases = base_images(dockerfile)
    if "" in bases:
        return ("cannot be built here or anywhere as it is: the vendor publishes no image to "
                "build on; set BASE_IMAGE in the test config to the vendor's image in your registry")
    if bases and all(b == LOCAL_BASE for b in bases):
        return f"builds here, offline, on the local Debian base ({LOCAL_BASE})"
    return (f"builds on a host that can pull {', '.join(bases)} (a published image; the "
            "Dockerfile's comment says what else it fetches)")


def _print_spec_rows(rows: list[dict[str, Any]], what: str) -> None:
    width = max([len(r["model"]) for r in rows] + [len(what)])
    indent = width + 12
    print(f"{what:<{width}} {'framework':<10} vendors")
    for r in rows:
        wrapped = textwrap.wrap(", ".join(r["vendors"]), max(30, WIDTH - indent)) or [""]
        print(f"{r['model']:<{width}} {r['framework']:<10} {wrapped[0]}")
        for more in wrapped[1:]:
            print(" " * indent + more)


WIDTH = 110   # the widest line `chipperf cases` prints, vendors wrapped under their column


def _print_model_rows(rows: list[dict[str, Any]]) -> None:
    """model, framework, (where case.yaml says) full-size parameters and training FLOPs per
    work unit with the unit named, and the vendors, wrapped to WIDTH."""
    sized = any(r["params"] or r["flops_per_unit"] for r in rows)
    cells = [[r["model"], r["framework"], *(_size_cells(r) if sized else [])] for r in rows]
    head = ["model", "framework", *(["params", "training FLOPs"] if sized else [])]
    widths = [max(len(c[i]) for c in [head, *cells]) for i in range(len(head))]
    line = lambda c: "  ".join(x.ljust(w) if i < 2 else x.rjust(w)  # noqa: E731
                               for i, (x, w) in enumerate(zip(c, widths)))
    indent = len(line(head)) + 2
    print(f"{line(head)}  vendors")
    for r, c in zip(rows, cells):
        wrapped = textwrap.wrap(", ".join(r["vendors"]), max(30, WIDTH - indent)) or [""]
        print(f"{line(c)}  {wrapped[0]}")
        for more in wrapped[1:]:
            print(" " * indent + more)
    if not sized:
        print("\n(no full-size parameter or FLOP figures in these cases' case.yaml)")


def _size_cells(row: dict[str, Any]) -> list[str]:
    params = f"{row['params']:,}" if row["params"] else "-"
    unit = (row.get("work_unit") or "unit").rstrip("s")
    flops = f"{float(row['flops_per_unit']):.3g} / {unit}" if row["flops_per_unit"] else "-"
    return [params, flops]
