"""A base spec measured by the vendor's own program: FlagPerf's TOOLKIT method.

A vendor ships ``base/toolkits/<spec>/<vendor>/[<chip>/]main.sh`` and its sources. The engine
uploads that folder and launches the spec's usual entry with ``--toolkit_dir <the folder>``
(the case key's model is ``<spec>-toolkit``); here, on local rank 0 of each node, the folder is
copied to a scratch directory and ``bash main.sh`` runs there (it builds its program with
the image's compiler and runs it), its output teed to ``toolkit.log.txt`` in the node's
result directory and to this rank's log.

The output contract (docs/base-and-operation.md, "Toolkits"):

    [FlagPerf Result]<spec>=<number><unit>             FlagPerf's line, required
    [chipperf toolkit] {"window_s": S, "work_done": W, "work_unit": U, "what": "..."}
                                                       optional: the timed window and the
                                                       work counted in it

The unit is one of UNITS' (FlagPerf's TFLOPS, TOPS, GB/s, ...), converted to the unit the
benchmark method reports the spec in. Without the chipperf line the window is main.sh's
whole run (its build included) and the work is the figure times that window, which
FINISHED's ``method`` says. A main.sh that exits non-zero or prints no result line for its
spec is one ``chipperf case error:`` naming the vendor, the spec and the file.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from chipperf_runtime.base.methods import (
    COMMON,
    FOLDER,
    KINDS,
    LOG,
    MAIN,
    TOOLKIT,
    Printed,
    parse_output,
    spec_kind,
)
from chipperf_runtime.bench.case import BenchCase, BenchError, common_finished
from chipperf_runtime.bench.peaks import flops_peak, memory_bandwidth_peak, memory_capacity_peak, share


def measure(case: BenchCase, folder: Path) -> None:
    """Run the toolkit in ``folder`` on local rank 0 and report its figure (rank 0)."""
    if case.local_rank != 0:
        return                                    # one main.sh per node, as FlagPerf runs it
    script = folder / MAIN
    if not script.is_file():
        raise BenchError(f"toolkit of vendor {case.vendor!r} for {case.name}: {script} does not "
                         "exist")
    case.ready({"toolkit": str(script)})
    where = f"toolkit of vendor {case.vendor!r} for {case.name} ({script})"
    with case.window(lambda: None):               # a toolkit that fails ends no window
        printed = _figure(where, case.name, *_run(case, folder))
    case.finish(finished(case, printed, case.window_s or 0.0, script))


def _figure(where: str, spec: str, status: int, lines: list[str]) -> Printed:
    """The figure main.sh printed; BenchError when it failed or printed none."""
    if status != 0:
        raise BenchError(f"{where} exited with status {status}; its last lines: "
                         + " | ".join(lines[-5:]))
    printed, problems = parse_output(lines, spec)
    for problem in problems:
        print(f"chipperf toolkit: {where}: {problem}", file=sys.stderr, flush=True)
    if printed is None:
        raise BenchError(f"{where} printed no result: {problems[-1]}")
    return printed


def _run(case: BenchCase, folder: Path) -> tuple[int, list[str]]:
    """``bash main.sh`` in a scratch copy of ``folder``; its exit status and output lines,
    teed to toolkit.log.txt and this rank's output."""
    out_dir = Path(case.args.output_dir or ".")
    lines: list[str] = []
    with tempfile.TemporaryDirectory(prefix="chipperf-toolkit-") as scratch, \
            open(out_dir / LOG, "w", encoding="utf-8") as log:
        work = Path(scratch) / folder.name
        shutil.copytree(folder, work)
        env = {**os.environ, "CHIPPERF_SPEC": case.name, "CHIPPERF_CHIP": case.chip,
               "CHIPPERF_MIN_TIME_S": str(case.setting("min_time_s", 1.0, float)),
               "CHIPPERF_TOOLKIT_COMMON": str(common_folder(folder, case.vendor))}
        proc = subprocess.Popen(["bash", MAIN], cwd=work, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, errors="replace")
        assert proc.stdout is not None
        for line in proc.stdout:
            log.write(line)
            sys.stdout.write(line)
            lines.append(line.rstrip("\n"))
        return proc.wait(), lines


def common_folder(folder: Path, vendor: str) -> Path:
    """``toolkits/_common/<vendor>/``: sources a vendor's toolkits share (uploaded with each)."""
    root = next((p for p in folder.resolve().parents if p.name == FOLDER), folder.parent)
    return root / COMMON / vendor


def finished(case: BenchCase, printed: Printed, wall_s: float, script: Path) -> dict[str, Any]:
    """FINISHED of a toolkit figure: the benchmark method's keys, its method named."""
    unit, work_unit, base = KINDS[spec_kind(case.name)]
    stated = printed.stated
    window = float(stated.get("window_s", wall_s))
    work = float(stated["work_done"]) if stated else printed.value * base * window
    how = stated.get("what") if stated else None
    timing = ("the toolkit's own timed window ([chipperf toolkit] window_s)" if stated else
              "the whole main.sh run (its build included): the toolkit stated no window, so "
              "work_done is the figure times that run")
    dtype = case.name.split("-", 1)[1].lower() if spec_kind(case.name) == "rate" else "bytes"
    return {
        "spec": case.name, "world_size": 1, "ranks_measuring": 1,
        **common_finished(printed.value, unit, work, stated.get("work_unit", work_unit),
                          window, dtype, 1.0 if work_unit == "FLOP" else 0.0, None),
        "converged": True, "measured_by": TOOLKIT,
        "method": {"form": TOOLKIT, "what": how or f"the vendor's toolkit ({MAIN})",
                   "toolkit": str(script), "printed": printed.line, "timing": timing,
                   "main_sh_s": wall_s, **({"stated": dict(stated)} if stated else {})},
        **share(printed.value * base, _peak(case)),
    }


def _peak(case: BenchCase) -> Any:
    kind = spec_kind(case.name)
    if kind == "rate":
        return flops_peak(case.vendor, case.chip, case.name.split("-", 1)[1].lower())
    if case.name == "main_memory-bandwidth":
        return memory_bandwidth_peak(case.vendor, case.chip)
    if kind == "capacity":
        return memory_capacity_peak(case.vendor, case.chip)
    return f"{case.name} has no spec-sheet peak in chipperf"
