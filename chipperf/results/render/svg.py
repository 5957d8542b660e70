"""Inline SVG charts drawn in Python: no script, no font or file fetched.

``line_chart`` plots series over time with an optional shaded span (the timed
window), or, with markers, measured points (a line's own points filled and joined, its
``others`` hollow and apart: the served sweep's Pareto front and the points it dominates);
``bar_chart`` plots one value per label (throughput per round).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

WIDTH, HEIGHT = 600, 250
LEFT, RIGHT, TOP, BOTTOM = 64, 140, 28, 40
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf")
MUTED = "#b0b0b0"
CHART_CSS = """
svg.chart{background:#fff;border:1px solid #e4e4e4}
svg .title{font-size:13px;font-weight:600}svg .tick,svg .legend,svg .axis,svg .note{font-size:11px}
svg .grid{stroke:#eee}svg .frame{fill:none;stroke:#999}svg .window{fill:#fde9b0;opacity:.7}
svg .mean{stroke:#333;stroke-dasharray:4 3}
"""    # the classes the charts use: every page that shows one carries this


@dataclass(frozen=True)
class Line:
    label: str
    points: Sequence[tuple[float, float]]     # (x, y)
    markers: bool = False                     # a dot on each point
    others: Sequence[tuple[float, float]] = ()   # same colour, hollow dots, not joined


@dataclass(frozen=True)
class Bar:
    label: str
    value: float | None
    muted: bool = False                       # e.g. a round left out of the aggregate
    note: str = ""


def log2_ticks(lo: float, hi: float, count: int = 8) -> list[float]:
    """Powers of 2 covering [lo, hi] (lo > 0), every second, fourth, ... one past ``count``."""
    first, last = math.floor(math.log2(lo)), math.ceil(math.log2(hi))
    step = max(1, math.ceil((last - first + 1) / count))
    return [2.0 ** k for k in range(first, last + step, step)]


def nice_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """Round tick values covering [lo, hi]."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return [0.0]
    if hi <= lo:
        hi = lo + (abs(lo) or 1.0)
    raw = (hi - lo) / max(1, count)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    first = math.floor(lo / step) * step
    ticks = []
    value = first
    while value <= hi + step * 1e-9:
        ticks.append(round(value, 12))
        value += step
    if ticks[-1] < hi:
        ticks.append(round(value, 12))
    return ticks


def tick_label(value: float, scale: float = 1.0) -> str:
    value = value / scale
    if value == 0:
        return "0"
    if abs(value) >= 1e4 or abs(value) < 1e-2:
        return f"{value:.2g}"
    return f"{value:g}" if value == int(value) else f"{value:.3g}"


class _Frame:
    """Maps data to pixels inside the plot area."""

    def __init__(self, x: tuple[float, float], y: tuple[float, float], xlog: bool = False):
        self.xlog = xlog                 # x on a log scale (x > 0), e.g. batch sizes 2 .. 128
        self.x0, self.x1 = (math.log2(x[0]), math.log2(x[1])) if xlog else x
        self.y0, self.y1 = y
        self.w = WIDTH - LEFT - RIGHT
        self.h = HEIGHT - TOP - BOTTOM

    def px(self, x: float) -> float:
        span = (self.x1 - self.x0) or 1.0
        return LEFT + ((math.log2(x) if self.xlog else x) - self.x0) / span * self.w

    def py(self, y: float) -> float:
        span = (self.y1 - self.y0) or 1.0
        return TOP + self.h - (y - self.y0) / span * self.h


def _open(title: str, kind: str) -> list[str]:
    return [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart {kind}" role="img" '
            f'viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}">',
            f"<title>{escape(title)}</title>",
            f'<text class="title" x="{LEFT}" y="18">{escape(title)}</text>']


def _axes(frame: _Frame, xticks: list[float], yticks: list[float], x_label: str,
          y_label: str, yscale: float) -> list[str]:
    out = []
    for y in yticks:
        py = frame.py(y)
        out.append(f'<line class="grid" x1="{LEFT}" x2="{LEFT + frame.w}" y1="{py:.1f}" '
                   f'y2="{py:.1f}"/>')
        out.append(f'<text class="tick" x="{LEFT - 6}" y="{py + 4:.1f}" text-anchor="end">'
                   f"{tick_label(y, yscale)}</text>")
    for x in xticks:
        px = frame.px(x)
        out.append(f'<text class="tick" x="{px:.1f}" y="{TOP + frame.h + 16}" '
                   f'text-anchor="middle">{tick_label(x)}</text>')
    out.append(f'<rect class="frame" x="{LEFT}" y="{TOP}" width="{frame.w}" height="{frame.h}"/>')
    out.append(f'<text class="axis" x="{LEFT + frame.w / 2}" y="{HEIGHT - 6}" '
               f'text-anchor="middle">{escape(x_label)}</text>')
    out.append(f'<text class="axis" transform="translate(14 {TOP + frame.h / 2}) rotate(-90)" '
               f'text-anchor="middle">{escape(y_label)}</text>')
    return out


def line_chart(title: str, lines: Sequence[Line], x_label: str, y_label: str,
               shade: tuple[float, float] | None = None, yscale: float = 1.0,
               y_from_zero: bool = True, xlog: bool = False) -> str:
    """A time-series chart; ``yscale`` divides the tick labels (e.g. 2**30 for GiB);
    ``xlog``: x on a log scale, ticks at powers of 2 (when every x is above 0)."""
    drawn = [line for line in lines if line.points]
    xs = [p[0] for line in drawn for p in (*line.points, *line.others)] + (
        list(shade) if shade else [])
    ys = [p[1] for line in drawn for p in (*line.points, *line.others)]
    if not drawn:
        return ""
    xlog = xlog and min(xs) > 0
    xticks = log2_ticks(min(xs), max(xs), 8) if xlog else nice_ticks(min(xs), max(xs), 8)
    ylo = 0.0 if y_from_zero else min(ys)
    top = max(ys) if max(ys) > ylo else ylo + yscale
    yticks = [t * yscale for t in nice_ticks(min(ylo, min(ys)) / yscale, top / yscale, 5)]
    frame = _Frame((xticks[0], xticks[-1]), (yticks[0], yticks[-1]), xlog)
    out = _open(title, "line")
    if shade:
        a, b = frame.px(shade[0]), frame.px(shade[1])
        out.append(f'<rect class="window" x="{a:.1f}" y="{TOP}" width="{max(b - a, 1):.1f}" '
                   f'height="{frame.h}"><title>timed window</title>'
                   "</rect>")
    out += _axes(frame, xticks, yticks, x_label, y_label, yscale)
    for i, line in enumerate(drawn):
        color = PALETTE[i % len(PALETTE)]
        path = " ".join(f"{frame.px(x):.1f},{frame.py(y):.1f}" for x, y in line.points)
        out.append(f'<polyline class="series" fill="none" stroke="{color}" stroke-width="1.5" '
                   f'points="{path}"><title>{escape(line.label)}</title></polyline>')
        out += _dots(frame, line, color)
        out += _legend(i, line.label, color)
    if shade:
        out += _legend(len(drawn), "timed window", "#fde9b0", box=True)
    out.append("</svg>")
    return "\n".join(out)


def _dots(frame: _Frame, line: Line, color: str) -> list[str]:
    """A filled dot on each of a marked line's points, a hollow one on each of its others."""
    filled = [(x, y, color) for x, y in line.points] if line.markers else []
    hollow = [(x, y, "white") for x, y in line.others]
    return [f'<circle class="dot" cx="{frame.px(x):.1f}" cy="{frame.py(y):.1f}" r="3" '
            f'stroke="{color}" fill="{fill}"><title>{escape(line.label)}: {x:.4g}, {y:.4g}'
            "</title></circle>" for x, y, fill in filled + hollow]


def _legend(i: int, label: str, color: str, box: bool = False) -> list[str]:
    x, y = WIDTH - RIGHT + 12, TOP + 6 + 16 * i
    mark = (f'<rect x="{x}" y="{y - 6}" width="14" height="10" fill="{color}"/>' if box
            else f'<line x1="{x}" x2="{x + 14}" y1="{y}" y2="{y}" stroke="{color}" '
                 'stroke-width="3"/>')
    short = label if len(label) <= 18 else label[:17] + "…"
    return [mark, f'<text class="legend" x="{x + 18}" y="{y + 4}">{escape(short)}'
                  f"<title>{escape(label)}</title></text>"]


def bar_chart(title: str, bars: Sequence[Bar], y_label: str, mean: float | None = None,
              x_label: str = "round") -> str:
    values = [b.value for b in bars if b.value is not None]
    if not values:
        return ""
    yticks = nice_ticks(0.0, max(values), 5)
    frame = _Frame((0, len(bars)), (yticks[0], yticks[-1]))
    out = _open(title, "bars")
    out += _axes(frame, [], yticks, x_label, y_label, 1.0)
    slot = frame.w / len(bars)
    for i, bar in enumerate(bars):
        x = LEFT + i * slot + slot * 0.15
        label_x = LEFT + (i + 0.5) * slot
        out.append(f'<text class="tick" x="{label_x:.1f}" y="{TOP + frame.h + 16}" '
                   f'text-anchor="middle">{escape(bar.label)}</text>')
        if bar.value is None:
            out.append(f'<text class="note" x="{label_x:.1f}" y="{TOP + frame.h - 6}" '
                       f'text-anchor="middle">n/a<title>{escape(bar.note)}</title></text>')
            continue
        top = frame.py(bar.value)
        color = MUTED if bar.muted else PALETTE[0]
        tip = f"{bar.label}: {bar.value:g}" + (f" ({bar.note})" if bar.note else "")
        out.append(f'<rect class="bar" x="{x:.1f}" y="{top:.1f}" width="{slot * 0.7:.1f}" '
                   f'height="{TOP + frame.h - top:.1f}" fill="{color}"><title>{escape(tip)}'
                   "</title></rect>")
    if mean is not None:
        y = frame.py(mean)
        out.append(f'<line class="mean" x1="{LEFT}" x2="{LEFT + frame.w}" y1="{y:.1f}" '
                   f'y2="{y:.1f}"/>')
        out += _legend(0, "mean (counted)", "#333333")
    if any(b.muted for b in bars):
        out += _legend(1, "not counted", MUTED, box=True)
    out.append("</svg>")
    return "\n".join(out)
