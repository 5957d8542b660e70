"""Inference case configuration layering: configuration.yaml, vendor file, --set (pure)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "inference" / "benchmarks"))

from vendorlists import inference_vendor_files  # noqa: E402

from chipperf_runtime.inference import config  # noqa: E402
from chipperf_runtime.inference.errors import CaseError  # noqa: E402
from chipperf_runtime.vendors import vendor_names  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
BASE = """
engine: eager
batch_size: 8
accuracy_target: 0.75
checkpoint: null
compile: false
tolerance:
  default: {fp32: 1.0e-3, bf16: 5.0e-2}
  onnxruntime: {}
"""


@pytest.fixture
def case_dir(tmp_path: Path) -> Path:
    (tmp_path / "vendor_config").mkdir()
    (tmp_path / "configuration.yaml").write_text(BASE)
    (tmp_path / "vendor_config" / "cpu_configuration.yaml").write_text(
        "engine: onnxruntime\nbatch_size: 4\ntolerance: {onnxruntime: {fp32: 2.0e-3}}\n")
    return tmp_path


def test_layers_apply_in_order(case_dir: Path) -> None:
    merged = config.load(case_dir, "cpu_configuration.yaml", ["batch_size=2", "checkpoint=/w.pt"])
    assert merged["engine"] == "onnxruntime"          # vendor file
    assert merged["batch_size"] == 2                  # --set wins over the vendor file
    assert merged["checkpoint"] == "/w.pt"            # a null default takes any value
    assert merged["tolerance"]["onnxruntime"] == {"fp32": 2.0e-3}
    assert merged["tolerance"]["default"]["bf16"] == 5.0e-2   # nested merge keeps the rest


def test_nested_set_and_numbers(case_dir: Path) -> None:
    merged = config.load(case_dir, None, ["tolerance.default.bf16=0.1", "accuracy_target=1"])
    assert merged["tolerance"]["default"] == {"fp32": 1.0e-3, "bf16": 0.1}
    assert merged["accuracy_target"] == 1.0 and isinstance(merged["accuracy_target"], float)


def test_result_is_read_only(case_dir: Path) -> None:
    merged = config.load(case_dir, None)
    with pytest.raises(TypeError, match="does not support item assignment"):
        merged["engine"] = "x"  # type: ignore[index]
    assert config.thaw(merged)["tolerance"]["default"]["fp32"] == 1.0e-3


def test_every_problem_reported_at_once(case_dir: Path) -> None:
    (case_dir / "vendor_config" / "cpu_configuration.yaml").write_text("batchsize: 4\n")
    with pytest.raises(CaseError) as err:
        config.load(case_dir, "cpu_configuration.yaml",
                    ["batch_size=big", "compile=yes please", "tolerance.tensorrt.fp16=1", "oops"])
    text = str(err.value)
    assert "unknown key 'batchsize'" in text and "batch_size" in text  # lists allowed keys
    assert "batch_size: expected int" in text
    assert "compile: expected true/false" in text
    assert "unknown key 'tolerance.tensorrt'" in text
    assert "--set 'oops': expected key=value" in text


def test_missing_files_name_the_fix(case_dir: Path) -> None:
    with pytest.raises(CaseError, match="nvidia_configuration.yaml: file not found: create it"):
        config.load(case_dir, "nvidia_configuration.yaml")
    with pytest.raises(CaseError, match="configuration.yaml: file not found"):
        config.load(case_dir / "nope", None)


def test_bad_yaml(case_dir: Path) -> None:
    (case_dir / "vendor_config" / "cpu_configuration.yaml").write_text("engine: [unclosed\n")
    with pytest.raises(CaseError, match="not valid YAML"):
        config.load(case_dir, "cpu_configuration.yaml")
    (case_dir / "vendor_config" / "cpu_configuration.yaml").write_text("- a list\n")
    with pytest.raises(CaseError, match="must hold a mapping"):
        config.load(case_dir, "cpu_configuration.yaml")


def test_empty_vendor_file_means_no_overrides(case_dir: Path) -> None:
    (case_dir / "vendor_config" / "cpu_configuration.yaml").write_text("# nothing\n")
    assert config.load(case_dir, "cpu_configuration.yaml")["engine"] == "eager"


SHIPPED = [(model, vendor) for model in ("resnet50", "bert_large")
           for vendor in inference_vendor_files(REPO / "inference" / "configs" / model)]


def test_every_shipped_vendor_file_is_a_registered_vendors() -> None:
    assert {v for _, v in SHIPPED} <= set(vendor_names()) and len(SHIPPED) >= 4


@pytest.mark.parametrize("model, vendor", SHIPPED)
def test_shipped_configs_load_and_validate(model: str, vendor: str) -> None:
    from chipperf_runtime.inference.settings import Settings

    merged = config.load(REPO / "inference" / "configs" / model, f"{vendor}_configuration.yaml")
    settings = Settings.from_config(merged)
    assert settings.device is None  # the vendor module names the device, not the config
    assert settings.tolerance_for(settings.engine, settings.precision) is not None
    assert settings.agreement_for(settings.precision) is not None


def test_settings_report_every_bad_value() -> None:
    from chipperf_runtime.inference.settings import Settings

    merged = config.load(REPO / "inference" / "configs" / "resnet50", "cpu_configuration.yaml",
                         ["batch_size=0", "latency_warmup=-1", "max_items=0", "device=abacus",
                          "flops_per_item=-5"])
    with pytest.raises(CaseError) as err:
        Settings.from_config(merged)
    text = str(err.value)
    for expected in ("batch_size: must be a whole number >= 1", "latency_warmup: must be a whole",
                     "max_items: must be null or", "device: 'abacus' is unknown", "flops_per_item"):
        assert expected in text


def test_tolerance_lookup_prefers_the_engine_entry() -> None:
    from chipperf_runtime.inference.settings import Settings

    merged = config.load(REPO / "inference" / "configs" / "resnet50", None,
                         ["tolerance.onnxruntime.fp32=5e-3"])
    settings = Settings.from_config(merged)
    assert settings.tolerance_for("onnxruntime", "fp32") == 5e-3
    assert settings.tolerance_for("eager", "fp32") == 1e-3
    assert settings.tolerance_for("tensorrt", "fp16") == 2e-2
    assert settings.tolerance_for("eager", "int8") is None
