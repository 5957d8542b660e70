"""The LLM cases added on llmtrain (aquila2_7b, aquila2_7b_finetune, aquila2_34B, aquila2_70B,
qwen1.5_MoE): case.yaml's
full-size numbers are transformers' meta-built model's and llmtrain.arch's formulas, the full
size is the published one, and every shipped vendor config passes plan-time checks."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from casemodules import BENCHMARKS, load_case_module
from llmplan import shipped_config_problems

# published: BAAI/Aquila2-7B's config.json built as LlamaForCausalLM (a 7B-class model);
# Qwen1.5-MoE-A2.7B's model card: "14.3B parameters in total and 2.7B activated";
# Aquila2-34B and -70B-Expr: the shapes of BAAI's Aquila2 report (arXiv 2408.07410, table 1)
# with FlagPerf's vocabulary 100008 and untied embeddings, counted as LlamaForCausalLM (34B and
# 70B class); their arithmetic is checked below
PUBLISHED = {"aquila2_7b": ("7b", 7_295_537_152, 2048),
             "aquila2_7b_finetune": ("7b", 7_295_537_152, 2048),
             "aquila2_34B": ("34b", 33_693_554_688, 4096),
             "aquila2_70B": ("70b", 70_090_891_264, 4096),
             "qwen1.5_MoE": ("a2.7b", 14_315_784_192, 4096)}


def spec(case: str) -> Any:
    return load_case_module(f"{case}/pytorch", "run_pretraining", f"llm_cases_{case}").SPEC


def built_on_meta(case: str, size: str) -> int:
    import torch

    s = spec(case)
    with torch.device("meta"):
        model = s.model_class(s.config_class(**s.presets[size]))
    return sum(p.numel() for p in model.parameters())


@pytest.mark.parametrize("case", sorted(PUBLISHED))
def test_case_yaml_holds_the_published_full_size_built_on_meta(case: str) -> None:
    from chipperf_runtime.training.llmtrain import arch

    full, published, seq = PUBLISHED[case]
    presets = spec(case).presets
    built = {size: built_on_meta(case, size) for size in presets}
    meta = yaml.safe_load((BENCHMARKS / case / "pytorch" / "case.yaml").read_text())
    assert built[full] == published
    assert meta["full_size"] == {"params": published,
                                 "flops_per_unit": arch.train_flops_per_token(presets[full], seq)}
    assert meta["memory"]["params"] == built
    assert all(arch.parameter_count(presets[s]) == n for s, n in built.items())


@pytest.mark.parametrize("case, layers, hidden, ffn", [("aquila2_34B", 60, 6144, 24576),
                                                      ("aquila2_70B", 80, 8192, 28672)])
def test_aquila2_full_size_is_the_report_s_shape_counted_by_hand(case: str, layers: int,
                                                                  hidden: int, ffn: int) -> None:
    """Embeddings and lm_head (100008 x h each), per layer q and o (h x h), k and v (h x 8 x
    128: 8 key/value heads of 128), SwiGLU (3 x h x ffn) and two RMSNorms, the final norm."""
    full, count, _ = PUBLISHED[case]
    values = spec(case).presets[full]
    per_layer = 2 * hidden * hidden + 2 * hidden * 8 * 128 + 3 * hidden * ffn + 2 * hidden
    assert (values["num_hidden_layers"], values["hidden_size"], values["intermediate_size"]) == \
        (layers, hidden, ffn)
    assert 2 * 100008 * hidden + layers * per_layer + hidden == count


def test_the_finetune_case_builds_the_model_aquila2_7b_trains() -> None:
    """The same presets (model.json kept beside the case, as each case folder ships alone)."""
    assert spec("aquila2_7b_finetune").presets == spec("aquila2_7b").presets


def test_qwen_moe_activates_2_7b_parameters_per_token() -> None:
    """4 of 60 routed experts, the shared expert and its gate, attention and the lm_head
    (N_active), plus the input embeddings: the model card's 2.7B activated."""
    from chipperf_runtime.training.llmtrain import arch

    values = spec("qwen1.5_MoE").presets["a2.7b"]
    active = arch.matmul_params(values)
    assert active == 2_377_760_768
    assert round((active + values["vocab_size"] * values["hidden_size"]) / 1e9, 1) == 2.7
    assert arch.expert_width(values) == 1408


def test_every_shipped_config_of_the_new_cases_passes_plan_time_checks() -> None:
    found = shipped_config_problems(PUBLISHED)
    assert all(problems == [] for problems in found.values()), found
    # aquila2_7b: 4 cpu + 4 nvidia (A100, H100 at 1x8 and 2x8) configs; qwen1.5_MoE: the same
    # and FlagPerf's A800x1x8; aquila2_7b_finetune: 2 cpu (1x1, 1x2) + 4 nvidia (A100, H100 at
    # 1x8 and 2x8) and FlagPerf's A800x1x8; aquila2_34B: cpu 1x1, A100 and H100 at 1x8 and 2x8
    # (A100x2x8: FlagPerf's in-container layout); aquila2_70B: cpu 1x1, A100 and H100 at 2x8
    # and FlagPerf's A100x4x8
    assert len(found) == 33
