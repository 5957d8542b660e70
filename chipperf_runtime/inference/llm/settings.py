"""The keys of an LLM serving case, as one frozen typed object (every problem at once).

The model's shape keys (hidden_size, ...) stay in the configuration mapping; ``model.py``
reads them. See docs/inference.md, "LLM serving", for what each key means.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Optional

from chipperf_runtime.device import DEVICE_KINDS
from chipperf_runtime.inference.llm.prompts import Lengths
from chipperf_runtime.inference.loadgen_rules import scenario_problems
from chipperf_runtime.inference.settings import Targets, from_keys
from chipperf_runtime.inference.stats import PERCENTILES

# torch's scaled_dot_product_attention backends a config may name (torch.nn.attention.SDPBackend)
SDPA_BACKENDS = {"flash": "FLASH_ATTENTION", "efficient": "EFFICIENT_ATTENTION",
                 "cudnn": "CUDNN_ATTENTION", "math": "MATH"}

WHOLE = ("batch_size", "repeat", "offline_requests", "single_stream_requests",
         "server_requests", "accuracy_requests", "prompt_tokens_min", "prompt_tokens_max",
         "output_tokens_min", "output_tokens_max")


@dataclass(frozen=True)
class LLMSettings(Targets):
    model: str
    engine: str
    precision: str
    device: Optional[str]
    batch_size: int
    seed: int
    repeat: int
    tokenizer_file: Optional[str]
    prompt_tokens_min: int
    prompt_tokens_max: int
    output_tokens_min: int
    output_tokens_max: int
    warmup_requests: int
    offline_requests: int
    single_stream_requests: int
    server_requests: int
    server_rates: tuple
    server_load_fractions: tuple
    ttft_bound_ms: float
    tpot_bound_ms: float
    bound_percentile: int
    scenarios: tuple                 # MLPerf LoadGen's scenarios to run (loadgen.SCENARIOS)
    loadgen_min_duration_ms: int     # LoadGen's min_duration_ms (MLPerf: 600000)
    loadgen_max_duration_ms: int     # LoadGen's max_duration_ms (0: none)
    offline_expected_qps: float
    single_stream_expected_latency_ms: float
    accuracy_requests: int
    agreement_target: Mapping[str, float]
    tolerance: Mapping[str, Mapping[str, float]]
    num_threads: Optional[int]
    compile_mode: str
    vllm_gpu_memory_utilization: float
    sdpa_backends: str               # "all" (torch's choice) or SDPA_BACKENDS' names, comma-separated

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> "LLMSettings":
        return from_keys(cls, config)

    @property
    def prompt(self) -> Lengths:
        return Lengths(self.prompt_tokens_min, self.prompt_tokens_max)

    @property
    def output(self) -> Lengths:
        return Lengths(self.output_tokens_min, self.output_tokens_max)

    def problems(self) -> list[str]:
        out = [f"{name}: must be a whole number >= 1, got {getattr(self, name)!r}"
               for name in WHOLE if not _whole(getattr(self, name), 1)]
        if not _whole(self.warmup_requests, 0):
            out.append(f"warmup_requests: must be a whole number >= 0, got {self.warmup_requests!r}")
        for low, high in (("prompt_tokens_min", "prompt_tokens_max"),
                          ("output_tokens_min", "output_tokens_max")):
            if _whole(getattr(self, low), 1) and _whole(getattr(self, high), 1) \
                    and getattr(self, low) > getattr(self, high):
                out.append(f"{low} {getattr(self, low)} exceeds {high} {getattr(self, high)}")
        out += self._server_problems() + scenario_problems(self.__dict__)
        if self.num_threads is not None and not _whole(self.num_threads, 1):
            out.append(f"num_threads: must be null or a whole number >= 1, got {self.num_threads!r}")
        if self.sdpa_backends != "all" and not all(
                b in SDPA_BACKENDS for b in str(self.sdpa_backends).split(",")):
            out.append(f"sdpa_backends: must be all, or some of {', '.join(SDPA_BACKENDS)} "
                       f"separated by commas, got {self.sdpa_backends!r}")
        if self.device is not None and self.device not in DEVICE_KINDS:
            out.append(f"device: {self.device!r} is unknown: leave it out (the vendor names the "
                       f"device) or use one of {', '.join(DEVICE_KINDS)}")
        return out

    def _server_problems(self) -> list[str]:
        out = []
        values = self.server_load_fractions   # server_rates: loadgen_rules.scenario_problems
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0
                   for v in values):
            out.append(f"server_load_fractions: must be a list of numbers > 0, got {list(values)!r}")
        if not self.server_rates and not self.server_load_fractions:
            out.append("server_rates and server_load_fractions are both empty: give one")
        for name in ("ttft_bound_ms", "tpot_bound_ms"):
            if not getattr(self, name) > 0:
                out.append(f"{name}: must be > 0, got {getattr(self, name)!r}")
        if self.bound_percentile not in PERCENTILES:
            out.append(f"bound_percentile: must be one of {', '.join(map(str, PERCENTILES))}, "
                       f"got {self.bound_percentile!r}")
        return out


def _whole(value: Any, low: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= low
