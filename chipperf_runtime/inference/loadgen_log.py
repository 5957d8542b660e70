"""MLPerf LoadGen's summary log (``mlperf_log_summary.txt``) as figures (pure).

The summary is LoadGen's own verdict on a run: the scenario's headline (samples and tokens per
second, or the latency percentile SingleStream is judged by), ``Result is : VALID`` or
``INVALID`` with the checks behind it (minimum duration, minimum query count, the latency
constraints, early stopping), LoadGen's recommendations and early-stopping lines, and the
latency statistics in nanoseconds. ``parse`` returns them with times in milliseconds, in the
shape chipperf's serving figures use (``p50``, ``p90``, ``p99``, ``mean``, ``min``, ``max``).
Lines it does not know are kept nowhere and break nothing; a summary without a ``Result is``
line is a problem, returned beside the figures.
"""

from __future__ import annotations

import re
from typing import Any, Optional

# "Min duration satisfied : NO" -> the check's name in chipperf's record
CHECKS = {"Min duration satisfied": "min_duration", "Min queries satisfied": "min_queries",
          "Early stopping satisfied": "early_stopping",
          "Performance constraints satisfied": "latency_constraints"}
HEADLINES = {"Samples per second": "samples_per_s", "Completed samples per second": "samples_per_s",
             "Tokens per second": "tokens_per_s", "Completed tokens per second": "tokens_per_s",
             "Scheduled samples per second": "scheduled_samples_per_s",
             "QPS w/ loadgen overhead": "queries_per_s",
             "QPS w/o loadgen overhead": "queries_per_s_without_loadgen"}
# the three latency families of the Additional Stats block, by the words LoadGen writes
FAMILIES = (("first token latency", "ttft_ms"), ("time to output token", "tpot_ms"),
            ("latency", "latency_ms"))
EXTREMES = (("Min First Token latency", "ttft_ms", "min"),
            ("Max First Token latency", "ttft_ms", "max"),
            ("Mean First Token latency", "ttft_ms", "mean"),
            ("Min Time per Output Token", "tpot_ms", "min"),
            ("Max Time per Output Token", "tpot_ms", "max"),
            ("Mean Time per Output Token", "tpot_ms", "mean"),
            ("Min latency", "latency_ms", "min"), ("Max latency", "latency_ms", "max"),
            ("Mean latency", "latency_ms", "mean"))
PERCENTILE = re.compile(r"^(\d+(?:\.\d+)?) percentile (.+) \(ns\)$")
# SingleStream's headline: "90.0th percentile latency (ns)", "90.0th first token percentile ..."
HEADLINE_PERCENTILE = re.compile(r"^(\d+(?:\.\d+)?)th (first token )?percentile latency \(ns\)$")
KEPT_PERCENTILES = {"50.00": "p50", "90.00": "p90", "95.00": "p95", "97.00": "p97",
                    "99.00": "p99", "99.90": "p99.9"}


def parse(text: str) -> tuple[dict[str, Any], list[str]]:
    """(figures, problems) of one summary file's text."""
    out: dict[str, Any] = {"checks": {}, "recommendations": [], "early_stopping": []}
    section = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or set(line) == {"="}:
            section = ""  # a rule of '=' closes the recommendations and early-stopping lines
        elif line == "Recommendations:":
            section = "recommendations"
        elif line.endswith("Early Stopping Result:"):
            section = "early_stopping"
        elif section:
            out[section].append(line.lstrip("* ").strip())
        else:
            _field(out, *_split(line))
    problems = [] if "result" in out else ["mlperf_log_summary.txt: no 'Result is' line: the "
                                           "run did not finish; see mlperf_log_detail.txt"]
    out["valid"] = out.get("result") == "VALID"
    out["invalid_because"] = [name for name, ok in out["checks"].items() if not ok]
    return out, problems


def _split(line: str) -> tuple[str, str]:
    key, _, value = line.partition(":")
    return key.strip(), value.strip()


def _field(out: dict[str, Any], key: str, value: str) -> None:
    if key == "Result is":
        out["result"] = value
    elif key in ("Scenario", "Mode", "SUT name"):
        out[key.lower().replace(" ", "_")] = value
    elif key in CHECKS:
        out["checks"][CHECKS[key]] = value.lower() == "yes"
    elif key in HEADLINES:
        out[HEADLINES[key]] = _number(value)
    elif HEADLINE_PERCENTILE.match(key):
        match = HEADLINE_PERCENTILE.match(key)
        assert match is not None
        family = "ttft_ms" if match.group(2) else "latency_ms"
        out.setdefault("judged_by", {})[family] = {
            "percentile": float(match.group(1)), "value": (_number(value) or 0.0) / 1e6}
    else:
        _latency(out, key, value)


def _latency(out: dict[str, Any], key: str, value: str) -> None:
    number = _number(value)
    if number is None or not key.endswith("(ns)"):
        return
    name = key[:-len("(ns)")].strip()
    for label, family, stat in EXTREMES:
        if name == label:
            out.setdefault(family, {})[stat] = number / 1e6
            return
    match = PERCENTILE.match(key)
    if match and match.group(1) in KEPT_PERCENTILES:
        family = next(f for words, f in FAMILIES if match.group(2) == words)
        out.setdefault(family, {})[KEPT_PERCENTILES[match.group(1)]] = number / 1e6


def _number(value: str) -> Optional[float]:
    try:
        return float(value)
    except ValueError:
        return None

