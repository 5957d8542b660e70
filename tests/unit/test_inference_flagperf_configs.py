"""FlagPerf's inference config files load (issue 14, item 4): host.yaml without CHIP, and a
model folder's configurations.yaml, parameters.yaml and vendor_config/<vendor>_configurations.yaml
mapped onto chipperf's keys, with a note for every key that means nothing here. The files
under tests/unit/data/flagperf/inference are FlagPerf's, unchanged."""

from __future__ import annotations

import logging
import shutil
import sys
from pathlib import Path

import pytest

from chipperf.config.inference import load_inference
from chipperf.suites.catalogue import Catalogue

REPO = Path(__file__).resolve().parents[2]
FLAGPERF = Path(__file__).resolve().parent / "data" / "flagperf" / "inference" / "configs"
sys.path.insert(0, str(REPO / "inference" / "benchmarks"))

from chipperf_runtime.inference import config as configuration  # noqa: E402
from chipperf_runtime.inference.errors import CaseError  # noqa: E402
from chipperf_runtime.inference.flagperf import product  # noqa: E402


def model_folder(tmp_path: Path, model: str, ours: bool = True) -> Path:
    """chipperf's configuration.yaml (the schema) with FlagPerf's files of ``model`` beside it."""
    folder = tmp_path / model
    shutil.copytree(FLAGPERF / model, folder)
    shutil.copy(REPO / "inference" / "configs" / model / "configuration.yaml", folder)
    if ours:
        shutil.copytree(REPO / "inference" / "configs" / model / "vendor_config", folder / "vendor_config",
                        dirs_exist_ok=True)
    return folder


def test_flagperf_host_yaml_without_chip_takes_the_vendors_default(caplog, tmp_path) -> None:
    with caplog.at_level(logging.WARNING):
        cluster, test, problems = load_inference(FLAGPERF / "host.yaml", REPO / "inference")
    assert problems == []
    assert cluster.hosts == ("127.0.0.1",) and test.vendor == "nvidia"
    assert [str(c.key) for c in test.cases] == ["vit_l_16:pytorch_2.1:A100:1:1:1"]
    assert "CHIP is not set: case keys without a chip get vendor nvidia's default chip A100" in caplog.text
    host = tmp_path / "host.yaml"   # a case key's own chip wins
    host.write_text((FLAGPERF / "host.yaml").read_text().replace(
        '"vit_l_16:pytorch_2.1"', '"vit_l_16:pytorch_2.1:H100:1:1:2"'))
    _, test, problems = load_inference(host, REPO / "inference")
    assert problems == [] and [str(c.key) for c in test.cases] == ["vit_l_16:pytorch_2.1:H100:1:1:2"]


def test_flagperf_files_alone_map_onto_chipperfs_keys(tmp_path) -> None:
    folder = model_folder(tmp_path, "vit_l_16", ours=False)
    config, notes = configuration.load_with_notes(folder, "nvidia_configuration.yaml")
    assert (config["batch_size"], config["precision"], config["engine"]) == (32, "fp32", "tensorrt")
    assert config["flops_per_item"] == 6.16e10 and config["offline_passes"] == 5
    assert config["onnx_file"] is None and config["repeat"] == 1   # rounds stay chipperf's
    ignored = {n.split("FlagPerf key ")[1].split(" ")[0] for n in notes}
    assert ignored == {"'num_workers'", "'log_freq'", "'no_validation'", "'exist_compiler_path'",
                       "'weights'", "'trt_tmp_path'", "'has_dynamic_axis'", "'torchtrt_full_compile'"}
    assert any("'weights' has no meaning here (nothing is downloaded: give a torch.save()d "
               "state dict as checkpoint" in n for n in notes)


def test_chipperfs_vendor_file_wins_over_flagperfs(tmp_path) -> None:
    folder = model_folder(tmp_path, "swinTransformer")
    config, _ = configuration.load_with_notes(folder, "nvidia_configuration.yaml")
    assert config["flops_per_item"] == 1.55e10                  # FlagPerf's configurations.yaml
    assert (config["engine"], config["precision"], config["batch_size"]) == ("tensorrt", "fp16", 256)
    assert config["offline_passes"] == 3                        # chipperf's nvidia file, after


def test_a_compiler_chipperf_lacks_is_one_clear_error(tmp_path) -> None:
    folder = model_folder(tmp_path, "vit_l_16", ours=False)
    theirs = folder / "vendor_config" / "kunlunxin_configurations.yaml"
    theirs.write_text(theirs.read_text().replace("compiler: xtcl", "compiler: torchtrt"))
    with pytest.raises(CaseError) as err:
        configuration.load_with_notes(folder, "kunlunxin_configuration.yaml")
    assert "kunlunxin_configurations.yaml: compiler: engine torchtrt is NVIDIA's Torch-TensorRT, " \
           "not available in chipperf: set compiler to one of" in str(err.value)


def test_a_vendors_own_compiler_is_its_engine(tmp_path) -> None:
    """FlagPerf's compiler xtcl is chipperf's engine xtcl (issue 39, item 3)."""
    folder = model_folder(tmp_path, "resnet50", ours=False)
    config, _ = configuration.load_with_notes(folder, "kunlunxin_configuration.yaml")
    assert (config["engine"], config["precision"], config["batch_size"]) == ("xtcl", "fp32", 256)
    assert config["engine_options"] == {"resnet50_fuse": True}   # FlagPerf's key, for XTCL
    zixiao, _ = configuration.load_with_notes(folder, "zixiao_configuration.yaml")
    assert (zixiao["engine"], zixiao["engine_options"]) == ("zxrt", {"zixiao_test_batch_size": 32})


def test_no_vendor_file_in_either_form(tmp_path) -> None:
    folder = model_folder(tmp_path, "vit_l_16", ours=False)
    with pytest.raises(CaseError) as err:
        configuration.load_with_notes(folder, "acme_configuration.yaml")
    assert "acme_configuration.yaml: file not found" in str(err.value)
    assert "FlagPerf's acme_configurations.yaml is read too" in str(err.value)


def test_parameters_yaml_keys_the_case_has_are_applied(tmp_path) -> None:
    folder = tmp_path / "sd"
    shutil.copytree(FLAGPERF / "stable_diffusion_v1_4", folder)
    (folder / "configuration.yaml").write_text(
        "batch_size: 1\nprecision: fp32\nengine: eager\nflops_per_item: null\noffline_passes: 1\n"
        "onnx_file: null\nnum_inference_steps: 2\nguidance_scale: 1.0\nheight: 64\n")
    config, notes = configuration.load_with_notes(folder, "nvidia_configuration.yaml")
    assert (config["num_inference_steps"], config["guidance_scale"], config["height"]) == (50, 7.5, 512)
    assert config["batch_size"] == 2 and config["flops_per_item"] == 6.78e11
    assert any("'eval_weights' has no meaning here (chipperf has no such setting" in n for n in notes)


def test_flagperf_flops_forms() -> None:
    assert product("6.16e10") == 6.16e10 and product(4.12e9) == 4.12e9
    assert product("2*512*0.33e9") == pytest.approx(3.3792e11)
    assert product("lots") is None and product(True) is None and product("0") is None


def test_catalogue_finds_a_vendor_with_only_flagperfs_file(tmp_path) -> None:
    root = tmp_path / "inference"
    (root / "benchmarks/vit_l_16/pytorch").mkdir(parents=True)
    (root / "benchmarks/vit_l_16/pytorch/run_inference.py").write_text("")
    shutil.copytree(FLAGPERF / "vit_l_16", root / "configs" / "vit_l_16")
    catalogue = Catalogue.scan(root, suite="inference")
    assert sorted(v for v, _, _ in catalogue.vendor_cases) == ["kunlunxin", "nvidia"]
    assert catalogue.vendor_configs[("nvidia", "vit_l_16", "pytorch")] == {"nvidia_configuration.yaml"}


# ---------------------------------------------------------------- plan-time validation (issue 28)

def _suite(tmp_path: Path, vendor: str, model: str = "resnet50") -> tuple[str, Path]:
    """chipperf's inference/ with FlagPerf's files of ``model`` dropped in, and a host.yaml for
    ``vendor`` (given an image folder, as a vendor adding itself would)."""
    root = tmp_path / "inference"
    shutil.copytree(REPO / "inference", root)
    shutil.copytree(FLAGPERF / model, root / "configs" / model, dirs_exist_ok=True)
    image = root / vendor / "docker_image" / "pytorch_2.13"
    if not image.exists():
        shutil.copytree(REPO / "inference" / "cpu" / "docker_image" / "pytorch_2.13", image)
    host = tmp_path / "host.yaml"
    host.write_text((FLAGPERF / "host.yaml").read_text()
                    .replace('"vit_l_16:pytorch_2.1"', f'"{model}:pytorch_2.1"')
                    .replace('VENDOR: "nvidia"', f'VENDOR: "{vendor}"')
                    .replace('FLAGPERF_LOG_PATH: "result"', f'FLAGPERF_LOG_PATH: "{tmp_path}/result"'))
    return str(host), root


def _plan(host: str, root: Path, capsys) -> tuple[int, str]:
    from chipperf.cli import main

    code = main(["plan", "--suite", "inference", "--host-config", host, "--training-dir", str(root)])
    return code, capsys.readouterr().err


def test_plan_refuses_a_missing_configuration_yaml_naming_it(tmp_path, capsys) -> None:
    host, root = _suite(tmp_path, "nvidia")
    assert _plan(host, root, capsys)[0] == 0
    (root / "configs" / "resnet50" / "configuration.yaml").unlink()
    code, err = _plan(host, root, capsys)
    assert code == 2
    assert f"{root}/configs/resnet50/configuration.yaml: file not found: it holds the case's keys" in err


def test_plan_refuses_a_malformed_flagperf_file_naming_it(tmp_path, capsys) -> None:
    host, root = _suite(tmp_path, "nvidia")
    (root / "configs" / "resnet50" / "parameters.yaml").write_text("batch_size: [256\n")
    code, err = _plan(host, root, capsys)
    assert code == 2 and f"{root}/configs/resnet50/parameters.yaml: not valid YAML" in err
    (root / "configs" / "resnet50" / "parameters.yaml").write_text("- 1\n")
    code, err = _plan(host, root, capsys)
    assert code == 2 and "parameters.yaml: must hold a mapping of key: value, not list" in err


def test_plan_names_a_vendor_engine_another_vendor_selects(tmp_path, capsys) -> None:
    host, root = _suite(tmp_path, "cpu")
    folder = root / "configs" / "resnet50" / "vendor_config"
    (folder / "zixiao_configurations.yaml").rename(folder / "cpu_configurations.yaml")
    (folder / "cpu_configuration.yaml").write_text("precision: fp32\n")
    code, err = _plan(host, root, capsys)
    assert code == 2
    assert "cpu_configurations.yaml: engine 'zxrt' is Tencent Zixiao ZXRT (the TopsInference " \
        "Python package), which drives vendor 'zixiao''s chips only, and vendor 'cpu' selects " \
        "it: set engine (FlagPerf: compiler) to eager, compile or onnxruntime in" in err


def test_plan_names_the_nvidia_engine_iluvatar_inherits(tmp_path, capsys) -> None:
    host, root = _suite(tmp_path, "iluvatar")
    Path(host).write_text(Path(host).read_text() + '\nBASE_IMAGE: "registry.example.com/iluvatar/ixrt:1"\n')
    ours = root / "configs" / "resnet50" / "vendor_config" / "iluvatar_configuration.yaml"
    shipped = ours.read_text()
    ours.unlink()   # FlagPerf's iluvatar file alone names no compiler
    code, err = _plan(host, root, capsys)
    assert code == 2
    assert f"{root}/configs/resnet50/configurations.yaml: engine 'tensorrt' is NVIDIA's TensorRT, " \
        "which chipperf runs for vendor nvidia only, and vendor 'iluvatar' inherits it" in err
    ours.write_text(shipped)   # chipperf's file: engine ixrt, as FlagPerf's README ran it
    assert _plan(host, root, capsys)[0] == 0


def test_flagperf_plural_vendor_file_alone_plans(tmp_path, capsys) -> None:
    host, root = _suite(tmp_path, "nvidia")
    (root / "configs" / "resnet50" / "vendor_config" / "nvidia_configuration.yaml").unlink()
    assert _plan(host, root, capsys)[0] == 0


# ---------------------------------------------------------------- FlagPerf's last five models (issue 41)

FIVE = ("yolov5", "llama2_7b_mmlu", "llama3_8b_mmlu", "deepseek_7b_mmlu", "Aquila_7b_mmlu")


def test_flagperfs_yolov5_and_mmlu_keys_plan(tmp_path, capsys) -> None:
    """FlagPerf's five inference models chipperf lacked plan for nvidia from FlagPerf's own
    files (its host.yaml with their CASES lines, its configs/<model>/ folders dropped in)."""
    host, root = _suite(tmp_path, "nvidia")
    for model in FIVE:
        shutil.copytree(FLAGPERF / model, root / "configs" / model, dirs_exist_ok=True)
    cases = "".join(f'    "{model}:pytorch_2.1": "/raid/dataset/{model}"\n' for model in FIVE)
    line = '    "resnet50:pytorch_2.1": "/raid/dataset/ImageNet_1k_2012/val"\n'
    Path(host).write_text(Path(host).read_text().replace(line, cases))
    from chipperf.cli import main

    code = main(["plan", "--suite", "inference", "--host-config", host, "--training-dir", str(root)])
    out, err = capsys.readouterr()
    assert code == 0, err
    for model in FIVE:
        assert f"{model}:pytorch_2.1:A100:1:1:1" in out


def test_flagperfs_mmlu_and_yolov5_files_map_onto_the_cases_keys(tmp_path) -> None:
    config, notes = configuration.load_with_notes(model_folder(tmp_path, "Aquila_7b_mmlu"),
                                                  "nvidia_configuration.yaml")
    assert config["few_shots"] == 5 and config["engine"] == "compile"   # ntrain; our nvidia file
    assert config["flops_per_item"] == 14e9                              # 2*7e9 per token
    assert any("FlagPerf key 'max_gen_len' has no meaning here" in n for n in notes)
    yolo, _ = configuration.load_with_notes(model_folder(tmp_path, "yolov5"),
                                            "nvidia_configuration.yaml")
    assert (yolo["conf_thres"], yolo["iou_thres"], yolo["max_det"]) == (0.05, 0.2, 1000)
    assert yolo["onnx_file"] == "/FlagPerf/inference/yolov5l-bs96-half.onnx"
