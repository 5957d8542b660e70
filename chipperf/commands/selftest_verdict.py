"""The selftest's judgement: each row's verdict, the host's load, the exit status.

A row's verdict, first that applies:

- ``not run: ...``: the remaining budget could not hold its step (the selftest is incomplete);
- ``failed: ...`` / ``unsupported: ...``: the step ran and gave no figure;
- ``suspect (harness or load)``: its ratio to the bare reference (the same operation timed in
  a bare torch loop in the same process) is outside RATIO_BAND: the harness, or something else
  on the host, sets the figure, not the chip;
- ``suspect (rounds disagree)``: its counted rounds differ by more than SPREAD_LIMIT of their
  median (the spread): the figure moved between rounds (other work on the host came or went, a
  round ran cold), so its median is not the chip's;
- ``low``: its share of the spec sheet is below the vendor's expected band (EXPECTED_SHARE):
  the chip ran, slower than that kind of chip does;
- ``ok``.

Exit status (``exit_status``): EXIT_OK when every step ran and no row failed or is suspect;
EXIT_FAILED when a row failed or is suspect; EXIT_INCOMPLETE when nothing failed but a step
did not run (the budget). "low" rows do not change it: they say what the chip gave.
"""

from __future__ import annotations

import os
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

EXIT_OK, EXIT_FAILED, EXIT_INCOMPLETE = 0, 1, 3    # 2 stays the CLI's "bad arguments"
RATIO_BAND = (0.9, 1.1)
HEADLINE_ROUNDS = 3            # a headline figure's rounds (the median, their spread beside)
SPREAD_LIMIT = 0.2             # (max - min) / median of the counted rounds: above, ±10 %, suspect
BUSY_LOAD_PER_CORE = 0.5       # a 1-minute load average above this many per core: a busy host
# The least share of the spec sheet each kind of figure reaches on a vendor's chip, below what
# one H100 measured with chipperf selftest (docs/gpu-runs/h100-20261127/selftest.md: GEMM
# 44.6-79.6 % of the sheet per dtype, bandwidth 89.6 %); MFU below the issue-44 goal of 40 %
# for gpt2-medium; the 32-layer serving point's TPOT at batch 1 at most 1.3 x its HBM floor
# (issue 44's target: not measured on a GPU yet). A vendor (or kind) not listed has no band:
# its rows cannot be "low".
EXPECTED_SHARE: Mapping[str, Mapping[str, float]] = {
    "nvidia": {"gemm": 0.40, "bandwidth": 0.80, "mfu": 0.30, "tpot_over_floor": 1.3},
}


@dataclass(frozen=True)
class Row:
    """One line of the verdict table."""

    step: str
    figure: str
    value: float | None = None
    unit: str = ""
    reference: float | None = None
    ratio: float | None = None
    share_of_spec: float | None = None
    verdict: str = "ok"
    rounds: str = ""                 # "3 of 3": rounds counted of rounds run
    spread: float | None = None      # (max - min) / median over the counted rounds
    share_causal: float | None = None  # MFU with a causal model's attention halved (mfu_causal)


def share_kind(step: str, figure: str) -> str:
    if step != "base":
        return "mfu"
    return "bandwidth" if "bandwidth" in figure else "gemm"


def judge(vendor: str, row: Row) -> Row:
    """The row with its verdict (rows that already say failed / not run are kept)."""
    if row.verdict != "ok":
        return row
    low, high = RATIO_BAND
    if row.ratio is not None and not low <= row.ratio <= high:
        return _with(row, f"suspect (harness or load): ratio {row.ratio:.3f} to the bare "
                          f"reference, outside {low:g}-{high:g}")
    if row.spread is not None and row.spread > SPREAD_LIMIT:
        return _with(row, f"suspect (rounds disagree): ±{50 * row.spread:.1f} % between its "
                          f"counted rounds, above ±{50 * SPREAD_LIMIT:g} %: the host's load or "
                          "the harness moved the figure")
    least = EXPECTED_SHARE.get(vendor, {}).get(share_kind(row.step, row.figure))
    if least is not None and row.share_of_spec is not None and row.share_of_spec < least:
        return _with(row, f"low: {100 * row.share_of_spec:.1f} % of the spec sheet, below the "
                          f"{vendor} band (>= {100 * least:g} %)")
    return row


def _with(row: Row, verdict: str) -> Row:
    return Row(**{**row.__dict__, "verdict": verdict})


def exit_status(rows: Sequence[Row]) -> int:
    if any(r.verdict.startswith(("failed", "suspect")) for r in rows):
        return EXIT_FAILED
    if any(r.verdict.startswith("not run") for r in rows):
        return EXIT_INCOMPLETE
    return EXIT_OK


def headline(values: Sequence[float]) -> tuple[float, float | None]:
    """The median of the counted rounds' values and their spread ((max - min) / median;
    None from one round)."""
    middle = statistics.median(values)
    if len(values) < 2 or middle == 0:
        return middle, None
    return middle, (max(values) - min(values)) / middle


def host_load() -> dict[str, Any]:
    """The host's load averages and cores now; ``busy`` when the 1-minute load is above
    BUSY_LOAD_PER_CORE per core (other work competes for the cores a step times)."""
    cores = os.cpu_count() or 1
    one, five, fifteen = os.getloadavg()
    return {"load_1m": round(one, 2), "load_5m": round(five, 2), "load_15m": round(fifteen, 2),
            "cores": cores, "busy": one > BUSY_LOAD_PER_CORE * cores}


def busy_warning(step: str, load: Mapping[str, Any]) -> str:
    return (f"warning: the host is busy before {step}: 1-minute load {load['load_1m']} on "
            f"{load['cores']} cores (above {BUSY_LOAD_PER_CORE:g} a core): its figures may be the "
            f"load's; a ratio outside {RATIO_BAND[0]:g}-{RATIO_BAND[1]:g} is marked suspect")


# ------------------------------------------------------------------ the table


def table(rows: Sequence[Row]) -> list[str]:
    head = ("step", "figure", "value", "spread", "rounds", "reference", "ratio", "of spec",
            "causal", "verdict")
    cells = [(r.step, r.figure, _num(r.value, r.unit),
              "" if r.spread is None else f"±{50 * r.spread:.1f} %", r.rounds,
              _num(r.reference, r.unit), "" if r.ratio is None else f"{r.ratio:.3f}",
              _pct(r.share_of_spec), _pct(r.share_causal), r.verdict)
             for r in rows]
    widths = [max(len(c[i]) for c in [head, *cells]) for i in range(len(head) - 1)]
    return ["  ".join(x.ljust(w) for x, w in zip(c[:-1], widths)) + "  " + c[-1]
            for c in [head, *cells]]


def _pct(share: float | None) -> str:
    return "" if share is None else f"{100 * share:.1f} %"


def _num(value: float | None, unit: str) -> str:
    return "" if value is None else f"{value:,.4g} {unit}".strip()


LEGEND = (f"spread: ± half the range of the counted rounds, of their median (the value); rounds: "
          f"counted of run (a headline needs {HEADLINE_ROUNDS}: fewer says the budget's); of spec: "
          "the value's share of the spec sheet (MFU: attention FLOPs counted whole, causal or "
          "not; the band judges it); causal: the MFU with a causal model's attention FLOPs "
          "halved (the same for a model whose attention is not causal); ratio: to the same "
          "operation in a bare torch "
          f"loop, outside {RATIO_BAND[0]:g}-{RATIO_BAND[1]:g} is suspect, as is a spread above "
          f"±{50 * SPREAD_LIMIT:g} %. Exit {EXIT_OK}: every "
          f"step ran, none failed or suspect; {EXIT_FAILED}: one failed or is suspect; "
          f"{EXIT_INCOMPLETE}: a step did not run (the budget)")
