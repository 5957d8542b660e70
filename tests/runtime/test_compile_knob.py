"""The compile knob (driver/torchknobs.py) trains as eager does: llama3_8B's tiny preset,
one process, llmtrain's own model building (each decoder layer compiled by Inductor, C++
kernels on the CPU) and loop, 3 AdamW steps and the eval loss, against the same run eager.
Both runs go in this test's process (llm_layout_steps.main), so torch and transformers are
imported once."""

from __future__ import annotations

import json
from pathlib import Path

import llm_layout_steps

# Inductor fuses and reorders fp32 arithmetic: measured relative differences at most 1.4e-7
# after 3 steps (this CPU, torch 2.13); 1e-3 is far below what a wrong compiled graph does (a
# dropped residual or mask moves the losses by >10 %).
RTOL = 1e-3


def run(out: Path, *overrides: str) -> list[float]:
    llm_layout_steps.main("llama3_8B", out, list(overrides))
    result = json.loads(out.read_text())
    return [*result["losses"], result["eval_loss"]]


def test_compiled_decoder_layers_train_as_eager(tmp_path: Path) -> None:
    eager = run(tmp_path / "eager.json")
    compiled = run(tmp_path / "compiled.json", "compile=True")
    assert len(compiled) == len(eager) == 4, (compiled, eager)
    for a, b in zip(compiled, eager):
        assert abs(a - b) <= RTOL * abs(b), (compiled, eager)
