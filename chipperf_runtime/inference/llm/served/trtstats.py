"""TensorRT-LLM's ``/metrics``: the iteration statistics since the last read, as a JSON list,
turned into the two token counters the sweep checks (pure).

trtllm-serve answers ``GET /metrics`` with the executor's iteration stats (openai_server.py
``get_iteration_stats``: ``get_stats_async``), one object per iteration, and a read takes them
(the next read has only newer ones); so the totals are kept here, read after read. An
iteration reports (``inflightBatchingStats``) the prompt tokens it prefilled (``numCtxTokens``)
and the requests it decoded a token for (``numGenRequests``), and ``numCompletedRequests``.
A request of N output tokens is one or more context iterations, whose last makes its first
token, then N - 1 generation iterations, then it completes (TensorRT-LLM's own test of its
stats, tests/unittest/llmapi/test_llm.py ``validate_stats``: ``generation_iterations =
max_tokens - 1``, ``numCompletedRequests`` 1 at the last). So, over whole requests:

    prompt tokens      = sum of numCtxTokens   (block reuse off: a reused block is not in it)
    generation tokens  = sum of numGenRequests + sum of numCompletedRequests

without speculative decoding (an iteration then makes more than one token per request) and
without attention data parallelism (one row per rank and iteration: only the first is read). This
derivation has not been run against a server (no GPU here): the first nvidia run shows it.
Iterations are numbered (``iter``): a gap means the server dropped some (its buffer of
``iter_stats_max_iterations`` overflowed), and the counts are then unknown, not wrong.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Optional


@dataclass
class IterationTotals:
    """The token counts of every iteration read so far, and why they cannot be trusted."""

    prompt_tokens: int = 0
    generation_tokens: int = 0
    last_iter: Optional[int] = None
    broken: list[str] = field(default_factory=list)

    def counters(self) -> dict[str, Optional[float]]:
        """As ``promtext.token_counters``: None where the counts are not known."""
        if self.broken:
            return {"prompt_tokens": None, "generation_tokens": None}
        return {"prompt_tokens": float(self.prompt_tokens),
                "generation_tokens": float(self.generation_tokens)}

    def add(self, rows: list[dict[str, Any]]) -> None:
        """Count the iterations newer than the last one counted (a row read twice is not)."""
        for row in sorted(rows, key=lambda r: r["iter"]):
            number = row["iter"]
            if self.last_iter is not None and number <= self.last_iter:
                continue
            if self.last_iter is not None and number > self.last_iter + 1:
                self.broken.append(f"iterations {self.last_iter + 1}..{number - 1} were not "
                                   "reported (the server's iteration buffer overflowed)")
            batch = row["inflightBatchingStats"]
            self.prompt_tokens += batch["numCtxTokens"]
            self.generation_tokens += batch["numGenRequests"] + row["numCompletedRequests"]
            self.last_iter = number


def parse(text: str) -> tuple[list[dict[str, Any]], list[str]]:
    """The iteration rows of one /metrics answer, and a problem per unreadable one."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        return [], [f"not JSON: {exc}: {text[:120]!r}"]
    if not isinstance(data, list):
        return [], [f"not a JSON list of iterations: {text[:120]!r}"]
    rows, problems = [], []
    for number, item in enumerate(data):
        row = _row(item)
        if isinstance(row, str):
            problems.append(f"iteration {number}: {row}")
        else:
            rows.append(row)
    return rows, problems


def _row(item: Any) -> dict[str, Any] | str:
    """One iteration (an object, or its JSON text as the C++ executor gives it), or why not."""
    if isinstance(item, str):
        try:
            item = json.loads(item)
        except ValueError:
            return f"not JSON: {item[:120]!r}"
    batch = item.get("inflightBatchingStats") if isinstance(item, dict) else None
    if not isinstance(batch, dict):
        return "no inflightBatchingStats (not an iteration of the inflight batcher)"
    wanted = [(item, "iter"), (item, "numCompletedRequests"), (batch, "numCtxTokens"),
              (batch, "numGenRequests")]
    missing = [name for where, name in wanted if not _count(where.get(name))]
    if missing:
        return f"no whole-number {', '.join(missing)}"
    return item


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0
