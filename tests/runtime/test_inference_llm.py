"""The LLM serving pieces without a model: shipped configs, Llama 3 8B's shape, the serving
figures of known request times, and the scenarios run by MLPerf LoadGen on a generator that
sleeps a fixed time per step, including a rate whose latency bound fails."""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest
import torch

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "inference" / "benchmarks"))

from vendorlists import inference_vendor_files  # noqa: E402

from chipperf_runtime.inference import config  # noqa: E402
from chipperf_runtime.inference.errors import CaseError  # noqa: E402
from chipperf_runtime.inference.llm import model, preset, scenarios  # noqa: E402
from chipperf_runtime.inference.llm.engines import Accounting, Completion  # noqa: E402
from chipperf_runtime.inference.llm.loadgen_sut import Limits  # noqa: E402
from chipperf_runtime.inference.llm.prompts import Request  # noqa: E402
from chipperf_runtime.inference.llm.serving import ScenarioRun, Served, meets_bound, summarize  # noqa: E402
from chipperf_runtime.inference.llm.settings import LLMSettings  # noqa: E402

CONFIG = REPO / "inference" / "configs" / "llama3_8b"


@pytest.mark.parametrize("vendor", inference_vendor_files(CONFIG))
def test_shipped_configs_load_and_validate(vendor: str) -> None:
    merged = config.load(CONFIG, f"{vendor}_configuration.yaml")
    s = LLMSettings.from_config(merged)
    llama = model.llama_config(merged)
    assert s.prompt_tokens_max + s.output_tokens_max <= llama.max_position_embeddings


def test_a_tolerance_that_is_not_a_number_is_named_not_a_traceback() -> None:
    merged = dict(config.load(CONFIG, "cpu_configuration.yaml"))
    merged["tolerance"] = {"default": {merged["precision"]: "tight"}}
    merged["agreement_target"] = {merged["precision"]: [0.9]}
    s = LLMSettings.from_config(merged)
    key = f"tolerance.default.{merged['precision']}"
    with pytest.raises(CaseError, match=f"{key}: expected a number, got 'tight'"):
        s.tolerance_for(s.engine, s.precision)
    with pytest.raises(CaseError, match=r"agreement_target\..*: expected a number, got \[0.9\]"):
        s.agreement_for(s.precision)


def test_sdpa_backends_restrict_the_attention_kernels_and_a_wrong_name_is_a_problem() -> None:
    """``sdpa_backends`` names torch's SDPA kernels generate may use: the nvidia config leaves
    cuDNN's out; "all" changes nothing; a name torch does not have is one clear problem."""
    from torch.nn.attention import SDPBackend

    from chipperf_runtime.inference.llm import engines

    nvidia = LLMSettings.from_config(config.load(CONFIG, "nvidia_configuration.yaml"))
    cpu = LLMSettings.from_config(config.load(CONFIG, "cpu_configuration.yaml"))
    assert engines.backends_of(nvidia) == ("flash", "efficient", "math")
    assert engines.backends_of(cpu) == () and cpu.problems() == []
    q = torch.randn(1, 2, 4, 8)
    with engines.attention(("math",)):
        assert torch._fused_sdp_choice(q, q, q) == SDPBackend.MATH.value
        out = torch.nn.functional.scaled_dot_product_attention(q, q, q, is_causal=True)
    with engines.attention(()):     # torch's own choice again (on the CPU its flash kernel)
        assert torch.allclose(out, torch.nn.functional.scaled_dot_product_attention(
            q, q, q, is_causal=True), atol=1e-5)
    merged = dict(config.load(CONFIG, "cpu_configuration.yaml"))
    merged["sdpa_backends"] = "flash,warp"
    with pytest.raises(CaseError, match="configuration problems:\n  sdpa_backends: must be all, or "
                       "some of flash, efficient, cudnn, math separated by commas, got 'flash,warp'"):
        LLMSettings.from_config(merged)


def test_full_size_is_llama3_8b() -> None:
    llama = model.llama_config(config.load(CONFIG, "nvidia_configuration.yaml"))
    from transformers import LlamaForCausalLM

    with torch.device("meta"):
        net = LlamaForCausalLM(llama)
    assert model.parameter_count(net) == (8_030_261_248, 128_256 * 4096)  # published count
    assert model.flops_per_token(net, 0) == 2 * (8_030_261_248 - 128_256 * 4096)


def done(index: int, tokens: int, first: float, last: float) -> Completion:
    return Completion(Request(index, (5, 6, 7), tokens), (9,) * tokens, 0.0, first, last)


def test_serving_figures_of_known_times() -> None:
    run = ScenarioRun((Served(done(0, 5, 1.0, 3.0), 0.0), Served(done(1, 1, 2.0, 2.0), 0.5)),
                      engine_s=3.0, harness_s=0.03)
    f = summarize(run)
    assert f["span_s"] == 3.0 and f["tokens_per_s"] == 2.0 and f["requests_per_s"] == 2 / 3
    # linear interpolation between the closest ranks (chipperf_runtime.timing.percentile)
    assert f["ttft_ms"]["p50"] == 1250.0 and f["ttft_ms"]["p99"] == pytest.approx(1495.0)
    assert f["tpot_ms"]["count"] == 1 and f["tpot_ms"]["p50"] == 500.0  # one-token: no TPOT
    assert f["latency_ms"]["max"] == 3000.0 and f["harness_share"] == pytest.approx(0.03 / 3.03)
    assert meets_bound(f, 1500.0, 500.0, 99) == (True, "")
    assert meets_bound(f, 1000.0, 400.0, 99) == (
        False, "p99 TTFT 1495.0 ms > 1000 ms; p99 TPOT 500.0 ms > 400 ms")


@dataclass
class SleepingEngine:
    """Sleeps ``step_s`` per decoding step of a batch (no model) and records each batch's size;
    calls ``on_first_token`` after the first step, as TransformersGenerator does."""

    step_s: float
    accounting: Accounting = field(default_factory=Accounting)
    batches: list[int] = field(default_factory=list)
    on_first_token: object = None

    def generate(self, requests):
        self.batches.append(len(requests))
        start = time.perf_counter()
        time.sleep(self.step_s)
        if callable(self.on_first_token):
            self.on_first_token()
        first = time.perf_counter()
        time.sleep(self.step_s * (max(r.max_new_tokens for r in requests) - 1))
        last = time.perf_counter()
        self.accounting.engine_s += last - start
        return [Completion(r, (1,) * r.max_new_tokens, start, first, last) for r in requests]

    def logits(self, ids):
        return None


REQUESTS = [Request(i, (1, 2), 4) for i in range(20)]
LIMITS = Limits(min_duration_ms=1, max_duration_ms=0, min_query_count=20,
                offline_expected_qps=1.0, single_stream_expected_latency_ms=1000.0,
                ttft_ms=10_000.0, tpot_ms=2_000.0, percentile=99)


def test_loadgen_offline_issues_everything_at_once_and_single_stream_one_by_one(tmp_path) -> None:
    gen = SleepingEngine(0.001)
    offline = scenarios.offline(gen, REQUESTS, 8, LIMITS, tmp_path)
    assert gen.batches == [8, 8, 4] and offline["requests"] == 20   # all queued at once
    assert offline["loadgen"]["scenario"] == "Offline" and offline["loadgen"]["logs"] == \
        f"{tmp_path.name}/offline"
    gen = SleepingEngine(0.001)
    single = scenarios.single_stream(gen, REQUESTS[:3], replace(LIMITS, min_query_count=3),
                                     tmp_path)
    assert gen.batches == [1, 1, 1] and single["ttft_ms"]["count"] == 3
    assert single["loadgen"]["first_token"].startswith("as it reached the host")


def test_loadgen_server_search_stops_at_the_first_rate_whose_bound_fails(tmp_path) -> None:
    gen = SleepingEngine(0.002)
    bound = scenarios.Bound(ttft_ms=1.0, tpot_ms=2_000.0, percentile=99)   # TTFT >= 2 ms here
    result = scenarios.search(gen, REQUESTS, 2, [200.0, 100.0], replace(LIMITS, ttft_ms=1.0),
                              bound, tmp_path)
    assert [r["target_rate"] for r in result["rates"]] == [100.0]   # ascending, stops at a miss
    assert result["max_rate_meeting_bound"] is None and result["rates"][0]["requests"] == 20
    assert "p99 TTFT" in result["rates"][0]["why_not"]


def test_warm_up_and_compiled_batches_use_power_of_two_sizes() -> None:
    from chipperf_runtime.inference.llm.engines import batch_sizes

    assert batch_sizes(1) == [1] and batch_sizes(4) == [1, 2, 4]
    assert batch_sizes(32) == [1, 2, 4, 8, 16, 32] and batch_sizes(6) == [1, 2, 4, 6]


def test_vllm_generator_times_first_and_last_tokens_from_engine_steps() -> None:
    """The vLLM adapter against an engine with vLLM's step interface (one token per request
    per step, cumulative token ids, ``finished`` on the last): no GPU here to run vLLM."""
    from types import SimpleNamespace

    from chipperf_runtime.inference.llm.nvidia.vllm_engine import VllmGenerator

    class Steps:
        def __init__(self) -> None:
            self.live: dict[str, list] = {}

        def add_request(self, request_id, prompt, params) -> None:
            self.live[request_id] = [prompt["prompt_token_ids"], params.max_tokens, []]

        def step(self):
            out = []
            for rid, (_prompt, limit, tokens) in list(self.live.items()):
                tokens.append(len(tokens) + 100)
                done = len(tokens) == limit
                out.append(SimpleNamespace(request_id=rid, finished=done, outputs=[
                    SimpleNamespace(token_ids=list(tokens))]))
                if done:
                    del self.live[rid]
            return out

    params = SimpleNamespace(max_tokens=None, clone=lambda: SimpleNamespace(max_tokens=None))
    gen = VllmGenerator(Steps(), params)
    got = gen.generate([Request(0, (5, 6), 3), Request(1, (7,), 1)])
    assert [c.tokens for c in got] == [(100, 101, 102), (100,)]
    assert got[0].start <= got[0].first < got[0].last and got[1].first == got[1].last
    assert gen.accounting.engine_s > 0 and gen.logits(torch.zeros(1, 1)) is None


def test_the_cpu_preset_of_llama3_8b_is_reduced_with_its_real_and_full_counts() -> None:
    llama = REPO / "inference" / "configs" / "llama3_8b"
    base = preset.base_config(llama)
    cpu = config.load(llama, "cpu_configuration.yaml")
    built = model.build(model.llama_config(cpu), torch.device("cpu"), 0)
    params = model.parameter_count(built)[0]
    assert preset.llama_parameters(cpu) == params          # the formula counts what is built
    record = preset.preset_record(cpu, base, params)
    assert record is not None and record["params"] == params
    assert 8.02e9 < record["full_params"] < 8.04e9       # Llama 3 8B: 8.03 B
    assert record["changes"]["num_layers"] == [2, 32]
    assert record["changes"]["vocab_size"] == [512, 128256]
    assert preset.preset_record(base, base, record["full_params"]) is None   # the full model
