"""The ``implementation`` knob of the LLM cases FlagPerf runs under Megatron (llama3_8B,
llama3_70B, mixtral_8x7B, llama2_70B): which code trains the model. Shared by the case (which
dispatches on it), the plan (which checks it) and the results (whose workload fingerprint
keeps the implementations apart: ``chipperf.results.compute.fingerprint``)."""

from __future__ import annotations

KNOB = "implementation"
NATIVE = "native"                 # transformers' model, DTensor TP + FSDP2, chipperf's loop
MEGATRON_CORE = "megatron_core"   # Megatron-Core's GPTModel and schedule (llmtrain.nvidia.megatron)
IMPLEMENTATIONS = (NATIVE, MEGATRON_CORE)


def fingerprint_suffix(value: object) -> str:
    """What a case's fingerprint adds for its implementation: nothing for the native one (so
    runs from before the knob stay comparable), ``+megatron_core`` for Megatron-Core's."""
    return f"+{value}" if isinstance(value, str) and value and value != NATIVE else ""
