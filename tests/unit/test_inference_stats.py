"""Latency percentiles and the deviation bound (pure)."""

from __future__ import annotations

import math

import pytest

from chipperf_runtime.inference.stats import Deviation, latency_summary, percentile  # noqa: E402


def test_percentiles_interpolate_between_closest_ranks_as_numpy_does() -> None:
    """One definition in every suite (chipperf_runtime.timing.percentile); the values are
    numpy.percentile's (method 'linear') for the same inputs."""
    from chipperf_runtime import timing

    assert percentile is timing.percentile
    values = list(range(1, 101))  # 1..100
    assert percentile(values, 50) == pytest.approx(50.5)
    assert percentile(values, 90) == pytest.approx(90.1)
    assert percentile(values, 99) == pytest.approx(99.01)
    assert percentile([5.0], 99) == 5.0
    assert percentile([3, 1, 2], 50) == 2
    with pytest.raises(ValueError):
        percentile([], 50)


def test_latency_summary() -> None:
    summary = latency_summary([4.0, 1.0, 3.0, 2.0])
    assert summary == pytest.approx({"p50": 2.5, "p90": 3.7, "p99": 3.97, "mean": 2.5, "min": 1.0,
                                     "max": 4.0, "count": 4})


def test_deviation_bound_is_relative_to_the_reference_scale() -> None:
    dev = Deviation().add(0.02, 1.0, 100, 10.0).add(0.05, 1.0, 100, 20.0)
    report = dev.report(tolerance=1e-3)
    assert report["max_abs_diff"] == 0.05 and report["mean_abs_diff"] == pytest.approx(0.01)
    assert report["bound"] == pytest.approx(0.02) and report["within_bound"] is False
    assert dev.report(tolerance=5e-3)["within_bound"] is True


def test_nonfinite_outputs_are_never_within_bound() -> None:
    dev = Deviation().add(0.0, 0.0, 10, 1.0, nonfinite=1)
    assert dev.report(1.0)["within_bound"] is False
    assert Deviation().report(1.0)["within_bound"] is False  # nothing compared
    assert not math.isnan(Deviation().add(0.0, 0.0, 4, 1.0).report(1e-3)["mean_abs_diff"])
