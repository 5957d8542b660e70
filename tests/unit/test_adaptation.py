"""A vendor's adaptation (issue 39): environment files, requirements and the trainer adapter,
read on the master at plan time (chipperf.config.adaptation), and the requirements layer's
tag (chipperf.containers.images). The case process: tests/cases/test_vendor_adaptation.py."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from chipperf.cli import EXIT_CONFIG, main
from chipperf.commands.render_plan import render_plan
from chipperf.config.adaptation import (
    adapter_gaps,
    adapter_hooks,
    case_adaptation,
    parse_env_file,
    requirements_problems,
)
from chipperf.config.model import CaseEntry, CaseKey, ClusterConfig, ImageBuildConfig, TestConfig
from chipperf.containers.images import REQUIREMENTS_LAYER, build_inputs, layer_inputs
from chipperf.plan import check, make_plan
from chipperf.run.record import RunRecord
from chipperf.suites.catalogue import Catalogue
from chipperf_runtime.training.driver.adapter import HOOKS, VENDOR_ENV_NAMES

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from vendoradapt import training_root  # noqa: E402

KEY = "resnet50:pytorch_2.13:xeon:1:1:1"
WHERE = f"test_conf: CASES[{KEY!r}]: vendor 'cpu'"


def configs(tmp_path: Path, data_dir: str = "/data") -> tuple[ClusterConfig, TestConfig]:
    cluster = ClusterConfig(hosts=("127.0.0.1",), work_root=str(tmp_path / "work"))
    test = TestConfig(vendor="cpu", result_root=str(tmp_path / "result"),
                      cases=(CaseEntry(CaseKey.parse(KEY), data_dir),))
    return cluster, test


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return training_root(tmp_path)


def test_the_fixture_plans_with_its_environment_in_the_container(tmp_path, root) -> None:
    cluster, test = configs(tmp_path)
    catalogue = Catalogue.scan(root)
    assert check(cluster, test, catalogue, "test_conf") == []
    plan = make_plan(cluster, test, catalogue, "run20260101000000", tmp_path / "result")
    (case,) = plan.cases
    node = case.rounds[0].nodes[0]
    expected = {"CHIPPERF_PROBE_VENDOR": "cpu-wide", "CHIPPERF_PROBE_CASE": "resnet50-adapted",
                "CHIPPERF_PROBE_QUOTED": "two words"}      # the case's file wins over the vendor's
    assert {k: node.env[k] for k in expected} == expected
    assert node.case_spec.env == node.env or all(node.case_spec.env[k] == v
                                                 for k, v in expected.items())
    assert node.env[VENDOR_ENV_NAMES].split(",") == list(expected)
    assert node.env["MASTER_ADDR"] == "127.0.0.1"           # the launch contract is untouched
    recorded = RunRecord._case(case)["adaptation"]          # as run.json has it
    assert recorded["env"] == expected
    assert recorded["env_files"] == [str(root / "cpu" / "environment_variables.sh"),
                                     str(root / "cpu/resnet50-pytorch/config/environment_variables.sh")]
    assert recorded["requirements"] == str(root / "cpu/resnet50-pytorch/config/requirements.txt")
    assert recorded["trainer_adapter"] == str(root / "cpu/resnet50-pytorch/extern/trainer_adapter.py")
    assert recorded["adapter_hooks"] == ["convert_model", "create_optimizer"]
    shown = render_plan(plan, cluster, test)
    assert "  vendor env CHIPPERF_PROBE_VENDOR=cpu-wide CHIPPERF_PROBE_CASE=resnet50-adapted " \
           "CHIPPERF_PROBE_QUOTED='two words' (from " in shown
    assert f"  requirements {recorded['requirements']}: installed in a layer, " \
           "chipperf/training-cpu-pytorch_2.13-req:<hash of it on the image>" in shown
    assert f"  trainer adapter {recorded['trainer_adapter']}: hooks convert_model, " \
           "create_optimizer" in shown
    uploads = {u.target: u.source for u in plan.uploads}
    assert uploads["code/vendor/resnet50-pytorch"] == root / "cpu/resnet50-pytorch"  # extern/ too


def test_a_case_without_adaptation_plans_as_before(tmp_path) -> None:
    cluster, test = configs(tmp_path)
    plan = make_plan(cluster, test, Catalogue.scan(Path("training")), "run1", tmp_path)
    (case,) = plan.cases
    assert VENDOR_ENV_NAMES not in case.rounds[0].nodes[0].env
    assert case.adaptation.requirements is None and case.adaptation.env == {}


@pytest.mark.parametrize("vendor_case", sorted(p for p in Path("training").glob("*/*-*")
                                                if p.parent.name != "benchmarks"),
                         ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_vendor_case_folder_of_the_tree_reads_cleanly(vendor_case) -> None:
    catalogue = Catalogue.scan(Path("training"))
    model, family = vendor_case.name.rsplit("-", 1)
    adaptation = case_adaptation(catalogue, vendor_case.parent.name, model, family, "tree")
    assert adaptation.problems == ()


def test_kunlunxin_resnet50_carries_flagperf_variables() -> None:
    adaptation = case_adaptation(Catalogue.scan(Path("training")), "kunlunxin", "resnet50",
                                 "pytorch", "tree")
    assert adaptation.env == {"BKCL_PCIE_RING": "1", "BKCL_TIMEOUT": "1800",
                              "XMLIR_D_XPU_L3_SIZE": "66060288", "XDNN_CONV_GEMM_DTYPE": "int16"}


def test_flagperf_kunlunxin_environment_files_overlaid_are_read(tmp_path) -> None:
    """FlagPerf's own files (tests/unit/data/flagperf/, source commit on their first line),
    dropped into chipperf's tree as a vendor would."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import flagperf_overlay

    catalogue = flagperf_overlay.overlay(tmp_path / "training")
    bert = case_adaptation(catalogue, "kunlunxin", "bert", "pytorch", "k")
    assert bert.problems == ()
    assert bert.env == {"XMLIR_F_XPU_ENABLED_BOOL": "true", "XMLIR_TORCH_XCCL_ENABLED": "true",
                        "BKCL_PCIE_RING": "1"}
    resnet = case_adaptation(catalogue, "kunlunxin", "resnet50", "pytorch", "k")
    assert resnet.problems == () and resnet.env["XDNN_CONV_GEMM_DTYPE"] == "int16"


# ---------------------------------------------------------------- environment files


def test_env_file_reads_assignments_only(tmp_path) -> None:
    path = tmp_path / "environment_variables.sh"
    path.write_text("# kunlunxin's kind of file\nset -x\nexport XDNN_CONV_GEMM_DTYPE=int16\n\n"
                    "BKCL_TREE_THRESHOLD=1  # trailing comment\nexport A='x $y' \n"
                    'export B="quoted"\n')
    values, problems = parse_env_file(path)
    assert problems == []
    assert values == {"XDNN_CONV_GEMM_DTYPE": "int16", "BKCL_TREE_THRESHOLD": "1",
                      "A": "x $y", "B": "quoted"}


@pytest.mark.parametrize("line, says", [
    ("export LD_LIBRARY_PATH=/opt/xre/lib:$LD_LIBRARY_PATH", "$ expansion"),
    ("export HOST=`hostname`", "command substitution"),
    ("source /opt/vendor/env.sh", "is not one `export NAME=value`"),
    ("export A=1 B=2", "several names on a line"),
    ("export A='open", "close the quote"),
    ("export 9LIVES=1", "is not a variable name"),
    ("export MASTER_PORT=1234", "set by chipperf's launch contract"),
])
def test_env_file_lines_chipperf_cannot_read_are_problems_naming_file_and_line(
        tmp_path, line, says) -> None:
    path = tmp_path / "environment_variables.sh"
    path.write_text(f"export OK=1\n{line}\n")
    values, (problem,) = parse_env_file(path)
    assert problem.startswith(f"{path}:2: ") and says in problem
    assert values == {"OK": "1"}


# ---------------------------------------------------------------- requirements and adapter


def test_requirements_lines_that_are_not_requirements(tmp_path) -> None:
    path = tmp_path / "requirements.txt"
    path.write_text("# vendor packages\nnumpy>=1.20\n-i https://mirror.example/simple\n"
                    "not a requirement!\nsix==1.16.0  # comment\n"
                    "https://download.pytorch.org/whl/cpu/torchvision-0.13.1%2Bcpu-cp38-cp38-"
                    "linux_x86_64.whl\n")   # FlagPerf's kunlunxin resnet50 line
    first, second = requirements_problems(path)
    assert first.startswith(f"{path}:3: '-i https://mirror.example/simple': pip options")
    assert second.startswith(f"{path}:4: 'not a requirement!' is not a requirement")


def test_adapter_hooks_are_its_top_level_functions_of_known_names(tmp_path) -> None:
    path = tmp_path / "trainer_adapter.py"
    path.write_text("import torch\n\ndef convert_model(model):\n    return model\n\n"
                    "def backward(step, loss, optimizer):\n    loss.backward()\n\n"
                    "def _helper():\n    pass\n")
    assert adapter_hooks(path) == (("convert_model", "backward"), [])
    assert set(HOOKS) == {"convert_model", "model_to_fp16", "model_to_ddp", "create_optimizer",
                          "create_grad_scaler", "backward", "update_model_params", "train_step",
                          "train_one_step", "calculate_loss"}


def test_a_hook_beside_one_that_replaces_its_step_whole_is_refused(tmp_path) -> None:
    """FlagPerf's iluvatar bert adapter has backward call update_model_params: in chipperf's
    loop backward is the whole backward and optimizer step, so update_model_params would never
    be called by the loop; the adapter keeps it as a helper under another name."""
    path = tmp_path / "trainer_adapter.py"
    path.write_text("def backward(step, loss, optimizer):\n    update_model_params(loss, optimizer)\n\n"
                    "def update_model_params(loss, optimizer):\n    optimizer.step()\n\n"
                    "def train_one_step(model, batch, optimizer):\n    return None\n")
    hooks, problems = adapter_hooks(path)
    assert hooks == ("backward", "update_model_params", "train_one_step")
    assert problems == [
        f"{path}: defines backward and update_model_params: backward replaces the whole step "
        "update_model_params is part of, so the loop never calls update_model_params: rename it "
        "(e.g. _update_model_params) as a helper that backward calls, or remove backward",
        f"{path}: defines train_one_step and backward: train_one_step replaces the whole step "
        "backward is part of, so the loop never calls backward: rename it (e.g. _backward) as a "
        "helper that train_one_step calls, or remove train_one_step",
        f"{path}: defines train_one_step and update_model_params: train_one_step replaces the "
        "whole step update_model_params is part of, so the loop never calls update_model_params: "
        "rename it (e.g. _update_model_params) as a helper that train_one_step calls, or remove "
        "train_one_step"]
    path.write_text("def backward(step, loss, optimizer):\n    _update_model_params(optimizer)\n\n"
                    "def _update_model_params(optimizer):\n    optimizer.step()\n")
    assert adapter_hooks(path) == (("backward",), [])


def test_adapter_that_does_not_parse_or_lacks_a_declared_hook(tmp_path) -> None:
    path = tmp_path / "trainer_adapter.py"
    path.write_text("def convert_model(model:\n")
    (problem,) = adapter_hooks(path)[1]
    assert problem.startswith(f"{path}:1: the trainer adapter does not parse")
    path.write_text("HOOKS = ['create_optimizer', 'fuse_kernels']\n\ndef convert_model(m):\n"
                    "    return m\n")
    lacks, unknown = adapter_hooks(path)[1]
    assert lacks == (f"{path}: declares hook(s) create_optimizer, fuse_kernels in HOOKS but does "
                     "not define them: define them or remove them from the list")
    assert unknown.startswith(f"{path}: HOOKS names fuse_kernels, which chipperf has no point for")


def test_an_adapter_says_what_of_flagperf_s_adapter_it_does_not_carry(tmp_path) -> None:
    path = tmp_path / "trainer_adapter.py"
    path.write_text("NOT_CARRIED = {'backward': 'FP16_Optimizer step', 'model_to_fp16': 'half'}\n")
    assert adapter_gaps(path) == (("backward: FP16_Optimizer step", "model_to_fp16: half"), [])
    path.write_text("WHY = 'x'\nNOT_CARRIED = {'backward': WHY}\n")
    assert adapter_gaps(path) == ((), [f"{path}:2: NOT_CARRIED must be a literal dict of "
                                       "{part: why} strings: write them out"])


def test_dcu_glm_plans_its_layer_norm_adapter_and_says_what_it_leaves(tmp_path) -> None:
    """dcu's glm adapter (apex's FusedLayerNorm through convert_model) plans; the three parts of
    FlagPerf's adapter chipperf's glm loop does otherwise are in the plan and in run.json."""
    key = CaseKey.parse("glm:pytorch_1.13:K100:1:8:1")
    cluster = ClusterConfig(hosts=("10.1.2.1",), work_root=str(tmp_path / "work"))
    test = TestConfig(vendor="dcu", result_root=str(tmp_path / "result"),
                      cases=(CaseEntry(key, "/data"),),
                      image=ImageBuildConfig(base_image="registry.example/dcu/pytorch"))
    catalogue = Catalogue.scan(Path("training"))
    assert check(cluster, test, catalogue, "test_conf") == []
    plan = make_plan(cluster, test, catalogue, "run1", tmp_path / "result")
    recorded = RunRecord._case(plan.cases[0])["adaptation"]
    assert recorded["adapter_hooks"] == ["convert_model"]
    assert [g.split(":")[0] for g in recorded["adapter_not_carried"]] == [
        "model_to_fp16", "model_to_ddp", "backward"]
    shown = render_plan(plan, cluster, test)
    assert "  not carried from FlagPerf's adapter: backward: FP16_Optimizer's" in shown


def test_an_adapter_importing_flagperf_case_modules_is_refused_unless_it_ships_them(tmp_path) -> None:
    """FlagPerf's kunlunxin bert adapter imports FlagPerf's ``config`` and ``utils``."""
    extern = tmp_path / "extern"
    extern.mkdir()
    path = extern / "trainer_adapter.py"
    path.write_text("import torch\nimport utils\nfrom config import mutable_params\n"
                    "from driver.dist_pytorch import main_proc_print\nimport layers.fused\n\n"
                    "def convert_model(model):\n    return model\n")
    (extern / "utils.py").write_text("")          # the vendor's own utils: shipped, fine
    hooks, problems = adapter_hooks(path)
    assert hooks == ("convert_model",)
    assert [p.split(": ")[0] for p in problems] == [f"{path}:3", f"{path}:4"]
    assert problems[0] == (f"{path}:3: imports config, a module of FlagPerf's case code that "
                           "chipperf's case does not have: take settings from the hook's `config` "
                           "argument (the case's parameters) instead")


# ---------------------------------------------------------------- bad input through plan


def _bad(root: Path, rel: str, text: str) -> Path:
    path = root / "cpu" / "resnet50-pytorch" / rel
    path.write_text(text)
    return path


@pytest.mark.parametrize("rel, text, says", [
    ("config/environment_variables.sh", "export A=$(id -u)\n", ":1: 'export A=$(id -u)': $ expansion"),
    ("config/requirements.txt", "--extra-index-url http://x\n", ":1: '--extra-index-url http://x'"),
    ("extern/trainer_adapter.py", "def create_optimizer(model, config)\n", ":1: the trainer "
     "adapter does not parse"),
    ("extern/trainer_adapter.py", "HOOKS = ['backward']\n", ": declares hook(s) backward"),
])
def test_bad_adaptation_is_one_problem_naming_vendor_case_and_file(
        tmp_path, root, rel, text, says) -> None:
    path = _bad(root, rel, text)
    cluster, test = configs(tmp_path)
    (problem,) = check(cluster, test, Catalogue.scan(root), "test_conf")
    assert problem.startswith(f"{WHERE}: {path}{says}"), problem


def test_the_vendors_visible_devices_variable_is_chipperfs(tmp_path) -> None:
    root = tmp_path / "training"
    shutil.copytree(Path("training/kunlunxin/resnet50-pytorch"), root / "kunlunxin/resnet50-pytorch")
    (root / "benchmarks").symlink_to(Path("training/benchmarks").resolve())
    path = root / "kunlunxin/resnet50-pytorch/config/environment_variables.sh"
    path.write_text(path.read_text() + "export XPU_VISIBLE_DEVICES=0,1\n")
    adaptation = case_adaptation(Catalogue.scan(root), "kunlunxin", "resnet50", "pytorch", "k")
    assert adaptation.problems == (f"k: vendor 'kunlunxin': {path}: sets XPU_VISIBLE_DEVICES, "
                                   "which chipperf sets per node from the case key's nproc: remove "
                                   "it (or set VISIBLE_DEVICES_ENV in the test config)",)


def test_a_hook_the_case_loop_has_no_point_for_is_refused(tmp_path, root) -> None:
    """bert's loop (hftext) has train_one_step, not the image loop's train_step: an adapter's
    train_step would be dropped."""
    bert = root / "cpu" / "bert-pytorch"
    shutil.copytree(Path("training/cpu/bert-pytorch"), bert)
    (bert / "extern").mkdir()
    (bert / "extern" / "trainer_adapter.py").write_text(
        "def create_optimizer(model, args):\n    return None\n\n"
        "def train_step(model, batch, optimizer, scaler=None):\n    return None\n")
    cluster = ClusterConfig(hosts=("127.0.0.1",), work_root=str(tmp_path / "work"))
    key = "bert:pytorch_2.13:xeon:1:1:1"
    test = TestConfig(vendor="cpu", cases=(CaseEntry(CaseKey.parse(key), "/data"),))
    problems = check(cluster, test, Catalogue.scan(root), "test_conf")
    assert f"test_conf: CASES[{key!r}]: vendor 'cpu': {bert}/extern/trainer_adapter.py: defines " \
           "train_step, which this case's training loop does not call (its hook points: " \
           "convert_model, model_to_fp16, model_to_ddp, create_optimizer, create_grad_scaler, " \
           "backward, update_model_params, train_one_step)" in "\n".join(problems)


def test_a_run_with_a_bad_adapter_exits_2_and_makes_no_run_dir(tmp_path, root, capsys) -> None:
    path = _bad(root, "extern/trainer_adapter.py", "HOOKS = ['backward']\n")
    (tmp_path / "cluster.yaml").write_text(f"hosts: ['127.0.0.1']\nwork_root: {tmp_path}/work\n")
    (tmp_path / "test.yaml").write_text(
        f"vendor: cpu\nresult_root: {tmp_path}/result\ntraining_dir: {root}\n"
        f"cases: {{'{KEY}': {tmp_path}}}\n")
    code = main(["run", "--cluster", str(tmp_path / "cluster.yaml"),
                 "--test", str(tmp_path / "test.yaml")])
    err = capsys.readouterr().err
    assert code == EXIT_CONFIG, err
    assert f"CASES[{KEY!r}]: vendor 'cpu': {path}: declares hook(s) backward" in err
    assert "Traceback" not in err
    assert not (tmp_path / "result").exists() or not any((tmp_path / "result").iterdir())
    assert not (tmp_path / "work").exists()


# ---------------------------------------------------------------- the requirements layer


def test_the_layer_tag_hashes_requirements_and_base(tmp_path) -> None:
    framework = build_inputs(Path("training/cpu/docker_image/pytorch_2.13"), ImageBuildConfig())
    requirements = tmp_path / "requirements.txt"

    def digest(text: str, base: str = "chipperf/training-cpu-pytorch_2.13:0123") -> str:
        requirements.write_text(text)
        folder = tmp_path / f"layer{len(list(tmp_path.iterdir()))}"
        folder.mkdir()
        return layer_inputs(folder, base, requirements, framework).digest()

    first = digest("six==1.16.0\n")
    assert digest("six==1.16.0\n") == first
    assert digest("six==1.17.0\n") != first
    assert digest("six==1.16.0\n", "chipperf/training-cpu-pytorch_2.13:4567") != first
    assert "FROM ${BASE_IMAGE}" in REQUIREMENTS_LAYER
    # the framework image's own inputs do not include a case's requirements: its tag is unchanged
    assert framework.digest() == build_inputs(framework.context, ImageBuildConfig()).digest()
