"""FlagPerf's results that are not PerfLog: LLM case text lines and inference ``Finish Info``.

Pure parsers: lines in, (values, problems) out; each problem names its line.

LLM cases (FlagPerf's deepspeed / megatron / flagscale ``run_pretraining.py``) print, on
rank 0, after training::

    Step 10/1000, Loss: tensor(2.3456, device=..., ...)   deepspeed, every 10 steps
    ... | lm loss: 2.345678E+00 | ...                          megatron iteration lines
    System tokens per second:  123456.7
    Tokens/p/s:  15432.1                                       per chip
    Theory TFLOPS:  312
    MFU:  0.456                                                a share, not a percentage

An inference case logs one ``Finish Info {...}`` line: a Python dict literal with
``e2e_time(second)``, ``p_inference_whole(qps)``, ``*p_inference_core(qps)``, ``precision``,
``batchsize``, ``flops`` and the accuracies.
"""

from __future__ import annotations

import ast
import re
from typing import Any, Iterable

_NUMBER = r"(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)"
_LLM_LINES = {
    "system_tokens_per_s": re.compile(rf"^System tokens per second:\s*{_NUMBER}\s*$"),
    "tokens_per_chip_per_s": re.compile(rf"^Tokens/p/s:\s*{_NUMBER}\s*$"),
    "theory_tflops": re.compile(rf"^Theory TFLOPS:\s*{_NUMBER}\s*$"),
    "mfu": re.compile(rf"^MFU:\s*{_NUMBER}\s*$"),
}
_LOSS = (re.compile(rf"\bLoss:\s*(?:tensor\()?{_NUMBER}"), re.compile(rf"\blm loss:\s*{_NUMBER}"))
_REQUIRED = (("System tokens per second", "system_tokens_per_s"), ("MFU", "mfu"))
_FINISH = "Finish Info"


def parse_llm_log(lines: Iterable[str]) -> tuple[dict[str, float], list[str]]:
    """MFU, tokens/s (system and per chip), theory TFLOPS and the final loss of an LLM log."""
    values: dict[str, float] = {}
    problems: list[str] = []
    last = 0
    for number, text in enumerate(lines, start=1):
        last = number
        text = text.strip()
        for name, pattern in _LLM_LINES.items():
            match = pattern.match(text)
            if match:
                values[name] = float(match[1])
        for pattern in _LOSS:
            match = pattern.search(text)
            if match:
                values["final_loss"] = float(match[1])
    missing = [label for label, key in _REQUIRED if key not in values]
    if missing:
        problems.append(f"line {last}: the log ends without FlagPerf's {' and '.join(missing)} "
                        "line(s): the case did not finish (or the log is truncated)")
    if "mfu" in values and not 0 < values["mfu"] <= 1:
        problems.append(f"MFU {values['mfu']} is not a share in (0, 1]")
    return values, problems


def parse_finish_info(lines: Iterable[str]) -> tuple[dict[str, Any], list[str]]:
    """The ``Finish Info`` dict of a FlagPerf inference log ({} and a problem when absent)."""
    last = 0
    for number, text in enumerate(lines, start=1):
        last = number
        if _FINISH not in text:
            continue
        start = text.find("{", text.index(_FINISH))
        try:
            value = ast.literal_eval(text[start:].strip()) if start >= 0 else None
        except (ValueError, SyntaxError):
            value = None
        if not isinstance(value, dict):
            return {}, [f"line {number}: 'Finish Info' is not followed by a dict literal "
                        "(truncated line?)"]
        return {str(k): v for k, v in value.items()}, []
    return {}, [f"line {last}: no 'Finish Info' line: the case did not finish (or the log is "
                "truncated)"]
