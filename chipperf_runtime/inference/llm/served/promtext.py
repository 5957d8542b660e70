"""The server's own token counters, read from its Prometheus ``/metrics`` text (pure parser).

The exposition format's sample line is ``name{label="v",...} value [timestamp]``; comment lines
start with ``#``. ``parse`` returns (samples, problems) instead of raising on a bad line, as
chipperf's other log parsers do; ``token_counters`` sums a counter over its label sets (vLLM
and SGLang label each by ``model_name``).
"""

from __future__ import annotations

import re
from typing import Iterable

SAMPLE = re.compile(r"^(?P<name>[a-zA-Z_:][a-zA-Z0-9_:]*)(?P<labels>\{.*\})?\s+(?P<value>\S+)"
                    r"(\s+\S+)?$")
# the counters of tokens the engine processed (prefill) and produced (decode): vLLM's,
# SGLang's (with --enable-metrics: https://docs.sglang.io/references/production_metrics.html)
# and the transformers engine's (tfserver)
PROMPT_TOKENS = ("vllm:prompt_tokens_total", "sglang:prompt_tokens_total",
                 "chipperf:prompt_tokens_total")
GENERATION_TOKENS = ("vllm:generation_tokens_total", "sglang:generation_tokens_total",
                     "chipperf:generation_tokens_total")


def parse(text: str) -> tuple[list[tuple[str, str, float]], list[str]]:
    """(name, labels, value) of every sample line, and a problem per unreadable line."""
    samples, problems = [], []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        match = SAMPLE.match(line)
        try:
            value = float(match.group("value")) if match else None
        except ValueError:
            value = None
        if match is None or value is None:
            problems.append(f"line {number}: not a Prometheus sample: {line[:120]!r}")
            continue
        samples.append((match.group("name"), match.group("labels") or "", value))
    return samples, problems


def total(samples: Iterable[tuple[str, str, float]], name: str) -> float | None:
    """The sum of ``name`` over its label sets; None when the server exports no such counter."""
    values = [value for sample, _, value in samples if sample == name]
    return sum(values) if values else None


def first_total(samples: list[tuple[str, str, float]], names: Iterable[str]) -> float | None:
    """The total of the first of ``names`` the server exports."""
    return next((t for t in (total(samples, n) for n in names) if t is not None), None)


def token_counters(text: str) -> dict[str, float | None]:
    samples, _ = parse(text)
    return {"prompt_tokens": first_total(samples, PROMPT_TOKENS),
            "generation_tokens": first_total(samples, GENERATION_TOKENS)}
