"""Bad input found at plan time (issue 40): a transformers or diffusers case on intel_gaudi
whose image folder does not install optimum-habana (the vendor runs those libraries' cases
only through Optimum Habana: chipperf.plan.libraries); one line naming the case key, the
image folder and the framework whose image has it, before any image is built."""

from __future__ import annotations

from pathlib import Path

from chipperf.config.model import CaseEntry, CaseKey, ClusterConfig, TestConfig
from chipperf.plan import check
from chipperf.plan.engines import imports_module
from chipperf.plan.libraries import library_problems
from chipperf.suites import get_suite
from chipperf.suites.suite import ConfigFiles
from chipperf_runtime.vendors import get_vendor

GAUDI = get_vendor("intel_gaudi")


def plan_problems(tmp_path: Path, suite: str, key: str) -> list[str]:
    chosen = get_suite(suite)
    test = TestConfig(vendor="intel_gaudi", cases=(CaseEntry(CaseKey.parse(key), str(tmp_path)),),
                      result_root=str(tmp_path / "result"))
    return check(ClusterConfig(hosts=("10.0.0.1",)), test, chosen.scan(chosen.default_root),
                 where="test.py")


def seed_sd_problems() -> list[str]:
    """The plan's problems of the shipped Gaudi2 Stable Diffusion seed config."""
    suite = get_suite("inference")
    host = suite.default_root / "configs" / "host_seed_sd_Gaudi2_b8.yaml"
    loaded = suite.load(ConfigFiles(host_config=str(host)))
    return loaded.problems + check(loaded.cluster, loaded.test, loaded.catalogue, loaded.where)


def test_a_transformers_case_in_the_plain_gaudi_image_is_one_line_naming_the_fix(tmp_path) -> None:
    root = get_suite("training").default_root / "intel_gaudi" / "docker_image"
    key = "bert:pytorch_2.13:Gaudi3:1:8:1"
    assert plan_problems(tmp_path, "training", key) == [
        f"test.py: CASES['{key}']: a transformers case on vendor 'intel_gaudi' runs through "
        f"Optimum Habana (module 'optimum.habana'), which image folder {root / 'pytorch_2.13'} "
        "does not install (not in its requirements*.txt, nor imported in its Dockerfile's check "
        "line): use the framework pytorch_optimum_habana in the case key (its image folder, "
        f"{root / 'pytorch_optimum_habana'}, installs optimum-habana)"]
    # the same case in the Optimum Habana image, and a case of no library, plan clean
    assert plan_problems(tmp_path, "training", "bert:pytorch_optimum_habana:Gaudi3:1:8:1") == []
    assert plan_problems(tmp_path, "training", "resnet50:pytorch_2.13:Gaudi3:1:8:1") == []


def test_the_diffusers_case_and_other_vendors(tmp_path) -> None:
    """The Gaudi SD seed's key plans clean; a diffusers case on a vendor without a library
    path, or an image that imports optimum.habana in its check line, is not refused."""
    assert seed_sd_problems() == []
    image = tmp_path / "pytorch_x"
    image.mkdir()
    (image / "Dockerfile").write_text('RUN python -c "import torch, optimum.onnxruntime"\n')
    assert library_problems("diffusers", get_vendor("nvidia"), image, tmp_path, [], "w") == []
    assert library_problems(None, GAUDI, image, tmp_path, [], "w") == []
    assert library_problems("diffusers", GAUDI, image, tmp_path, [], "w") != []   # not optimum.habana
    (image / "Dockerfile").write_text('RUN python -c "import torch, optimum.habana.diffusers"\n')
    assert library_problems("diffusers", GAUDI, image, tmp_path, [], "w") == []


def test_a_dotted_import_imports_its_parents_only() -> None:
    assert imports_module({"habana_frameworks.torch.core"}, "habana_frameworks")
    assert imports_module({"optimum.habana"}, "optimum.habana")
    assert not imports_module({"optimum.onnxruntime", "optimumx"}, "optimum.habana")
