"""SWEEPS in a test config: per case key, values for its batch size, sequence length and
precision parameters; the grid they make (one round per point, times the case key's repeat),
and the run length that grid may take.

    SWEEPS = {"llama3_8B:pytorch_2.4:xeon:1:1:1": {"micro_batch_size": [1, 2, 4],
                                                   "seq_len": [32, 64, 128]}}
    SWEEP_DEADLINE = 1800     # seconds a case's whole grid may take (checked at plan time)
    SWEEP_ROUND_S = 40        # optional: one round's measured length (e.g. an earlier run's)

An axis is one of the case's own parameters (what OVERRIDES could set), and its name says which
of the three it is: ``batch`` in it is a batch size, ``seq``/``len`` a sequence length,
``dtype``/``precision``/``amp``/``fp16``/``bf16`` a precision. Pure: values in, values out.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any, Mapping, Optional

BATCH, SEQUENCE, PRECISION = "batch", "sequence", "precision"
ROLES = (BATCH, SEQUENCE, PRECISION)
_ROLE_WORDS = ((BATCH, ("batch",)), (SEQUENCE, ("seq", "len")),
               (PRECISION, ("dtype", "precision", "amp", "fp16", "bf16")))
MOST_POINTS = 1000      # a grid larger than this is a typo, not a plan
_LITERAL = (bool, int, float, str)


@dataclass(frozen=True)
class SweepAxis:
    param: str                         # the case's parameter, as OVERRIDES names it
    role: str                          # BATCH | SEQUENCE | PRECISION
    values: tuple[Any, ...]


@dataclass(frozen=True)
class Sweep:
    axes: tuple[SweepAxis, ...]

    def points(self) -> tuple[dict[str, Any], ...]:
        """Every combination of the axes' values, the last axis varying fastest."""
        names = [a.param for a in self.axes]
        return tuple(dict(zip(names, combo)) for combo in
                     itertools.product(*(a.values for a in self.axes)))

    def role_of(self, param: str) -> str:
        return next(a.role for a in self.axes if a.param == param)

    @property
    def shape(self) -> str:
        """'3 x 3 = 9 points' (micro_batch_size x seq_len)."""
        sizes = " x ".join(str(len(a.values)) for a in self.axes)
        return f"{sizes} = {len(self.points())} points ({' x '.join(a.param for a in self.axes)})"


def axis_role(param: str) -> Optional[str]:
    """BATCH, SEQUENCE or PRECISION from the parameter's name; None when it names none."""
    lowered = param.lower()
    return next((role for role, words in _ROLE_WORDS if any(w in lowered for w in words)), None)


def as_sweep(value: Any) -> Sweep:
    """One case's SWEEPS entry: {parameter: [value, ...]}; raises ValueError saying what is wrong."""
    if not isinstance(value, Mapping) or not value:
        raise ValueError("a case's sweep must be a non-empty mapping of parameter to a list of values")
    axes = tuple(_axis(str(name), values) for name, values in value.items())
    roles = [a.role for a in axes]
    twice = sorted({r for r in roles if roles.count(r) > 1})
    if twice:
        raise ValueError(f"more than one {' and '.join(twice)} parameter: sweep each once")
    count = math.prod(len(a.values) for a in axes)
    if count > MOST_POINTS:
        raise ValueError(f"{count} points, over the {MOST_POINTS} a sweep may have")
    return Sweep(axes)


def _axis(name: str, values: Any) -> SweepAxis:
    role = axis_role(name)
    if role is None:
        raise ValueError(f"{name!r} is not a batch size, sequence length or precision parameter "
                         "(its name must contain 'batch', 'seq'/'len', or 'dtype'/'precision'/'amp')")
    if not isinstance(values, (list, tuple)) or not values:
        raise ValueError(f"{name}: {values!r} is not a non-empty list of values")
    bad = [v for v in values if not isinstance(v, _LITERAL)]
    if bad:
        raise ValueError(f"{name}: {bad[0]!r} is not a number, string or bool")
    if role in (BATCH, SEQUENCE):
        wrong = [v for v in values if isinstance(v, bool) or not isinstance(v, int) or v < 1]
        if wrong:
            raise ValueError(f"{name}: {wrong[0]!r} is not a whole number >= 1")
    if len(set(values)) != len(values):
        raise ValueError(f"{name}: {list(values)!r} lists a value twice")
    return SweepAxis(name, role, tuple(values))


@dataclass(frozen=True)
class SweepEstimate:
    rounds: int
    round_s: float          # what one round is taken to last
    basis: str              # where round_s comes from

    @property
    def total_s(self) -> float:
        return self.rounds * self.round_s

    def text(self) -> str:
        return (f"{self.rounds} rounds x {self.round_s:.0f} s ({self.basis}) = "
                f"{self.total_s:.0f} s ({self.total_s / 3600:.1f} h)")


def estimate(sweep: Sweep, repeat: int, round_timeout_s: float,
             measured_round_s: Optional[float]) -> SweepEstimate:
    """The grid's length: its rounds times one round's length, the measured one when given
    (SWEEP_ROUND_S), else the round deadline (no round can take longer)."""
    rounds = len(sweep.points()) * repeat
    if measured_round_s:
        return SweepEstimate(rounds, measured_round_s, "SWEEP_ROUND_S, measured")
    return SweepEstimate(rounds, round_timeout_s, "ROUND_TIMEOUT, the most a round may take")


def deadline_problem(case: str, sweep: Sweep, repeat: int, round_timeout_s: float,
                     measured_round_s: Optional[float], deadline_s: Optional[float]) -> Optional[str]:
    """A grid the SWEEP_DEADLINE cannot hold, with the estimate; None when it fits or no
    deadline is set."""
    guess = estimate(sweep, repeat, round_timeout_s, measured_round_s)
    if not deadline_s or guess.total_s <= deadline_s:
        return None
    return (f"SWEEPS[{case!r}]: {sweep.shape} x repeat {repeat}: estimated {guess.text()}, over "
            f"SWEEP_DEADLINE {deadline_s:.0f} s: drop values, lower the case key's repeat, set "
            "SWEEP_ROUND_S to a measured round length or a lower ROUND_TIMEOUT, or raise "
            "SWEEP_DEADLINE")


def point_label(point: Mapping[str, Any]) -> str:
    """'micro_batch_size=2 seq_len=64'."""
    return " ".join(f"{k}={v}" for k, v in point.items())

