"""Which MLPerf LoadGen scenarios the inference cases run, and the LoadGen settings they refuse
(pure: the case checks them at start, the engine at plan time, ``chipperf/plan/checks.py``).
The LLM case gives its server rates as ``server_rates``; the batch cases (resnet50, bert_large,
...: ``inference/scenarios.py``) give one ``server_target_qps`` and ``server_latency_ms``.
It sits beside ``loadgen.py``, which both kinds of case drive LoadGen through."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from chipperf_runtime.inference.loadgen import SCENARIOS

# LoadGen's scenarios no case runs, and why (a config naming one is told so)
NOT_RUN = {"multi_stream": "LoadGen's MultiStream (queries of several samples at a fixed "
                           "interval) is an edge-vision scenario chipperf does not drive; MLPerf "
                           "runs no LLM in it"}


def scenario_problems(config: Mapping[str, Any]) -> list[str]:
    """The ``scenarios`` list and the LoadGen numbers of an inference case's resolved config."""
    names = config.get("scenarios")
    if not isinstance(names, (list, tuple)) or not names:
        return [f"scenarios: must be a non-empty list of {', '.join(SCENARIOS)}, got {names!r}"]
    out = [_unknown(n) for n in names if n not in SCENARIOS]
    out += [f"{key}: must be a number > 0 (LoadGen's {what}), got {config.get(key)!r}"
            for key, what in (("loadgen_min_duration_ms", "min_duration_ms"),
                              ("offline_expected_qps", "offline_expected_qps"),
                              ("single_stream_expected_latency_ms",
                               "single_stream_expected_latency_ns / 1e6"))
            if key in config and not _positive(config.get(key))]
    max_ms = config.get("loadgen_max_duration_ms", 0)
    if not _positive(max_ms) and max_ms != 0:
        out.append(f"loadgen_max_duration_ms: must be 0 (no limit) or a number > 0, got {max_ms!r}")
    return out + (_server_problems(config, names) if "server_rates" in config
                  else _batch_server_problems(config, names))


def _batch_server_problems(config: Mapping[str, Any], names: Sequence[Any]) -> list[str]:
    if "server" not in names:
        return []
    return [f"{key}: must be a number > 0 (LoadGen's {what}), got {config.get(key)!r}"
            for key, what in (("server_target_qps", "server_target_qps"),
                              ("server_latency_ms", "server_target_latency_ns / 1e6"))
            if not _positive(config.get(key))]


def _server_problems(config: Mapping[str, Any], names: Sequence[Any]) -> list[str]:
    out = []
    rates = config.get("server_rates") or []
    if "server" in names and isinstance(rates, (list, tuple)) and not all(map(_positive, rates)):
        out.append(f"server_rates: LoadGen's server_target_qps must be > 0, got {list(rates)!r}: "
                   "give requests/s above 0, or [] to derive them from the offline scenario")
    if "server" in names and not rates and "offline" not in names:
        out.append("scenarios: server without server_rates takes its rates from the offline "
                   "scenario's samples/s (server_load_fractions): add offline or give server_rates")
    return out


def _unknown(name: Any) -> str:
    if name in NOT_RUN:
        return f"scenarios: {name!r} is not run by this case: {NOT_RUN[name]}"
    return (f"scenarios: {name!r} is not a MLPerf LoadGen scenario this case runs: use "
            f"{', '.join(SCENARIOS)}")


def _positive(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0
