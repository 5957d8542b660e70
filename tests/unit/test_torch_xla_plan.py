"""PyTorch through torch_xla (framework pytorch_xla_2.9), planned from the repository's folders:
on the cpu vendor (device kind xla on PJRT's CPU backend, its built image) and on the tpu vendor
(v5e-1, v6e-1: PJRT_DEVICE=TPU, the plan saying it never ran on a TPU); what the plan refuses
(eager PyTorch on a TPU, a vendor without a PJRT device, more than one process, a case without
an XLA loop); FlagPerf's nearest-folder choice never crossing between eager and XLA folders;
and torch_xla's metrics read as facts: the ops that ran outside XLA and the message that stops
the case, a torch_xla that does not match torch."""

from __future__ import annotations

from pathlib import Path

import pytest
from shippedplan import CLUSTER, REPO, one_case, shipped_catalogue

from chipperf.commands.render_plan import render_plan
from chipperf.config.model import TestConfig
from chipperf.frameworks import choose_folder
from chipperf.plan import check, make_plan
from chipperf.plan.torchxla import pinned_pair
from chipperf.suites.catalogue import Catalogue
from chipperf_runtime.device.xlametrics import (
    fallback_message,
    fallback_ops,
    metric_seconds,
    version_mismatch,
)


@pytest.fixture(scope="module")
def catalogue() -> Catalogue:
    return shipped_catalogue()


def node_env(catalogue: Catalogue, test: TestConfig, tmp_path: Path) -> dict[str, str]:
    case = make_plan(CLUSTER, test, catalogue, "run1", tmp_path / "r").cases[0]
    return dict(case.rounds[0].nodes[0].env)


def test_the_cpu_key_plans_on_the_xla_device_in_its_image(catalogue, tmp_path) -> None:
    test = one_case("cpu", "resnet50:pytorch_xla_2.9:xeon:1:1:1", tmp_path)
    assert check(CLUSTER, test, catalogue) == []
    plan = make_plan(CLUSTER, test, catalogue, "run1", tmp_path / "r")
    case = plan.cases[0]
    assert case.image_folder == "pytorch_xla_2.9"
    env = dict(case.rounds[0].nodes[0].env)
    assert (env["CHIPPERF_DEVICE"], env["PJRT_DEVICE"]) == ("xla", "CPU")
    assert "never" not in render_plan(plan, CLUSTER, test)   # CI builds and runs the cpu image


@pytest.mark.parametrize("chip", ["v5e-1", "v6e-1"])
def test_tpu_keys_plan_on_pjrt_tpu_and_say_they_never_ran(catalogue, tmp_path, chip) -> None:
    test = one_case("tpu", f"resnet50:pytorch_xla_2.9:{chip}:1:1:1", tmp_path)
    assert check(CLUSTER, test, catalogue) == []
    plan = make_plan(CLUSTER, test, catalogue, "run1", tmp_path / "r")
    assert plan.cases[0].image_folder == "pytorch_xla_2.9"
    env = dict(plan.cases[0].rounds[0].nodes[0].env)
    assert (env["CHIPPERF_DEVICE"], env["PJRT_DEVICE"]) == ("xla", "TPU")
    assert "NOT validated on real hardware here (no TPU has been available" in \
        render_plan(plan, CLUSTER, test)


def test_eager_pytorch_on_a_tpu_is_refused_naming_the_xla_framework(catalogue, tmp_path) -> None:
    problems = check(CLUSTER, one_case("tpu", "resnet50:pytorch_2.13:v5e-1:1:1:1", tmp_path),
                     catalogue)
    assert any("PyTorch reaches TPUs only through torch_xla (PJRT), and this is eager "
               "PyTorch: use framework 'pytorch_xla_2.9'" in p for p in problems), problems


def test_a_vendor_without_a_pjrt_device_is_refused(catalogue, tmp_path) -> None:
    problems = check(CLUSTER, one_case("nvidia", "resnet50:pytorch_xla_2.9:A100:1:1:1", tmp_path),
                     catalogue)
    assert any("framework 'pytorch_xla_2.9' runs PyTorch through torch_xla (PJRT), and vendor "
               "'nvidia' has no PJRT device for it: use vendor cpu or tpu" in p
               for p in problems), problems


def test_more_than_one_process_and_a_case_without_an_xla_loop_are_refused(
        catalogue, tmp_path) -> None:
    two = check(CLUSTER, one_case("cpu", "resnet50:pytorch_xla_2.9:xeon:1:2:1", tmp_path),
                catalogue)
    assert any("runs one process (nnodes=1, nproc=1)" in p for p in two), two
    bert = check(CLUSTER, one_case("cpu", "bert:pytorch_xla_2.9:xeon:1:1:1", tmp_path), catalogue)
    assert any("case 'bert' has no XLA loop (its case.yaml lacks torch_xla: true" in p
               for p in bert), bert


def test_the_nearest_folder_never_crosses_between_eager_and_xla() -> None:
    folders = ["pytorch_2.13", "pytorch_xla_2.9"]
    assert choose_folder("pytorch_1.8", folders, "nearest").folder == "pytorch_2.13"
    assert choose_folder("pytorch_2.9", folders, "nearest").folder == "pytorch_2.13"
    assert choose_folder("pytorch_xla_2.8", folders, "nearest").folder == "pytorch_xla_2.9"
    none = choose_folder("pytorch_2.13", ["jax_0.10", "pytorch_xla_2.9"], "nearest")
    assert none.folder is None and "no eager folder of the 'pytorch' family" in none.note


def test_ops_outside_xla_are_named_and_a_scalar_read_is_not_one() -> None:
    counters = {"aten::_local_scalar_dense": 7, "aten::median": 2, "aten::bincount": 1,
                "aten::histc": 0, "CachedCompile": 9, "MarkStep": 12}
    ops = fallback_ops(counters)
    assert ops == {"bincount": 1, "median": 2}
    assert fallback_message(ops, "in training step 1") == (
        "2 op(s) ran outside XLA in training step 1, on the CPU in eager PyTorch (torch_xla's "
        "metrics: aten::bincount (1 call), aten::median (2 calls)); the step would not be one "
        "XLA program, so the case stops instead of measuring it: replace the op(s) in the model "
        "or the loop")
    assert fallback_ops({"aten::_local_scalar_dense": 3}) == {}


def test_compile_metrics_read_as_count_and_seconds() -> None:
    assert metric_seconds((6, 25_752_000_000.0, [])) == (6, 25.752)
    assert metric_seconds(None) == (0, 0.0)


def test_a_torch_xla_for_another_torch_is_named_with_both_versions() -> None:
    assert version_mismatch("2.9.0+cu128", "2.9.0") is None
    message = version_mismatch("2.13.0+cpu", "2.9.0")
    assert message is not None and message.startswith(
        "torch_xla 2.9.0 is built for torch 2.9 and this image has torch 2.13.0+cpu")
    missing = version_mismatch("2.13.0+cpu", None)
    assert missing is not None and "torch_xla is not installed beside torch 2.13.0+cpu" in missing


def test_requirements_pinning_another_torch_than_torch_xla_needs_are_refused_naming_both(
        tmp_path) -> None:
    """A case root whose tpu image folder pins torch 2.13 beside torch_xla 2.9 (the rest of the
    tree linked from the repository's)."""
    root = tmp_path / "training"
    (root / "tpu" / "docker_image").mkdir(parents=True)
    (root / "benchmarks").symlink_to(REPO / "training" / "benchmarks")
    (root / "tpu" / "resnet50-pytorch").symlink_to(REPO / "training" / "tpu" / "resnet50-pytorch")
    image = root / "tpu" / "docker_image" / "pytorch_xla_2.9"
    image.mkdir()
    (image / "Dockerfile").write_text("FROM scratch\n")
    (image / "requirements.txt").write_text("torch==2.13.0\ntorch_xla[tpu]==2.9.0\nnumpy\n")
    test = one_case("tpu", "resnet50:pytorch_xla_2.9:v5e-1:1:1:1", tmp_path)
    problems = check(CLUSTER, test, Catalogue.scan(root))
    assert any(f"{image / 'requirements.txt'} pins torch_xla==2.9.0 beside torch==2.13.0: "
               "torch_xla 2.9.0 is built for torch 2.9 and requires it exactly" in p
               for p in problems), problems


def test_the_shipped_xla_images_pin_a_matching_pair() -> None:
    for vendor in ("cpu", "tpu"):
        text = (REPO / "training" / vendor / "docker_image" / "pytorch_xla_2.9" /
                "requirements.txt").read_text()
        assert pinned_pair(text) == ("2.9.0", "2.9.0"), vendor
