"""Vendor configs checked on the master at plan time; FlagPerf's parameter names mapped per case."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from chipperf.config import flagperf_aliases, flagperf_knobs
from chipperf.config.flagperf_knobs import NO_EFFECT
from chipperf.config.model import CaseEntry, CaseKey, ClusterConfig, TestConfig
from chipperf.config.vendorconfig import check_vendor_config
from chipperf.plan import check, make_plan
from chipperf.suites.catalogue import Catalogue

REPO = Path(__file__).resolve().parents[2]
TRAINING = REPO / "training"
DATA = Path(__file__).resolve().parent / "data" / "flagperf"
sys.path[:0] = [p for p in (str(TRAINING / "benchmarks"),) if p not in sys.path]

from chipperf_runtime.training.driver.config import load_case_config, read_python  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import flagperf_overlay  # noqa: E402

# chipperf's own configs, in chipperf's names; those carried from FlagPerf's vendor folders
# (first line "# From FlagOpen/FlagPerf...", scripts/flagperf_vendor_cases.py) keep FlagPerf's
# names and are translated at plan time (test_flagperf_vendor_sections.py plans each)
OUR_CONFIGS = sorted(p for p in TRAINING.glob("*/*-*/config/config_*x*x*.py")
                     if not p.read_text().startswith("# From FlagOpen/FlagPerf"))

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


def test_flagperf_resnet50_config_loads_with_its_per_device_sizes_made_global():
    path = DATA / "nvidia" / "resnet50-pytorch" / "config" / "config_A100x1x8.py"
    checked = check_vendor_config(TRAINING / "benchmarks/resnet50/pytorch/config", path,
                                  "resnet50:pytorch", PACKAGES, world=8)
    assert checked.problems == ()
    # FlagPerf: lr 0.1 at 32 images per device x 8 devices; chipperf: the same rate, unscaled
    assert checked.values == {"global_batch_size": 256, "base_lr": 0.1, "lr_reference_batch": 256}
    assert checked.no_effect == {"eval_batch_size": NO_EFFECT["eval_batch_size"]}
    notes = checked.notes(Path("config_A100x1x8.py"))
    assert notes[0].startswith("config_A100x1x8.py: global_batch_size = 256, derived from FlagPerf's "
                               "train_batch_size (per device) x gradient_accumulation_steps x nnodes")
    assert notes[-1] == ("config_A100x1x8.py: eval_batch_size: no effect in chipperf: the evaluation "
                         "batch does not change the trained model or the timed training steps; "
                         "chipperf's case evaluates with its own batch")


def test_a_name_in_no_table_is_refused_naming_file_parameter_and_allowed_list(tmp_path):
    path = tmp_path / "config_A100x1x8.py"
    path.write_text("vendor = 'nvidia'\nno_such_knob = 1\n")
    checked = check_vendor_config(TRAINING / "benchmarks/resnet50/pytorch/config", path,
                                  "resnet50:pytorch", PACKAGES)
    problem, = checked.problems
    assert problem.startswith(f"{path}:2: sets 'no_such_knob', which this case does not have "
                              "(FlagPerf names understood: max_epoch->max_epochs); allowed: base_lr")
    assert list(checked.no_effect) == ["vendor"]


def test_star_imported_names_are_read_where_they_are_set():
    folder = DATA / "kunlunxin" / "resnet50-pytorch" / "config"
    checked = check_vendor_config(TRAINING / "benchmarks/resnet50/pytorch/config",
                                  folder / "config_R300x1x8.py", "resnet50:pytorch", PACKAGES, 8)
    assert checked.problems == ()
    assert {"vendor", "dist_backend", "ddp_type"} <= set(checked.no_effect)  # from config_common.py
    assert checked.values["seed"] == 23333
    # FlagPerf stops at 133116700 samples (100 epochs); at 32 x 8 per step that is 519988 steps
    assert checked.values["max_steps"] == 519988 and checked.values["global_batch_size"] == 256


def test_bert_grad_scaler_idiom_is_noted_not_refused_and_max_steps_is_the_first_limit():
    path = DATA / "nvidia" / "bert-pytorch" / "config" / "config_A100x1x8.py"
    checked = check_vendor_config(TRAINING / "benchmarks/bert/pytorch/config", path,
                                  "bert:pytorch", PACKAGES, world=8)
    assert checked.problems == ()
    assert checked.no_effect["grad_scaler"].startswith("FlagPerf's AMP loss-scaler object")
    assert {"cuda_graph_mode", "unpad", "fused_mha", "ddp_type", "dist_backend"} <= set(checked.no_effect)
    # 24 per device x 4 accumulation x 8 = 768; 4500000 samples / 768 = 5860 steps < max_steps 30000
    assert checked.values["global_batch_size"] == 768 and checked.values["max_steps"] == 5860
    assert checked.values["weight_decay"] == 0.01 and checked.renamed == {"weight_decay_rate": "weight_decay"}


def test_a_call_of_a_name_with_no_table_entry_still_needs_execution(tmp_path):
    path = tmp_path / "config_A100x1x8.py"
    path.write_text("from torch.cuda.amp import GradScaler\nscaler = GradScaler()\n")
    checked = check_vendor_config(TRAINING / "benchmarks/bert/pytorch/config", path, "bert:pytorch",
                                  PACKAGES)
    problem, = checked.problems
    assert problem.startswith(f"{path}:2: scaler: calls GradScaler(), which needs real execution")


def test_two_derivations_of_one_knob_must_agree(tmp_path):
    path = tmp_path / "config_A100x1x8.py"
    path.write_text("amp = True\nfp16 = False\n")
    checked = check_vendor_config(TRAINING / "benchmarks/resnet50/pytorch/config", path,
                                  "resnet50:pytorch", PACKAGES)
    problem, = checked.problems
    assert problem.startswith(f"{path}:2: fp16 gives dtype = 'fp32', but amp: True")


def test_a_knob_set_both_directly_and_by_derivation_is_refused(tmp_path):
    path = tmp_path / "config_A100x1x8.py"
    path.write_text("train_batch_size = 32\nglobal_batch_size = 256\n")
    checked = check_vendor_config(TRAINING / "benchmarks/resnet50/pytorch/config", path,
                                  "resnet50:pytorch", PACKAGES, 8)
    assert checked.problems == (f"{path}:1: sets global_batch_size twice (global_batch_size and "
                                "FlagPerf's train_batch_size): keep one",)


def test_every_flagperf_vendor_config_for_a_case_chipperf_has_plans(tmp_path, monkeypatch):
    """The share measured in docs/flagperf-names.md: FlagPerf's 161 per-topology configs
    (FlagOpen/FlagPerf@1b5a030) overlaid on training/. Without the derivation and no-effect
    tables none of them loads (the share before them); with them, all do, each with notes.
    The whole plan of each accepts it too (kunlunxin's and iluvatar's paddle and iluvatar's
    deepspeed image folders, added with the vendor folders, were the last three missing)."""
    catalogue = flagperf_overlay.overlay(tmp_path / "training")
    planned = flagperf_overlay.plan_each(catalogue)
    assert len(planned) == 161
    assert all(p.config_problems == () and p.notes for p in planned)
    assert [(p.key, p.plan_problems) for p in planned if p.plan_problems] == []
    for p in [p for p in planned if not p.plan_problems][::9]:   # what the case reads: by its loader
        entry = CaseEntry(CaseKey.parse(p.key), "/data")
        test = TestConfig(vendor=p.vendor, cases=(entry,))
        (_, text), = make_plan(ClusterConfig(hosts=flagperf_overlay.HOSTS), test, catalogue,
                               "run1", Path("r")).files
        (tmp_path / "translated.py").write_text(text)
        config_dir = catalogue.cases[(entry.key.model, entry.key.family)] / "config"
        assert load_case_config(config_dir, tmp_path / "translated.py", ())
    monkeypatch.setattr(flagperf_knobs, "DERIVED", {})
    monkeypatch.setattr(flagperf_knobs, "NO_EFFECT", {})
    monkeypatch.setattr(flagperf_knobs, "CASE_NO_EFFECT", {})
    assert [p for p in flagperf_overlay.plan_each(catalogue) if not p.config_problems] == []


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
    assert len(real.problems) == 2   # lr and train_batch_size: llama2 has no such knob
    assert list(real.no_effect) == ["eval_batch_size"]


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
    assert checked.problems == ("chipperf/config/flagperf_aliases.py:20: resnet50:pytorch: lr maps to "
                                "['base_lr', 'lr_reference_batch']: an alias maps to one knob; keep one",)


@pytest.fixture
def catalogue(tmp_path: Path) -> Catalogue:
    root = tmp_path / "training"
    shutil.copytree(TRAINING / "benchmarks/llama2_7b", root / "benchmarks/llama2_7b")
    (root / "nvidia/llama2_7b-deepspeed/config").mkdir(parents=True)
    (root / "nvidia/llama2_7b-deepspeed/config/config_A100x1x8.py").write_text(LLAMA_FLAGPERF)
    (root / "nvidia/llama2_7b-deepspeed/config/config_A100x1x1.py").write_text(
        "seqlength = 4096\ntheoryflops = 312000000000000.0\nmodel_parallel = 2\n")
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
    assert len(problems) == 1 and "config_A100x1x1.py:3: sets 'model_parallel'" in problems[0]
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


def test_no_effect_names_are_noted_in_the_plan_and_reported_by_the_case(catalogue):
    (catalogue.root / "nvidia/llama2_7b-deepspeed/config/config_A100x1x1.py").write_text(
        "seqlength = 4096\ntheoryflops = 312000000000000.0\nflashattn = True\n")
    cluster, test = _configs("llama2_7b:deepspeed:A100:1:1:1")
    assert check(cluster, test, catalogue) == []
    plan = make_plan(cluster, test, catalogue, "run1", Path("r"))
    assert f"llama2_7b:deepspeed:A100:1:1:1: config_A100x1x1.py: theoryflops: no effect in chipperf: " \
        f"{NO_EFFECT['theoryflops']}" in plan.cases[0].notes      # run.json's case notes
    (target, text), = plan.files
    assert "theoryflops =" not in text and "flashattn =" not in text
    written = catalogue.root / "translated.py"
    written.write_text(text)
    from chipperf_runtime.training.driver.config import NO_EFFECT_NAME, read_aliases

    assert read_aliases(written, NO_EFFECT_NAME) == {n: NO_EFFECT[n] for n in ("flashattn", "theoryflops")}
    assert read_python(written) == {"seq_len": 4096}


def test_flagperf_llava_config_gives_the_batch_of_the_stage_the_case_runs(tmp_path):
    """FlagPerf's training/nvidia/llava1.5_7b-deepspeed-torch/config/config_A800x1x8.py (its
    knobs, at FlagOpen/FlagPerf@1b5a030) on 1 x 8 chips: finetune takes 16 per device,
    pretrain 32, both stages in one run (the case's default) as in FlagPerf."""
    flagperf = ("theoryflops = 312000000000000.0\n"
                "pretrain_per_device_train_batch_size = 32\npretrain_gradient_accumulation_steps = 1\n"
                "finetune_per_device_train_batch_size = 16\nfinetune_gradient_accumulation_steps = 1\n"
                'output_dir_finetune = "Output/checkpoints_finetune/llava-v1.5-7b"\n'
                'mmmu_data_path = "MMMU/MMMU"\n')
    folder = TRAINING / "benchmarks/llava1.5_7b/pytorch/config"
    path = tmp_path / "config_A100x1x8.py"
    path.write_text(flagperf)
    checked = check_vendor_config(folder, path, "llava1.5_7b:pytorch", PACKAGES, world=8)
    assert checked.problems == ()
    # stage "both" (the case's default, FlagPerf's case): finetune in the case's knobs,
    # pretrain in its recipe (its lr and length kept)
    assert checked.values == {"global_batch_size": 128, "micro_batch_size": 16, "pretrain_recipe": {
        "global_batch_size": 256, "micro_batch_size": 32, "learning_rate": 1e-3,
        "warmup_steps": 66, "max_steps": 2180}}
    assert set(checked.no_effect) == {"theoryflops", "output_dir_finetune", "mmmu_data_path"}
    checked = check_vendor_config(folder, path, "llava1.5_7b:pytorch", PACKAGES, world=16)
    assert (checked.values["global_batch_size"],
            checked.values["pretrain_recipe"]["global_batch_size"]) == (256, 512)
    path.write_text(flagperf + 'stage = "pretrain"\n')
    checked = check_vendor_config(folder, path, "llava1.5_7b:pytorch", PACKAGES, world=8)
    assert checked.problems == ()
    assert {k: checked.values[k] for k in ("stage", "global_batch_size", "micro_batch_size")} == \
        {"stage": "pretrain", "global_batch_size": 256, "micro_batch_size": 32}
