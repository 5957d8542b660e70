"""An inference run whose model size or work per item differs from the case's base
configuration (the CI's tiny models, Stable Diffusion at 256 px and 10 steps) carries a
FINISHED preset with the run's parameter count; the results label it from that."""

from __future__ import annotations

from pathlib import Path

import pytest

from chipperf.results.compute.preset import preset_label
from chipperf_runtime.inference import config as configuration
from chipperf_runtime.inference.sizes import SIZE_KEYS, preset_record

CONFIGS = Path(__file__).resolve().parents[2] / "inference" / "configs"


def test_a_tiny_model_is_named_by_its_model_size() -> None:
    record = preset_record({"model_size": "tiny", "image_size": 64},
                           {"model_size": "huge", "image_size": 1024}, 612_160)
    assert record is not None and record["name"] == "tiny"
    assert record["changes"] == {"model_size": ["tiny", "huge"], "image_size": [64, 1024]}
    short, detail = preset_label(record)
    assert short == "tiny preset: 0.612 M params"
    assert "model_size tiny (full huge); image_size 64 (full 1024)" in detail


def test_the_case_own_sizes_have_no_preset() -> None:
    assert preset_record({"model_size": "huge", "batch_size": 1},
                         {"model_size": "huge", "batch_size": 4}, 10) is None


def test_stable_diffusions_cpu_config_is_a_reduced_preset() -> None:
    folder = CONFIGS / "stable_diffusion_v1_4"
    run = configuration.load(folder, folder / "vendor_config" / "cpu_configuration.yaml")
    record = preset_record(run, configuration.load(folder, None), 1_066_235_307)
    assert record is not None and record["name"] == "reduced"
    assert record["changes"]["num_inference_steps"] == [10, 50]
    assert preset_label(record)[0] == "reduced preset: 1.07 B params"


@pytest.mark.parametrize("case", sorted(p.name for p in CONFIGS.iterdir() if p.is_dir()))
def test_size_keys_are_base_configuration_keys(case: str) -> None:
    """Every size key a case's configuration has can be changed, so can be compared. llama3_8b
    has its own shape keys; the MMLU cases' model is the folder they read (weight_dir), whose
    parameter count their FINISHED preset compares with the named model's."""
    base = configuration.load(CONFIGS / case, None)
    assert set(SIZE_KEYS) & set(base) or case == "llama3_8b" or case.endswith("_mmlu"), case
