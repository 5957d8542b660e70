"""Issue 39, item 3: every FlagPerf inference vendor (kunlunxin, iluvatar, metax, zixiao,
hexaflake) plans its resnet50 case from FlagPerf's host.yaml form, with FlagPerf's own
resnet50 files (tests/unit/data/flagperf/inference, @1b5a0303) dropped in; an engine the image
does not install, another vendor's engine, and a PyTorch engine for a vendor that has no
PyTorch device are refused by name at plan time."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from chipperf.cli import main
from chipperf.commands.cases import catalogue_rows, image_lines
from chipperf.plan.engines import engine_image_problems
from chipperf.suites.catalogue import Catalogue
from chipperf_runtime.inference.vendor_engines import VENDOR_ENGINES, missing_sdk

REPO = Path(__file__).resolve().parents[2]
FLAGPERF = Path(__file__).resolve().parent / "data" / "flagperf" / "inference" / "configs"
BASE_IMAGE = 'BASE_IMAGE: "registry.example.com/vendor/inference-sdk:1"\n'
# vendor -> (its engine, the chip a host.yaml without CHIP gets)
VENDORS = {"kunlunxin": ("xtcl", "R300"), "iluvatar": ("ixrt", "BI-V100"),
           "metax": ("macart", "C500"), "zixiao": ("zxrt", "C100"),
           "hexaflake": ("hx_infexec", "hexaflake_card")}


def suite(tmp_path: Path, vendor: str, base_image: bool = True) -> tuple[str, Path]:
    """chipperf's inference/ with FlagPerf's resnet50 files in, and FlagPerf's host.yaml for
    ``vendor`` with its commented resnet50 line (framework pytorch_1.13) as the case."""
    root = tmp_path / "inference"
    shutil.copytree(REPO / "inference", root, symlinks=True)
    shutil.copytree(FLAGPERF / "resnet50", root / "configs" / "resnet50", dirs_exist_ok=True)
    text = (FLAGPERF / "host.yaml").read_text()
    text = (text.replace('VENDOR: "nvidia"', f'VENDOR: "{vendor}"')
            .replace('"vit_l_16:pytorch_2.1"', '"resnet50:pytorch_1.13"')
            .replace('FLAGPERF_LOG_PATH: "result"', f'FLAGPERF_LOG_PATH: "{tmp_path}/result"'))
    host = tmp_path / "host.yaml"
    host.write_text(text + "\n" + (BASE_IMAGE if base_image else ""))
    return str(host), root


def plan(host: str, root: Path, capsys) -> tuple[int, str, str]:
    code = main(["plan", "--suite", "inference", "--host-config", host, "--training-dir", str(root)])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("vendor", sorted(VENDORS))
def test_every_flagperf_inference_vendor_plans_its_resnet50(tmp_path, capsys, vendor) -> None:
    host, root = suite(tmp_path, vendor, base_image=vendor != "kunlunxin")
    code, out, err = plan(host, root, capsys)
    assert code == 0, err
    engine, chip = VENDORS[vendor]
    assert f"resnet50:pytorch_1.13:{chip}:1:1:1" in out
    assert f"chipperf/inference-{vendor}-pytorch_2.13" in out


@pytest.mark.parametrize("vendor", ["iluvatar", "metax", "zixiao", "hexaflake"])
def test_a_vendor_sdk_image_without_base_image_says_so(tmp_path, capsys, vendor) -> None:
    host, root = suite(tmp_path, vendor, base_image=False)
    code, _, err = plan(host, root, capsys)
    assert code == 2
    assert f"{root}/{vendor}/docker_image/pytorch_2.13/Dockerfile names no base image by " \
           f"default (vendor {vendor!r} has no public image): set BASE_IMAGE" in err


def test_an_engine_of_another_vendor_is_refused_by_name(tmp_path, capsys) -> None:
    host, root = suite(tmp_path, "kunlunxin")
    ours = root / "configs" / "resnet50" / "vendor_config" / "kunlunxin_configuration.yaml"
    ours.write_text(ours.read_text().replace("engine: xtcl", "engine: ixrt"))
    code, _, err = plan(host, root, capsys)
    assert code == 2
    assert f"{ours}: engine 'ixrt' is Iluvatar IxRT (a TensorRT-compatible runtime), which drives " \
           "vendor 'iluvatar''s chips only, and vendor 'kunlunxin' selects it" in err


def test_a_vendor_without_a_pytorch_device_refuses_pytorch_engines(tmp_path, capsys) -> None:
    host, root = suite(tmp_path, "zixiao")
    ours = root / "configs" / "resnet50" / "vendor_config" / "zixiao_configuration.yaml"
    ours.write_text(ours.read_text().replace("engine: zxrt", "engine: eager"))
    code, _, err = plan(host, root, capsys)
    assert code == 2
    assert "vendor 'zixiao' has no PyTorch device in chipperf (its chip runs only through " \
           "Tencent Zixiao ZXRT (the TopsInference Python package)), so engine 'eager' would run " \
           "on the host CPU under its name; engine 'zxrt' drives the chip: set engine (FlagPerf: " \
           f"compiler) to zxrt in {ours}" in err


# macart's module is onnxruntime, which the cpu image has too: its MACA provider is checked by
# the metax image's build line and by the adapter when the case starts (tests/runtime)
@pytest.mark.parametrize("engine", sorted(set(VENDOR_ENGINES) - {"macart"}))
def test_an_image_without_the_vendors_sdk_is_refused_naming_it(tmp_path, engine) -> None:
    image = REPO / "inference" / "cpu" / "docker_image" / "pytorch_2.13"
    spec = VENDOR_ENGINES[engine]
    assert engine_image_problems(engine, image, [], "w") == [
        f"w: engine {engine!r} needs {spec.sdk} (module {spec.module!r}), which image folder "
        f"{image} does not install (not in its requirements.txt, nor imported in its "
        f"Dockerfile's check line): build that folder on {spec.install}, importing "
        f"{spec.module} in its check line; or set engine to one the image has (eager, compile)"]


def test_each_vendor_image_installs_its_engines_sdk() -> None:
    catalogue = Catalogue.scan(REPO / "inference", suite="inference")
    for engine, spec in VENDOR_ENGINES.items():
        image = catalogue.images[(spec.vendor, "pytorch_2.13")]
        assert engine_image_problems(engine, image, [], spec.vendor) == []


def test_the_missing_sdk_message_names_sdk_vendor_and_install() -> None:
    text = missing_sdk("zxrt", "zixiao", "ModuleNotFoundError: No module named 'TopsInference'")
    assert text.startswith("engine 'zxrt' needs Tencent Zixiao ZXRT (the TopsInference Python "
                           "package), whose Python module 'TopsInference' is not importable here "
                           "(ModuleNotFoundError: No module named 'TopsInference'); vendor "
                           "'zixiao': run in the vendor's image with the TopsInference wheel")


def test_cases_lists_the_vendors_as_code_only_and_their_images() -> None:
    rows = {r["model"]: r for r in catalogue_rows(REPO / "inference", "inference")}
    resnet = rows["resnet50"]
    assert set(VENDORS) <= set(resnet["vendors"])
    notes = {key: h["note"] for key, h in resnet["hardware"].items()}
    for vendor in VENDORS:
        assert notes[vendor].startswith(f"{vendor}: NOT validated on real hardware here")
    lines = "\n".join(image_lines(Catalogue.scan(REPO / "inference", suite="inference")))
    assert "kunlunxin/pytorch_2.13: builds on a host that can pull ubuntu:22.04 (a published" in lines
    for vendor in ("iluvatar", "metax", "zixiao", "hexaflake"):
        assert f"{vendor}/pytorch_2.13: cannot be built here or anywhere as it is" in lines
