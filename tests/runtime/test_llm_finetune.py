"""llama2_7b_finetune: the meta-built, peft-injected full-size model is case.yaml's and the
published count, the LoRA FLOPs formula, FlagPerf's SAMSum layout read (and refused when
wrong), a LoRA rank of 0 refused at plan time and at start, and the shipped configs plan."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from casemodules import BENCHMARKS, REPO, load_case_module
from llmplan import chipperf_own, llm_catalogue

from chipperf.config.model import CaseEntry, CaseKey, ClusterConfig, TestConfig
from chipperf.plan import check
from chipperf.suites.catalogue import Catalogue

CASE = "llama2_7b_finetune"
# peft's print_trainable_parameters for Llama-2-7b-hf with r 8 on q_proj and v_proj (FlagPerf's
# recipe): "trainable params: 4,194,304 || all params: 6,742,609,920" (the figure LoRA
# tutorials quote for get_peft_model on Llama-2-7b-hf); the base alone is 6,738,415,616
PUBLISHED = {"trainable": 4_194_304, "total": 6_742_609_920, "base": 6_738_415_616}
SEQ = 4096
Q_V = ["q_proj", "v_proj"]


def module() -> Any:
    return load_case_module(f"{CASE}/pytorch", "run_pretraining", "llm_finetune_case")


def with_lora(size: str, rank: int = 8, targets: list[str] = Q_V) -> Any:
    import torch
    from peft import LoraConfig, inject_adapter_in_model

    spec = module().SPEC
    with torch.device("meta"):
        model = spec.model_class(spec.config_class(**spec.presets[size]))
    return inject_adapter_in_model(LoraConfig(r=rank, lora_alpha=32, target_modules=targets),
                                   model)


def counts(model: Any) -> dict[str, int]:
    params = list(model.parameters())
    return {"trainable": sum(p.numel() for p in params if p.requires_grad),
            "total": sum(p.numel() for p in params)}


def test_case_yaml_holds_the_published_lora_model_built_on_meta() -> None:
    from chipperf_runtime.training.llmtrain import arch

    presets = module().SPEC.presets
    built = {size: counts(with_lora(size)) for size in presets}
    assert built["7b"] == {"trainable": PUBLISHED["trainable"], "total": PUBLISHED["total"]}
    assert arch.parameter_count(presets["7b"]) == PUBLISHED["base"]
    meta = yaml.safe_load((BENCHMARKS / CASE / "pytorch" / "case.yaml").read_text())
    assert meta["full_size"] == {
        "params": PUBLISHED["total"],
        "flops_per_unit": arch.lora_train_flops_per_token(presets["7b"], SEQ, 8, Q_V)}
    assert meta["memory"]["params"] == {s: c["total"] for s, c in built.items()}
    for size, c in built.items():
        assert arch.lora_params(presets[size], 8, Q_V) == c["trainable"]


def test_lora_flops_count_the_frozen_base_4n_and_the_adapters_6n() -> None:
    """Forward 2 + input gradient 2 per frozen weight (no weight gradient), 6 per adapter
    weight, the attention scores as in pretraining; every target adds r x (in + out)."""
    from chipperf_runtime.training.llmtrain import arch

    values = module().SPEC.presets["7b"]
    frozen = 32 * (4 * 4096 * 4096 + 3 * 4096 * 11008) + 4096 * 32000
    adapters = 32 * 2 * 8 * (4096 + 4096)
    assert arch.matmul_params(values) == frozen == 6_607_077_376
    assert arch.lora_train_flops_per_token(values, SEQ, 8, Q_V) == \
        4 * frozen + 6 * adapters + 12 * 32 * 4096 * SEQ == 32_895_926_272
    every = list(arch.lora_widths(values))
    assert counts(with_lora("7b", 16, every))["trainable"] == \
        arch.lora_params(values, 16, every) == 16 * 32 * (4 * 8192 + 3 * (4096 + 11008))


def test_the_samsum_layout_is_read_with_flagperf_s_prompt(tmp_path: Path) -> None:
    from chipperf_runtime.training.textlm import bytelevel, samsum

    samsum.write_generated(tmp_path, 30, 5, seed=7)
    data = samsum.open_samsum(tmp_path, 64, 259, "prepare_data.py")
    train = json.loads((tmp_path / "samsum_dataset" / "train.json").read_text())
    stream = sum(len(bytelevel.encode(samsum.text(s))) for s in train)
    assert len(data.train) == (stream - 1) // 64
    first = data.train.take([0])[0]
    assert first[0] == bytelevel.BOS
    prompt = bytes(int(t) - bytelevel.BYTE_OFFSET for t in first[1:23]).decode()
    assert prompt == "Summarize this dialog:"


def test_a_wrong_samsum_folder_names_every_problem(tmp_path: Path) -> None:
    from chipperf_runtime.training.driver import DataError
    from chipperf_runtime.training.textlm import samsum

    folder = tmp_path / "samsum_dataset"
    folder.mkdir()
    (folder / "train.json").write_text(json.dumps([{"dialogue": "A: hi"}]))
    with pytest.raises(DataError) as err:
        samsum.open_samsum(tmp_path, 64, 259, "prepare_data.py")
    text = str(err.value)
    assert "train.json: sample 0 lacks a string \"dialogue\" or \"summary\"" in text
    assert "val.json is missing" in text and "corpus.7z" in text


def test_a_lora_rank_of_0_is_refused_naming_the_knob() -> None:
    from chipperf_runtime.training.driver import Config
    from chipperf_runtime.training.llmtrain import lora

    values = module().SPEC.presets["tiny"]
    cfg = Config({"lora_rank": 0, "lora_alpha": 32, "lora_dropout": 0.05,
                  "lora_target_modules": ["q_proj", "w_proj"]},
                 {"lora_rank": "vendor", "lora_alpha": "base", "lora_dropout": "base",
                  "lora_target_modules": "override"})
    assert lora.lora_problems(cfg, values) == [
        "lora_rank = 0 (the vendor config): the LoRA rank must be a whole number >= 1 "
        "(FlagPerf's recipe: 8)",
        "lora_target_modules = ['q_proj', 'w_proj'] must be a non-empty list of q_proj, "
        "k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj"]


def plan_problems(catalogue: Catalogue, key: CaseKey, vendor: str = "nvidia") -> list[str]:
    cluster = ClusterConfig(hosts=("10.0.0.1", "10.0.0.2"), master_port=29600, work_root="/w")
    return check(cluster, TestConfig(vendor=vendor, cases=(CaseEntry(key, "/data"),)), catalogue)


@pytest.mark.parametrize("rank", [0, -4])
def test_plan_refuses_a_lora_rank_below_1_naming_config_and_knob(tmp_path: Path,
                                                                rank: int) -> None:
    key = CaseKey.parse(f"{CASE}:pytorch_2.13:A100:1:1:1")
    catalogue = llm_catalogue(tmp_path, CASE, key.vendor_config_name,
                                   f"from config_common import *\nlora_rank = {rank}\n")
    (problem,) = plan_problems(catalogue, key)
    assert f"config_A100x1x1.py: lora_rank = {rank}: give a whole number >= 1" in problem


def test_every_shipped_config_plans() -> None:
    catalogue = Catalogue.scan(REPO / "training")
    seen = 0
    for (vendor, model, family), names in catalogue.vendor_configs.items():
        if model != CASE:
            continue
        folder = catalogue.vendor_cases[(vendor, model, family)]
        for name in [n for n in names if chipperf_own(folder / "config" / n)]:
            chip, nnodes, nproc = name[len("config_"):-3].rsplit("x", 2)
            key = CaseKey.parse(f"{model}:pytorch_2.13:{chip}:{nnodes}:{nproc}:1")
            assert plan_problems(catalogue, key, vendor) == [], name
            seen += 1
    assert seen == 9      # cpu x1x1, x1x2, x2x1; nvidia A100 and H100 at 1x1, 1x8, 2x8


def test_a_lora_case_refuses_tensor_and_pipeline_parallelism() -> None:
    from chipperf_runtime.training.llmtrain.case import lora_layout_problems
    from chipperf_runtime.training.llmtrain.parallel import Layout

    assert lora_layout_problems(Layout(4, tensor_parallel=2, pipeline_parallel=2)) == [
        "tensor_parallel = 2: a LoRA case runs data parallel only (set it to 1)",
        "pipeline_parallel = 2: a LoRA case runs data parallel only (set it to 1)"]
    assert lora_layout_problems(Layout(8)) == []
