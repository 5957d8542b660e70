"""FlagPerf's framework strings resolve to a vendor's image folder, or are refused (FRAMEWORK_MATCH)."""

from __future__ import annotations

from pathlib import Path

import pytest

from chipperf.commands.render_plan import render_plan
from chipperf.config.load import parse_test
from chipperf.config.model import CaseEntry, CaseKey, ClusterConfig, TestConfig
from chipperf.frameworks import choose_folder, family, version
from chipperf.plan import check, make_plan
from chipperf.suites.catalogue import Catalogue

CHIPPERF_FOLDERS = ["deepspeed_0.19", "paddle_3.3", "pytorch_2.13", "tensorflow2_2.21"]
# FlagPerf's training/nvidia/docker_image/ folders (FlagOpen/FlagPerf at 1b5a030398ab)
FLAGPERF_FOLDERS = ["deepspeed", "deepspeed-torch", "paddle_2.5.1", "pytorch_1.10", "pytorch_1.12",
                    "pytorch_1.13", "pytorch_1.8", "pytorch_2.0.1", "tensorflow1", "tensorflow2"]


@pytest.mark.parametrize("framework, fam, ver", [
    ("pytorch_1.8", "pytorch", (1, 8)), ("pytorch_2.3", "pytorch", (2, 3)),
    ("tensorflow2", "tensorflow2", ()), ("deepspeed", "deepspeed", ()),
    ("paddle_2.5.1", "paddle", (2, 5, 1)), ("ngctorch2403", "pytorch", ()),
    ("deepspeed-torch", "deepspeed", ()), ("megatron_core060", "pytorch", ()),
    ("megatron", "megatron", ()), ("megatron_pai", "megatron", ()),
])
def test_family_and_version(framework, fam, ver):
    assert family(framework) == fam and version(framework) == ver
    assert CaseKey.parse(f"m:{framework}:A100:1:8:1").family == fam


@pytest.mark.parametrize("framework, folder", [
    ("pytorch_1.8", "pytorch_2.13"), ("pytorch_2.3", "pytorch_2.13"),
    ("tensorflow2", "tensorflow2_2.21"), ("deepspeed", "deepspeed_0.19"),
    ("paddle_2.5.1", "paddle_3.3"), ("ngctorch2403", "pytorch_2.13"),
    ("megatron_core060", "pytorch_2.13"),   # Megatron-Core: the pytorch image (it has it)
])
def test_flagperf_strings_resolve_to_chipperf_folders(framework, folder):
    choice = choose_folder(framework, CHIPPERF_FOLDERS, "nearest")
    assert choice.folder == folder
    assert repr(framework) in choice.note and repr(folder) in choice.note


@pytest.mark.parametrize("framework, folder", [
    ("pytorch_2.3", "pytorch_2.0.1"), ("pytorch_1.9", "pytorch_1.10"), ("pytorch_1.12", "pytorch_1.12"),
    ("pytorch", "pytorch_2.0.1"), ("paddle_2.6", "paddle_2.5.1"),
])
def test_nearest_version_among_many(framework, folder):
    assert choose_folder(framework, FLAGPERF_FOLDERS, "nearest").folder == folder


def test_exact_match_needs_no_note_and_exact_mode_refuses_with_the_list():
    assert choose_folder("pytorch_2.13", CHIPPERF_FOLDERS, "exact").note == ""
    refused = choose_folder("pytorch_1.8", CHIPPERF_FOLDERS, "exact")
    assert refused.folder is None
    assert "deepspeed_0.19, paddle_3.3, pytorch_2.13, tensorflow2_2.21" in refused.note


def test_no_folder_of_the_family():
    choice = choose_folder("megatron_pai", CHIPPERF_FOLDERS, "nearest")
    assert choice.folder is None and "no folder of the 'megatron' family" in choice.note


@pytest.fixture
def catalogue(tmp_path: Path) -> Catalogue:
    root = tmp_path / "training"
    for rel in ("benchmarks/resnet50/pytorch/run_pretraining.py",
                "nvidia/resnet50-pytorch/config/config_A100x1x8.py",
                *(f"nvidia/docker_image/{f}/Dockerfile" for f in CHIPPERF_FOLDERS)):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("")
    return Catalogue.scan(root)


def _configs(mode: str) -> tuple[ClusterConfig, TestConfig]:
    key = CaseKey.parse("resnet50:pytorch_1.8:A100:1:8:1")
    return (ClusterConfig(hosts=("10.1.2.2",)),
            TestConfig(vendor="nvidia", cases=(CaseEntry(key, "/raid/dataset/ImageNet_1k_2012/"),),
                       framework_match=mode))


def test_plan_says_which_folder_it_uses(catalogue):
    cluster, test = _configs("nearest")
    assert check(cluster, test, catalogue) == []
    plan = make_plan(cluster, test, catalogue, "run1", Path("r"))
    case = plan.cases[0]
    assert case.image_folder == "pytorch_2.13" and case.image_name == "chipperf/training-nvidia-pytorch_2.13"
    assert case.image_context == catalogue.images[("nvidia", "pytorch_2.13")]
    text = render_plan(plan, cluster, test)
    assert ("warning   resnet50:pytorch_1.8:A100:1:8:1: framework 'pytorch_1.8' has no image "
            "folder; using the nearest, 'pytorch_2.13'") in text


def test_plan_refuses_in_exact_mode_with_the_folders(catalogue):
    cluster, test = _configs("exact")
    problems = check(cluster, test, catalogue, where="test_conf.py")
    assert len(problems) == 1 and problems[0].startswith("test_conf.py: CASES[")
    assert "no image folder" in problems[0] and "pytorch_2.13, tensorflow2_2.21" in problems[0]


def test_framework_match_option_in_test_conf(tmp_path):
    path = tmp_path / "test_conf.py"
    path.write_text('VENDOR = "nvidia"\nFRAMEWORK_MATCH = "exact"\nCASES = {"a:pytorch:c:1:1:1": "/d"}\n')
    test, problems = parse_test(path)
    assert problems == [] and test.framework_match == "exact"
    path.write_text('VENDOR = "nvidia"\nFRAMEWORK_MATCH = "closest"\nCASES = {"a:pytorch:c:1:1:1": "/d"}\n')
    _, problems = parse_test(path)
    assert problems == [f"{path}: FRAMEWORK_MATCH: 'closest' is not valid (not one of nearest, "
                        "exact): use one of nearest, exact"]


def test_plan_says_when_cases_run_in_existing_containers(catalogue):
    import dataclasses

    cluster, test = _configs("nearest")
    test = dataclasses.replace(test, in_container_launch=True)
    plan = make_plan(cluster, test, catalogue, "run1", Path("r"))
    text = render_plan(plan, cluster, test)
    assert "launch      IN_CONTAINER_LAUNCH: the hosts are existing containers" in text
    assert "  image     none (the container's own)" in text
