"""The transformers vision classifiers of the inference suite (vit_l_16, swinTransformer) end
to end through their real entries at CI size (tiny shapes on 32-pixel crops of the digits),
with two engines against the fp32 eager reference; their full-size parameters and FLOPs;
real transformers checkpoints; a bad model size."""

from __future__ import annotations

from pathlib import Path

import inferrun
import pytest
import torch
from inferrun import BENCH, CONFIGS, REPO, entry_env, finished_of, run_entry

from chipperf_runtime.perflog import parse_lines

CI = ["model_size=tiny", "image_size=32", "resize_size=32", "batch_size=8", "max_items=16",
      "latency_queries=4", "latency_warmup=1", "warmup_batches=1",
      "loadgen_min_duration_ms=1"]   # LoadGen's minimum: the query counts alone decide
# model -> (full preset, parameters at 1000 classes, forward FLOPs per 224-pixel image)
FULL = {"vit_l_16": ("large", 304_326_632, 2 * 61.55e9),        # torchvision: 61.55 GMACs
        "swinTransformer": ("base", 87_768_224, 2 * 15.43e9)}   # torchvision: 15.43 GMACs
HF_CLASSES = {"vit_l_16": ("ViTConfig", "ViTForImageClassification"),
              "swinTransformer": ("SwinConfig", "SwinForImageClassification")}


@pytest.fixture(autouse=True)
def _cpu_vendor_device(monkeypatch):
    inferrun.cpu_vendor(monkeypatch)


def entry(model: str) -> Path:
    return BENCH / model / "pytorch" / "run_inference.py"


def argv(model: str, data: Path, out: Path, *sets: str) -> list[str]:
    return inferrun.argv(CONFIGS / model, data, out, *CI, *sets)


def load_entry(model: str):
    return inferrun.load_entry(entry(model), f"{model}_run_inference")


@pytest.mark.parametrize("model", sorted(FULL))
@pytest.mark.parametrize("engine", ["eager", "onnxruntime"])
def test_case_runs_end_to_end_within_its_bound(digits, tmp_path, model, engine) -> None:
    proc, events = run_entry(entry(model), argv(model, digits, tmp_path, f"engine={engine}"),
                             entry_env(CHIPPERF_CASE=model))
    f = finished_of(proc, events)
    assert (f["engine"], f["precision"], f["device"]) == (engine, "fp32", "cpu")
    assert f["work_done"] == 16 and f["latency_ms"]["count"] == 4
    assert 0 < f["throughput"]["raw"] <= f["throughput"]["pure_compute"]
    ref = f["reference"]
    assert ref["within_bound"] and ref["max_abs_diff"] <= ref["bound"]
    assert (ref["max_abs_diff"] == 0.0) == (engine == "eager")   # another engine really ran
    assert f["metric"]["name"] == "top1_agreement" and f["metric"]["value"] >= 0.99
    assert f["converged"] is True and f["flops_per_unit"] > 0
    assert events[1].value["model"] == model and events[1].value["config"]["model_size"] == "tiny"
    preset = f["preset"]                  # the CI size is labelled, with the run's own count
    assert preset["name"] == "tiny" and preset["params"] > 0
    assert preset["changes"]["model_size"] == ["tiny", FULL[model][0]]
    assert preset["changes"]["image_size"] == [32, 224]


@pytest.mark.parametrize("model", sorted(FULL))
def test_full_size_parameters_and_flops(model) -> None:
    from chipperf_runtime.inference.measure import forward_flops
    from chipperf_runtime.inference.models.hf_vision import parameter_count

    size, params, flops = FULL[model]
    with torch.device("meta"):
        net = load_entry(model).build({"model_size": size, "num_classes": 1000,
                                       "image_size": 224}).eval()
        assert parameter_count(net) == params
        assert forward_flops(net, [torch.zeros(1, 3, 224, 224)]) == pytest.approx(flops, rel=0.01)


@pytest.mark.parametrize("model", sorted(FULL))
def test_a_transformers_checkpoint_loads_and_scores_against_labels(digits, tmp_path, capsys,
                                                                   model) -> None:
    """A state dict saved from transformers' own class (its parameter names) loads as is."""
    import transformers

    module = load_entry(model)
    config_name, model_name = HF_CLASSES[model]
    preset = module.PRESETS["tiny"]
    hf = getattr(transformers, model_name)(getattr(transformers, config_name)(
        **preset, num_labels=10, image_size=32, num_channels=3))
    torch.save(hf.state_dict(), tmp_path / "weights.pt")
    code = module.main(module.CASE, argv(model, digits, tmp_path, "num_classes=10",
                                         f"checkpoint={tmp_path / 'weights.pt'}",
                                         "accuracy_target=0.0", "engine=eager"))
    assert code == 0
    events, _ = parse_lines(capsys.readouterr().out.splitlines())
    assert events[-1].value["metric"]["name"] == "top1_accuracy" and events[-1].value["converged"]


def test_unknown_model_size_is_one_clear_error(digits, tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("CHIPPERF_CASE", "vit_l_16:pytorch_2.13")
    module = load_entry("vit_l_16")
    assert module.main(module.CASE, argv("vit_l_16", digits, tmp_path, "model_size=huge")) == 2
    err = capsys.readouterr().err
    assert "chipperf inference case vit_l_16:pytorch_2.13: error: model_size 'huge' is unknown: " \
           "use one of large, tiny" in err


def test_flagperf_config_files_drive_the_case(digits, tmp_path, capsys) -> None:
    """FlagPerf's vit_l_16 folder (configurations.yaml, parameters.yaml) beside chipperf's
    configuration.yaml, with a FlagPerf-form cpu vendor file: its keys reach the run."""
    import shutil

    folder = tmp_path / "vit_l_16"
    shutil.copytree(REPO / "tests/unit/data/flagperf/inference/configs/vit_l_16", folder)
    shutil.copy(REPO / "inference/configs/vit_l_16/configuration.yaml", folder)
    (folder / "vendor_config" / "cpu_configurations.yaml").write_text(
        "compiler: null\nfp16: false\nbatch_size: 8\nnum_workers: 2\n")
    module = load_entry("vit_l_16")
    args = argv("vit_l_16", digits, tmp_path, "repeat=1")
    args[args.index("--extern_config_dir") + 1] = str(folder)
    assert module.main(module.CASE, args) == 0
    captured = capsys.readouterr()
    events, _ = parse_lines(captured.out.splitlines())
    f = events[-1].value
    assert (f["engine"], f["precision"], f["flops_per_unit"]) == ("eager", "fp32", 6.16e10)
    assert f["offline"]["passes"] == 5 and f["work_done"] == 5 * 16     # FlagPerf's repeat
    assert "note: " in captured.err and "FlagPerf key 'num_workers' has no meaning here" in captured.err
    assert any("'weights'" in n for n in events[1].value["config_notes"])


def test_flops_counted_on_the_cpu_include_the_attention() -> None:
    """The fused CPU attention kernel has no FLOP formula: counting runs attention through the
    math kernel, so a real run counts what the meta device counts (before: ViT-L/16 119.3
    instead of 123.1 GFLOPs, BERT-large 85.6 instead of 87.2)."""
    from chipperf_runtime.inference.measure import forward_flops

    config = {"model_size": "tiny", "num_classes": 10, "image_size": 32}
    module = load_entry("vit_l_16")
    with torch.device("meta"):
        on_meta = forward_flops(module.build(config).eval(), [torch.zeros(1, 3, 32, 32)])
    on_cpu = forward_flops(module.build(config).eval(), [torch.zeros(1, 3, 32, 32)])
    assert on_cpu == on_meta > 0
