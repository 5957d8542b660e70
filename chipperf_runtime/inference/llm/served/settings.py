"""The keys of the served mode (engine ``vllm_server``), one frozen typed object.

See docs/inference.md, "Served: a real engine behind its OpenAI server", for each key.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Optional

from chipperf_runtime.inference.errors import CaseError
from chipperf_runtime.inference.llm.served import lmtasks
from chipperf_runtime.inference.llm.served.choice import FALLBACKS, SERVED_ENGINES
from chipperf_runtime.inference.llm.served.loadgen import Shape
from chipperf_runtime.inference.llm.served.sweep import SHAPES
from chipperf_runtime.inference.settings import from_keys

# when the accuracy questions (the guard's, lm-eval's) are asked: never inside the timed window
ACCURACY_WHEN = ("after_sweep", "before_sweep")


@dataclass(frozen=True)
class ServedSettings:
    serve_shapes: tuple               # names of serve_shape_tokens to sweep
    serve_shape_tokens: Mapping[str, Any]   # name -> [input tokens, output tokens]
    serve_concurrency: tuple
    serve_request_rates: tuple        # fixed request rates (requests/s) beside the sweep
    serve_rate_prompts: int           # prompts sent at each fixed rate
    serve_slo_ttft_ms: Optional[float]   # goodput's SLO: a request meets it when its TTFT and
    serve_slo_tpot_ms: Optional[float]   # TPOT are at most these (null: no limit on that one)
    serve_chip_hour_price: Optional[float]   # the user's price of one chip for an hour
    serve_currency: str               # what that price is in (a label: no prices are built in)
    serve_check_prompts: int          # accuracy guard: seeded token-id prompts (0: none)
    serve_check_tokens: int           # greedy output tokens per guard prompt
    serve_prompts_per_user: int
    serve_port: int
    serve_ready_timeout_s: float
    serve_point_timeout_s: float
    serve_chips: int
    serve_memory_utilization: float   # vLLM's --gpu-memory-utilization (on CPU: of host memory)
    serve_engine_args: tuple          # more server arguments, one argv item each
    serve_engine_env: Mapping[str, Any]   # NAME: value, more environment of the server
    serve_lmeval_tasks: tuple         # lm-eval tasks asked of the server after the sweep (lmtasks.py)
    serve_lmeval_limit: Optional[int]   # examples per task (lm-eval's --limit); null: all
    serve_lmeval_local_tasks: Mapping[str, Any]   # name -> {kind, data_file}: the user's own sets
    serve_lmeval_timeout_s: float     # the harness run is killed past it (the sweep is kept)
    serve_accuracy_when: str          # after_sweep | before_sweep: when the guard and lm-eval ask
    model_dir: Optional[str]
    serve_fallback: Optional[str]     # null, or transformers: the engine where vLLM cannot run

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> "ServedSettings":
        return from_keys(cls, config)

    def shapes(self) -> list[Shape]:
        return [Shape(name, *map(int, self.serve_shape_tokens[name])) for name in self.serve_shapes]

    def goodput(self) -> tuple[str, ...]:
        """vLLM bench serve's ``--goodput`` pairs of the SLO; () when none is set."""
        limits = (("ttft", self.serve_slo_ttft_ms), ("tpot", self.serve_slo_tpot_ms))
        return tuple(f"{name}:{value:g}" for name, value in limits if value is not None)

    def engine_env(self) -> tuple[tuple[str, str], ...]:
        """serve_engine_env as the server's environment entries (numbers written as text)."""
        return tuple((name, str(value)) for name, value in self.serve_engine_env.items())

    def shape_record(self) -> list[dict[str, Any]]:
        """Each shape with InferenceMAX's tokens beside the run's: ``reduced`` when smaller."""
        out = []
        for shape in self.shapes():
            full = SHAPES.get(shape.name)
            out.append({"name": shape.name, "input_tokens": shape.input_tokens,
                        "output_tokens": shape.output_tokens,
                        "inferencemax_tokens": list(full) if full else None,
                        "reduced": full is not None
                        and (shape.input_tokens, shape.output_tokens) != full})
        return out

    def problems(self) -> list[str]:
        out = [f"serve_shapes: {name!r} is not in serve_shape_tokens ("
               f"{', '.join(self.serve_shape_tokens)}): add it there or drop it"
               for name in self.serve_shapes if name not in self.serve_shape_tokens]
        for name, tokens in self.serve_shape_tokens.items():
            if not (isinstance(tokens, (list, tuple)) and len(tokens) == 2
                    and all(_whole(t, 1) for t in tokens)):
                out.append(f"serve_shape_tokens.{name}: must be [input tokens, output tokens], "
                           f"whole numbers >= 1, got {tokens!r}")
        if not self.serve_concurrency or not all(_whole(c, 1) for c in self.serve_concurrency):
            out.append(f"serve_concurrency: every value must be a whole number >= 1, got "
                       f"{list(self.serve_concurrency)!r}: list the numbers of concurrent users "
                       "to sweep, e.g. [1, 2, 4]")
        out += self._load_problems()
        out += lmtasks.problems(self.serve_lmeval_tasks, self.serve_lmeval_limit,
                                self.serve_lmeval_local_tasks, self.serve_lmeval_timeout_s)
        if not _whole(self.serve_check_prompts, 0):
            out.append("serve_check_prompts: must be a whole number >= 0, got "
                       f"{self.serve_check_prompts!r}")
        for name in ("serve_prompts_per_user", "serve_chips", "serve_rate_prompts",
                     "serve_check_tokens"):
            if not _whole(getattr(self, name), 1):
                out.append(f"{name}: must be a whole number >= 1, got {getattr(self, name)!r}")
        if not _whole(self.serve_port, 1) or self.serve_port > 65535:
            out.append(f"serve_port: must be a TCP port 1..65535, got {self.serve_port!r}")
        if not all(isinstance(a, str) for a in self.serve_engine_args):
            out.append("serve_engine_args: must be a list of strings (one argument each), got "
                       f"{list(self.serve_engine_args)!r}")
        env = self.serve_engine_env
        if not (isinstance(env, Mapping) and all(
                isinstance(k, str) and k and "=" not in k and isinstance(v, (str, int, float))
                and not isinstance(v, bool) for k, v in env.items())):
            shown = dict(env) if isinstance(env, Mapping) else env
            out.append("serve_engine_env: must be a mapping of environment variable names to "
                       f"values (strings or numbers), got {shown!r}")
        if not 0 < self.serve_memory_utilization <= 1:
            out.append("serve_memory_utilization: must be in (0, 1], got "
                       f"{self.serve_memory_utilization!r}")
        if self.model_dir is not None and not (isinstance(self.model_dir, str)
                                               and self.model_dir.startswith("/")):
            out.append(f"model_dir: must be null or an absolute path (the folder as the case's "
                       f"container sees it), got {self.model_dir!r}")
        if self.serve_accuracy_when not in ACCURACY_WHEN:
            out.append(f"serve_accuracy_when: must be one of {', '.join(ACCURACY_WHEN)} (when the "
                       f"accuracy guard and lm-eval ask the server), got "
                       f"{self.serve_accuracy_when!r}")
        if self.serve_fallback not in (None, *FALLBACKS):
            out.append(f"serve_fallback: must be null or one of {', '.join(FALLBACKS)}, got "
                       f"{self.serve_fallback!r}")
        for name in ("serve_ready_timeout_s", "serve_point_timeout_s"):
            if not getattr(self, name) > 0:
                out.append(f"{name}: must be > 0, got {getattr(self, name)!r}")
        return out


    def _load_problems(self) -> list[str]:
        out = []
        if not all(_positive(r) for r in self.serve_request_rates):
            out.append("serve_request_rates: must be a list of requests/s > 0, got "
                       f"{list(self.serve_request_rates)!r}")
        for name in ("serve_slo_ttft_ms", "serve_slo_tpot_ms", "serve_chip_hour_price"):
            value = getattr(self, name)
            if value is not None and not _positive(value):
                out.append(f"{name}: must be null or a number > 0, got {value!r}")
        return out


def served_problems(config: Mapping[str, Any]) -> list[str]:
    """Every problem of the served keys, for a configuration whose engine is a served one
    (the plan asks, on the master, so a bad key is exit 2 before anything starts)."""
    if config.get("engine") not in SERVED_ENGINES:
        return []
    try:
        ServedSettings.from_config(config)
    except CaseError as exc:
        lines = str(exc).splitlines()
        return [line.strip() for line in lines[1:]] if len(lines) > 1 else lines
    return []


def _positive(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value < 1e12


def _whole(value: Any, low: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= low
