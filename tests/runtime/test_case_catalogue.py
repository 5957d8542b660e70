"""`chipperf cases` reads each case's case.yaml; the numbers there must match the models."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

from chipperf.commands.cases import catalogue_rows
from chipperf.suites.catalogue import default_training_dir

REPO = Path(__file__).resolve().parents[2]


def rows() -> dict[tuple[str, str], dict]:
    return {(r["model"], r["framework"]): r for r in catalogue_rows(default_training_dir())}


def case_module(case: str, name: str) -> ModuleType:
    """A case's module by path, under a name unique to this test (cases reuse module names)."""
    unique = f"catalogue_{case.replace('/', '_')}_{name}"
    spec = importlib.util.spec_from_file_location(
        unique, REPO / "training/benchmarks" / case / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[unique] = module
    spec.loader.exec_module(module)
    return module


def test_bert_and_llama2_full_size_numbers_match_their_models():
    """case.yaml's params and FLOPs are the ones the case code computes for the full-size model
    (the parameter counts themselves are checked against the published ones in test_bert_model,
    test_bert_paddle_model, which builds the paddle model, and test_llama2_model)."""
    import torch

    for path in (REPO / "training/benchmarks", REPO / "training/benchmarks/bert/pytorch",
                 REPO / "training/benchmarks/llama2_7b/deepspeed"):   # llama_train
        sys.path.insert(0, str(path))
    try:
        from chipperf_runtime.training.hftext.models import hf_model
        from chipperf_runtime.training.llmtrain import arch as llm_arch
        from chipperf_runtime.training.textlm import (
            bert as bert_arch,  # the architecture numbers both bert cases use
        )
        bert = case_module("bert/pytorch", "run_pretraining")
        llama = case_module("llama2_7b/deepspeed", "run_pretraining")
    finally:
        del sys.path[:3]
    from transformers import LlamaConfig, LlamaForCausalLM

    large, seven_b = bert_arch.PRESETS["large"], llama.PRESETS["7b"]
    with torch.device("meta"):
        bert_net = hf_model("bert", bert.PRESETS["large"])
        llama_net = LlamaForCausalLM(LlamaConfig(**seven_b))
    table = rows()
    for framework in ("pytorch", "paddle"):
        assert table[("bert", framework)]["params"] == bert_arch.parameter_count(large) == \
            sum(p.numel() for p in bert_net.parameters())
        assert table[("bert", framework)]["flops_per_unit"] == \
            bert_arch.train_flops_per_sequence(large, 512)
    assert table[("llama2_7b", "deepspeed")]["params"] == \
        sum(p.numel() for p in llama_net.parameters())
    assert table[("llama2_7b", "deepspeed")]["flops_per_unit"] == \
        llm_arch.train_flops_per_token(seven_b, seven_b["max_position_embeddings"])


def test_resnet50_pytorch_full_size_numbers_match_the_model():
    import torch  # torch==2.13.0 (CPU) is in the test requirements

    from chipperf_runtime.models.resnet import flops_per_sample, resnet50

    with torch.device("meta"):
        model = resnet50(num_classes=1000)
    row = rows()[("resnet50", "pytorch")]
    assert row["params"] == sum(p.numel() for p in model.parameters()) == 25_557_032
    assert row["flops_per_unit"] == flops_per_sample(model, 224).training
    assert "cpu" in row["vendors"] and "config_xeonx2x1.py" in row["configs"]["cpu"]


def test_cases_cli_json_lists_every_standard_case():
    out = subprocess.run([sys.executable, "-m", "chipperf.cli", "cases", "--json"], cwd=REPO,
                         capture_output=True, text=True, check=True).stdout
    listed = {(r["model"], r["framework"]) for r in json.loads(out)}
    on_disk = {(p.parent.parent.name, p.parent.name)
               for p in (REPO / "training/benchmarks").glob("*/*/run_pretraining.py")}
    assert listed == on_disk
