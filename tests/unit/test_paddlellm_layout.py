"""FlagPerf's layout chip names (TP2PP4SH1SP1A10040G) and the Paddle LLM cases' pure parts:
the chip parse and its plan checks, the spec sheet it resolves to, the rank layout, the
model counts (the data layout: tests/runtime/test_paddlellm_data.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from chipperf.config.model import CaseEntry, CaseKey, ClusterConfig, TestConfig
from chipperf.plan import check, make_plan
from chipperf.plan.chiplayout import chip_layout_problems
from chipperf.suites.catalogue import Catalogue, default_training_dir
from chipperf_runtime.training.driver import ConfigError
from chipperf_runtime.training.paddlellm import arch
from chipperf_runtime.training.paddlellm.layout import Layout, layout_from_config
from chipperf_runtime.vendors import get_vendor
from chipperf_runtime.vendors._chiplayout import ChipLayout, parse_chip_layout

TINY = arch.shape("llama", "tiny")
DEGREES = {"tensor_parallel_degree": 2, "pipeline_parallel_degree": 4,
           "sharding_parallel_degree": 1, "sharding": "stage1"}


def test_flagperf_s_chip_name_is_a_layout_then_the_chip():
    assert parse_chip_layout("TP2PP4SH1SP1A10040G") == ChipLayout(2, 4, 1, 1, "A10040G")
    assert parse_chip_layout("TP1PP1SH2SP8A10080G").knobs() == {
        "tensor_parallel_degree": 1, "pipeline_parallel_degree": 1,
        "sharding_parallel_degree": 8, "sharding": "stage2"}
    assert parse_chip_layout("A100") is None


def test_the_chip_after_the_layout_finds_the_a100_sheets():
    nvidia = get_vendor("nvidia")
    assert nvidia.chip("TP2PP4SH1SP1A10040G").name == "A100_40_SXM"
    assert nvidia.chip("TP2PP1SH2SP4A10080G").name == "A100_SXM"
    assert nvidia.chip("TP2PP1SH2SP4A10040G").memory_bytes == 40 * 2**30


def test_a_layout_that_does_not_fill_the_world_is_one_plan_error():
    key = CaseKey.parse("llama1_7B:paddle_2.5.1:TP2PP4SH1SP1A10040G:1:4:1")
    problems = chip_layout_problems(key, DEGREES, "test_conf.py: CASES[k]")
    assert problems == ["test_conf.py: CASES[k]: the chip name's layout TP2 x PP4 x SP1 = 8 "
                        "ranks does not match the world size 4 (1 node(s) x 4 processes): "
                        "choose degrees whose product is 4, or nnodes x nproc = 8"]
    assert chip_layout_problems(CaseKey.parse(
        "llama1_7B:paddle_2.5.1:TP2PP4SH1SP1A10040G:1:8:1"), DEGREES, "w") == []


def test_a_config_whose_degrees_differ_from_its_chip_name_is_refused():
    key = CaseKey.parse("gpt3_13B:paddle_2.5.1:TP2PP4SH1SP1A10040G:1:8:1")
    problems = chip_layout_problems(key, {**DEGREES, "pipeline_parallel_degree": 1}, "w")
    assert problems == ["w: config_TP2PP4SH1SP1A10040Gx1x8.py: pipeline_parallel_degree = 1 "
                        "but the chip name TP2PP4SH1SP1 says 4: set pipeline_parallel_degree "
                        "= 4, or name the config after its layout"]


def test_ranks_are_tensor_parallel_innermost_then_data_then_stages():
    layout = Layout(tp=2, pp=2, sharding=1, stage=1, world=8)
    assert layout.data == 2 and layout.coords(5) == (1, 0, 1)
    assert layout.tp_groups()[0] == [0, 1] and layout.data_groups()[0] == [0, 2]
    assert layout.pp_groups()[0] == [0, 4]
    assert sorted(r for g in layout.pp_groups() for r in g) == list(range(8))


def test_degrees_that_do_not_fit_the_world_or_the_model_are_named():
    with pytest.raises(ConfigError, match="tensor_parallel_degree 3 x pipeline_parallel_degree "
                                          "1 does not divide the world size 4"):
        layout_from_config({**DEGREES, "tensor_parallel_degree": 3,
                            "pipeline_parallel_degree": 1}, 4, TINY)
    with pytest.raises(ConfigError, match="sharding_parallel_degree 2: give 1 .* or the whole "
                                          "data-parallel degree 4"):
        layout_from_config({**DEGREES, "tensor_parallel_degree": 1, "pipeline_parallel_degree": 1,
                            "sharding_parallel_degree": 2}, 4, TINY)
    with pytest.raises(ConfigError, match="pipeline_parallel_degree 4 does not divide the "
                                          "model's 2 layers"):
        layout_from_config(DEGREES, 8, TINY)
    with pytest.raises(ConfigError, match="sharding = 'stage3'"):
        layout_from_config({**DEGREES, "sharding": "stage3"}, 8, arch.shape("llama", "7b"))


def test_full_size_counts_are_the_published_ones():
    """LLaMA-1 7B and 13B: 6,738,415,616 and 13,015,864,320 (Hugging Face's LlamaForCausalLM
    of the same shapes); GPT-3 with FlagPerf's untied lm_head and 2048 positions."""
    counts = {(f, s): arch.parameter_count(f, arch.shape(f, s))
              for f, s in arch.MODELS.values()}
    assert counts == {("llama", "7b"): 6_738_415_616, ("llama", "13b"): 13_015_864_320,
                      ("gpt", "6.7b"): 6_864_642_048, ("gpt", "13b"): 13_111_183_360}


def test_flagperf_s_paddle_key_plans_saying_what_never_ran(tmp_path: Path):
    catalogue = Catalogue.scan(default_training_dir())
    key = CaseKey.parse("llama1_7B:paddle_2.5.1:TP2PP4SH1SP1A10040G:1:8:1")
    test = TestConfig(vendor="nvidia", cases=(CaseEntry(key, "/data"),),
                      result_root=str(tmp_path))
    cluster = ClusterConfig(hosts=("10.1.2.1",))
    assert check(cluster, test, catalogue) == []
    notes = make_plan(cluster, test, catalogue, "run1", tmp_path).cases[0].notes
    assert any("never run: every GPU path" in n for n in notes)
    assert any("use_flash_attention: no effect in chipperf" in n for n in notes)
