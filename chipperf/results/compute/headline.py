"""What a case's figure is, wherever it is shown beside others (issue 42): its kind (a rate, a
capacity, a latency), its unit, the statistic over the counted rounds, and the marks that say
it is not the chip's real figure (a reduced preset, smoke data, synthetic input).

The headline figure of a case is the one its report leads with: training's and inference's
raw throughput; base/'s and operation/'s measured value (TFLOP/s, GB/s, GiB...), not the
throughput in FLOP/s or bytes/s the case reports beside it (a memory capacity divided by the
time it took to fill is no figure of the chip). The statistic is the report's: the mean over
the counted rounds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from chipperf.results.compute.schema import SYNTHETIC_LABEL, CaseResult, Stat
from chipperf.suites import suite_of

STATISTIC = "mean"          # over the counted rounds, as report.html and summary.md show it
HEADLINE = "headline"       # `chipperf history --figure`'s name for each case's headline figure
RATE, CAPACITY, LATENCY, SHARE = "rate", "capacity", "latency", "share"
_CAPACITY = re.compile(r"^(bytes?|[kmgtpe]i?b)$", re.IGNORECASE)
_LATENCY = re.compile(r"^(ns|us|µs|ms|s)$", re.IGNORECASE)
_RATE = re.compile(r"(/s|flops|ops|qps|hz)$", re.IGNORECASE)


@dataclass(frozen=True)
class Headline:
    name: str                 # the aggregate figure's name (throughput_raw, metric_value)
    unit: str | None
    kind: str | None          # rate, capacity, latency, share; None: the unit does not say

    def of(self, case: CaseResult) -> float | None:
        """The case's value: the report's statistic over its counted rounds."""
        return statistic(case.aggregate.get(self.name))


def figure_kind(unit: str | None) -> str | None:
    """rate (anything per second, FLOPS), capacity (bytes), latency (a time), share (a
    fraction or percentage); None when the unit does not say."""
    text = (unit or "").strip()
    if _RATE.search(text):
        return RATE
    if _CAPACITY.match(text):
        return CAPACITY
    if _LATENCY.match(text):
        return LATENCY
    if text in ("%", "fraction"):
        return SHARE
    return None


def headline(case: CaseResult) -> Headline:
    if suite_of(case.suite).measures_spec:
        return Headline("metric_value", case.metric_name, figure_kind(case.metric_name))
    return Headline("throughput_raw", case.throughput_unit, RATE)


def headline_label(suite: str | None) -> str:
    """How pages name a ``suite`` case's headline figure: base/'s and operation/'s measured
    value, training's and inference's raw throughput."""
    return "value" if suite_of(suite).measures_spec else "throughput_raw"


def lower_is_better(kind: str | None) -> bool:
    """Whether a smaller headline figure of this kind is the better one (a latency)."""
    return kind == LATENCY


def statistic(stat: Stat | None) -> float | None:
    return None if stat is None or not stat.n else stat.mean


def case_marks(case: CaseResult) -> tuple[str, ...]:
    """Why the case's figures are not the chip's real ones, shortest words first: its reduced
    preset ("reduced preset: 0.14 M params"), smoke data, synthetic input."""
    marks = [case.preset] if case.preset else []
    if case.smoke_test:
        marks.append("smoke data")
    if case.synthetic:
        marks.append(SYNTHETIC_LABEL)
    return tuple(marks)
