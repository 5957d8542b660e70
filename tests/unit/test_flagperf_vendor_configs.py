"""Vendor configs checked on the master at plan time; FlagPerf's parameter names mapped per case."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from chipperf.catalogue import Catalogue
from chipperf.config import flagperf_aliases
from chipperf.config.model import CaseEntry, CaseKey, ClusterConfig, TestConfig
from chipperf.config.vendorconfig import check_vendor_config
from chipperf.plan import check, make_plan

REPO = Path(__file__).resolve().parents[2]
TRAINING = REPO / "training"
DATA = Path(__file__).resolve().parent / "data" / "flagperf"
sys.path[:0] = [p for p in (str(TRAINING / "benchmarks"),) if p not in sys.path]

from chipperf_runtime.training.driver.config import read_python  # noqa: E402

OUR_CONFIGS = sorted(TRAINING.glob("*/*-*/config/config_*x*x*.py"))

PACKAGES = (REPO,)   # as chipperf.plan passes them (the folder holding chipperf_runtime)

def _case(vendor_config: Path) -> tuple[Path, str]:
    model, family = vendor_config.parent.parent.name.rsplit("-", 1)
    return TRAINING / "benchmarks" / model / family / "config", f"{model}:{family}"


@pytest.mark.parametrize("path", OUR_CONFIGS, ids=lambda p: str(p.relative_to(TRAINING)))
def test_plan_time_reading_agrees_with_the_case_code(path):
    config_dir, case = _case(path)
    checked = check_vendor_config(config_dir, path, case, (REPO,))
    assert checked.checked and checked.problems == () and checked.renamed == {}
    assert checked.values == read_python(path)  # what the case reads in the container


def test_flagperf_resnet50_config_is_refused_naming_file_parameter_and_allowed_list():
    path = DATA / "nvidia" / "resnet50-pytorch" / "config" / "config_A100x1x8.py"
    checked = check_vendor_config(TRAINING / "benchmarks/resnet50/pytorch/config", path,
                                  "resnet50:pytorch", PACKAGES)
    assert [p.split(": ")[0:2] for p in checked.problems] == [
        [f"{path}:2", "sets 'lr', which this case does not have (FlagPerf names understood"],
        [f"{path}:3", "sets 'train_batch_size', which this case does not have (FlagPerf names understood"],
        [f"{path}:4", "sets 'eval_batch_size', which this case does not have (FlagPerf names understood"],
    ]
    assert all("max_epoch->max_epochs); allowed: base_lr, bn_momentum" in p for p in checked.problems)


def test_star_imported_names_are_checked_where_they_are_set(tmp_path):
    folder = DATA / "kunlunxin" / "resnet50-pytorch" / "config"
    checked = check_vendor_config(TRAINING / "benchmarks/resnet50/pytorch/config",
                                  folder / "config_R300x1x8.py", "resnet50:pytorch", PACKAGES)
    firsts = [p.split(": ")[0] for p in checked.problems]
    assert firsts[:3] == [f"{folder / 'config_common.py'}:{n}" for n in (2, 3, 4)]  # vendor, ...
    assert "sets 'seed'" not in " ".join(checked.problems)  # a knob resnet50 has
    assert checked.values["seed"] == 23333


LLAMA_FLAGPERF = '''# FlagPerf's names (training/nvidia/llama2_7b-deepspeed/config/config_A100x1x8.py)
seqlength = 4096
batchsize = 1
learning_rate = 3e-4
'''


def test_llama_aliases_map_with_a_note_and_the_rest_is_refused(tmp_path):
    path = tmp_path / "config_A100x1x8.py"
    path.write_text(LLAMA_FLAGPERF)
    config_dir = TRAINING / "benchmarks/llama2_7b/deepspeed/config"
    checked = check_vendor_config(config_dir, path, "llama2_7b:deepspeed", PACKAGES)
    assert checked.problems == ()
    assert checked.values == {"seq_len": 4096, "micro_batch_size": 1, "learning_rate": 3e-4}
    assert checked.notes(path) == (f"{path}: batchsize is FlagPerf's name for micro_batch_size: set "
                                   "as micro_batch_size",
                                   f"{path}: seqlength is FlagPerf's name for seq_len: set as seq_len")
    real = check_vendor_config(config_dir, DATA.parent / "flagperf" / "nvidia" / "resnet50-pytorch" /
                               "config" / "config_A100x1x8.py", "llama2_7b:deepspeed", PACKAGES)
    assert len(real.problems) == 3


def test_wrong_kind_and_a_knob_set_twice(tmp_path):
    path = tmp_path / "config_A100x1x8.py"
    path.write_text('seqlength = "4096"\nseq_len = 2048\n')
    checked = check_vendor_config(TRAINING / "benchmarks/llama2_7b/deepspeed/config", path,
                                  "llama2_7b:deepspeed", PACKAGES)
    base = TRAINING / "benchmarks/llama2_7b/deepspeed/config/_base.py"
    assert len(checked.problems) == 2
    assert checked.problems[0] == f"{path}:2: sets seq_len twice (seqlength and seq_len): keep one"
    assert checked.problems[1].startswith(f"{path}:1: seqlength = '4096' is a str, but its default ")
    assert f"({base}:" in checked.problems[1] and checked.problems[1].endswith("give a number")


def test_an_alias_that_maps_to_two_knobs_is_refused(tmp_path, monkeypatch):
    monkeypatch.setitem(flagperf_aliases.FLAGPERF_ALIASES, "resnet50:pytorch",
                        {"lr": ["base_lr", "lr_reference_batch"]})
    path = tmp_path / "config_A100x1x8.py"
    path.write_text("seed = 1\n")
    checked = check_vendor_config(TRAINING / "benchmarks/resnet50/pytorch/config", path,
                                  "resnet50:pytorch", PACKAGES)
    assert checked.problems == ("chipperf/config/flagperf_aliases.py:17: resnet50:pytorch: lr maps to "
                                "['base_lr', 'lr_reference_batch']: an alias maps to one knob; keep one",)


@pytest.fixture
def catalogue(tmp_path: Path) -> Catalogue:
    root = tmp_path / "training"
    shutil.copytree(TRAINING / "benchmarks/llama2_7b", root / "benchmarks/llama2_7b")
    (root / "nvidia/llama2_7b-deepspeed/config").mkdir(parents=True)
    (root / "nvidia/llama2_7b-deepspeed/config/config_A100x1x8.py").write_text(LLAMA_FLAGPERF)
    (root / "nvidia/llama2_7b-deepspeed/config/config_A100x1x1.py").write_text(
        "seqlength = 4096\ntheoryflops = 312000000000000.0\n")
    (root / "nvidia/docker_image/deepspeed_0.19").mkdir(parents=True)
    (root / "nvidia/docker_image/deepspeed_0.19/Dockerfile").write_text("")
    return Catalogue.scan(root)


def _configs(*keys: str) -> tuple[ClusterConfig, TestConfig]:
    return (ClusterConfig(hosts=("10.1.2.2",)),
            TestConfig(vendor="nvidia", cases=tuple(CaseEntry(CaseKey.parse(k), "/raid/llama")
                                                   for k in keys)))


def test_plan_refuses_unknown_names_before_any_image_is_built(catalogue):
    cluster, test = _configs("llama2_7b:deepspeed:A100:1:1:1")
    problems = check(cluster, test, catalogue, where="test_conf.py")
    assert len(problems) == 1 and "config_A100x1x1.py:2: sets 'theoryflops'" in problems[0]
    assert "allowed: activation_checkpointing, adam_beta1" in problems[0]


def test_plan_ships_a_translated_config_and_says_so(catalogue):
    cluster, test = _configs("llama2_7b:deepspeed:A100:1:8:1")
    assert check(cluster, test, catalogue) == []
    plan = make_plan(cluster, test, catalogue, "run1", Path("r"))
    (target, text), = plan.files
    assert target == "code/vendor/llama2_7b-deepspeed/config/chipperf_config_A100x1x8.py"
    assert "seq_len = 4096\nmicro_batch_size = 1\nlearning_rate = 0.0003\n" in text
    command = plan.cases[0].rounds[0].nodes[0].command
    assert command[command.index("--extern_config_file") + 1] == "chipperf_config_A100x1x8.py"
    assert any("seqlength is FlagPerf's name for seq_len" in n for n in plan.cases[0].notes)
    written = catalogue.root / "translated.py"
    written.write_text(text)
    assert read_python(written) == {"seq_len": 4096, "micro_batch_size": 1, "learning_rate": 3e-4}
    from chipperf_runtime.training.driver.config import read_aliases  # what the case's SUBMIT_INFO reports

    assert read_aliases(written) == {"batchsize": "micro_batch_size", "seqlength": "seq_len"}
