"""A case's plan-time memory floor may depend on a knob (chipperf.config.caseneeds:
``bytes_per_param: {knob: stage, finetune: 16, pretrain: 4.04}``, llava1.5_7b's case.yaml)."""

from __future__ import annotations

from chipperf.config.caseneeds import bytes_per_param, needs_problems
from chipperf_runtime.vendors.base import ChipSpec

LLAVA = {"memory": {"size_knob": "model_size", "params": {"7b": 7063427072},
                    "bytes_per_param": {"knob": "stage", "finetune": 16, "pretrain": 4.04,
                                        "both": ["pretrain", "finetune"]},
                    "sharded": True, "note": "fp32 weights and the trained parameters' state"}}
H100 = ChipSpec(name="H100", memory_bytes=80 * 10**9, source="test sheet")


def test_a_plain_number_is_itself():
    assert bytes_per_param(16, {}) == (16.0, "")


def test_the_figure_follows_the_knob_s_value():
    assert bytes_per_param(LLAVA["memory"]["bytes_per_param"], {"stage": "pretrain"}) == \
        (4.04, " with stage 'pretrain'")
    assert bytes_per_param(LLAVA["memory"]["bytes_per_param"], {"stage": "other"}) == \
        (16.0, " (stage 'other' has no figure of its own: 16 assumed)")


def test_pretrain_fits_one_h100_and_finetune_does_not():
    assert needs_problems(LLAVA, {"model_size": "7b", "stage": "pretrain"}, 1, 1, H100, "w") == []
    (problem,) = needs_problems(LLAVA, {"model_size": "7b", "stage": "finetune"}, 1, 1, H100, "w")
    assert "16 bytes per parameter with stage 'finetune' over 1 chips" in problem, problem
    assert "use at least 2 chips" in problem, problem


def test_a_run_of_both_stages_needs_the_larger_stage_s_state():
    assert bytes_per_param(LLAVA["memory"]["bytes_per_param"], {"stage": "both"}) == \
        (16.0, " with stage 'both' (its largest: 'finetune''s)")
    (problem,) = needs_problems(LLAVA, {"model_size": "7b", "stage": "both"}, 1, 1, H100, "w")
    assert "16 bytes per parameter with stage 'both' (its largest: 'finetune''s) over 1 chips" \
        in problem, problem
    assert needs_problems(LLAVA, {"model_size": "7b", "stage": "both"}, 1, 2, H100, "w") == []
