"""llama2_70B / PyTorch: Llama-2-70B (transformers' LlamaForCausalLM, built from its config)
trained as a causal LM with tensor parallelism (DTensor) inside a node, pipeline stages
(torch.distributed.pipelining) and FSDP2 across, under torchrun; FlagPerf's llama2_70B laid out
as its Megatron configs lay it out (TP 8 x PP 4).

The model's shapes are data (model.json: ``70b`` full size, ``tiny`` CI); the entry, mesh,
pipeline, model building, loop and FINISHED are the shared LLM case (``llmtrain.llama``,
``llmtrain``). See README.md.
"""

from __future__ import annotations

from pathlib import Path

from chipperf_runtime.training.llmtrain.llama import llama_case, run_llama

CASE_DIR, SPEC = llama_case(Path(__file__).resolve().parent)

if __name__ == "__main__":
    run_llama(CASE_DIR, SPEC)
