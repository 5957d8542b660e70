"""resnet50:jax plans from the repository's own folders: on the cpu vendor (its jax_0.10 image,
the jax launcher's spawn line; one process, two on one host, one on each of two hosts), on the
tpu vendor (v5p, with the plan saying the path never ran on a TPU), and on nvidia (A100, H100,
H200, one GPU, eight and two hosts of eight: its jax_0.10 image, jax[cuda12], never built by chipperf)."""

from __future__ import annotations

from typing import Any

import pytest
from shippedplan import CLUSTER, one_case, shipped_catalogue

from chipperf.commands.render_plan import render_plan
from chipperf.config.model import ClusterConfig
from chipperf.launchers import get_launcher
from chipperf.plan import check, make_plan
from chipperf.suites.catalogue import Catalogue


@pytest.fixture(scope="module")
def catalogue() -> Catalogue:
    return shipped_catalogue()


def test_resnet50_jax_on_cpu_plans_with_its_image_and_launcher(catalogue, tmp_path) -> None:
    test = one_case("cpu", "resnet50:jax_0.10:xeon:1:1:1", tmp_path)
    assert check(CLUSTER, test, catalogue) == []
    case = make_plan(CLUSTER, test, catalogue, "run1", tmp_path / "r").cases[0]
    assert case.image_folder == "jax_0.10" and case.image_name == "chipperf/training-cpu-jax_0.10"
    assert get_launcher("jax").command  # the family's launcher is registered by its module
    plan = make_plan(CLUSTER, test, catalogue, "run1", tmp_path / "r")
    assert "never ran" not in render_plan(plan, CLUSTER, test)   # the cpu image is built in CI


def test_resnet50_jax_on_tpu_plans_and_says_it_never_ran(catalogue, tmp_path) -> None:
    test = one_case("tpu", "resnet50:jax_0.10:v5p:1:1:1", tmp_path)
    assert check(CLUSTER, test, catalogue) == []
    plan = make_plan(CLUSTER, test, catalogue, "run1", tmp_path / "r")
    assert plan.cases[0].image_folder == "jax_0.10"
    assert "tpu/v5p: NOT validated on real hardware here (no TPU has been available" in \
        render_plan(plan, CLUSTER, test)


def test_a_four_chip_v5p_host_plans_one_process(catalogue, tmp_path) -> None:
    assert check(CLUSTER, one_case("tpu", "resnet50:jax_0.10:v5p-8:1:1:1", tmp_path),
                 catalogue) == []
    two = check(CLUSTER, one_case("tpu", "resnet50:jax_0.10:v5p-8:1:2:1", tmp_path), catalogue)
    assert any("nproc=2: one process per host drives all of its TPU chips (JAX, one process "
               "per host): use nproc=1" in p for p in two)


def config_file(case: Any) -> str:
    """The vendor config every node's command names."""
    files = set()
    for node in case.rounds[0].nodes:
        files.add(node.command[list(node.command).index("--extern_config_file") + 1])
    assert len(files) == 1, files
    return files.pop()


@pytest.mark.parametrize("key,hosts", [("resnet50:jax_0.10:xeon:1:2:1", 1),
                                       ("resnet50:jax_0.10:xeon:2:1:1", 2)])
def test_two_processes_on_cpu_plan_one_jax_job(catalogue, tmp_path, key, hosts) -> None:
    """x1x2 and x2x1: two ranks of one job (jax.distributed from the launch environment)."""
    cluster = ClusterConfig(hosts=("10.0.0.1", "10.0.0.2")[:hosts])
    test = one_case("cpu", key, tmp_path)
    assert check(cluster, test, catalogue) == []
    case = make_plan(cluster, test, catalogue, "run1", tmp_path / "r").cases[0]
    assert case.image_folder == "jax_0.10" and len(case.rounds[0].nodes) == hosts
    assert config_file(case) == f"config_xeonx{hosts}x{3 - hosts}.py"


@pytest.mark.parametrize("chip", ["A100", "H100", "H200"])
@pytest.mark.parametrize("nnodes,nproc", [(1, 1), (1, 8), (2, 8)])
def test_resnet50_jax_on_nvidia_plans_with_its_cuda_image(catalogue, tmp_path, chip, nnodes,
                                                           nproc) -> None:
    cluster = ClusterConfig(hosts=("10.0.0.1", "10.0.0.2")[:nnodes])
    test = one_case("nvidia", f"resnet50:jax_0.10:{chip}:{nnodes}:{nproc}:1", tmp_path)
    assert check(cluster, test, catalogue) == []
    plan = make_plan(cluster, test, catalogue, "run1", tmp_path / "r")
    case = plan.cases[0]
    assert case.image_folder == "jax_0.10" and case.image_name == \
        "chipperf/training-nvidia-jax_0.10"
    assert config_file(case) == f"config_{chip}x{nnodes}x{nproc}.py"
    shown = render_plan(plan, cluster, test)
    assert f"nvidia/{chip}: NOT validated on real hardware here" in shown
    assert "  never ran its image chipperf/training-nvidia-jax_0.10 was never built by chipperf " \
        "(no GPU on its machines), so this case has never run in it on nvidia: the image build " \
        "and every step below are untried" in shown
