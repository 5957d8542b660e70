"""--keep-going: a plan with some case keys that cannot run plans the rest and lists the others,
with why; strict (all or nothing) stays `chipperf plan/run`'s default; FlagPerf's entry scripts
keep going by default, as FlagPerf's run.py does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chipperf.cli import entry_main, load_all, main
from chipperf.config.model import SkippedCase
from chipperf.errors import ConfigError
from chipperf.plan import make_plan
from chipperf.run.record import RunRecord
from chipperf.suites.catalogue import default_training_dir

GOOD, BAD = "resnet50:pytorch_2.13:xeon:1:1:1", "resnet50:pytorch_2.13:xeon:1:3:1"
TRAINING = default_training_dir()


def _configs(tmp_path: Path, *keys: str) -> tuple[str, str]:
    cluster, test = tmp_path / "cluster_conf.py", tmp_path / "test_conf.py"
    cluster.write_text('HOSTS = ["10.1.2.2"]\n')
    cases = ", ".join(f'"{k}": "/data/imagenet"' for k in keys)
    test.write_text(f'VENDOR = "cpu"\nCASES = {{{cases}}}\nRESULT_ROOT = "{tmp_path / "result"}"\n')
    return str(cluster), str(test)


def test_strict_by_default_one_bad_key_refuses_the_whole_plan(tmp_path, capsys):
    cluster, test = _configs(tmp_path, GOOD, BAD)
    assert main(["plan", "--cluster", cluster, "--test", test]) == 2
    assert "missing vendor config" in capsys.readouterr().err


def test_keep_going_plans_the_rest_and_lists_what_was_skipped(tmp_path, capsys):
    cluster, test = _configs(tmp_path, GOOD, BAD)
    assert main(["plan", "--cluster", cluster, "--test", test, "--keep-going"]) == 0
    out = capsys.readouterr().out
    assert f"skipped {BAD} (--keep-going)\n  problem   {test}: CASES['{BAD}']: missing vendor " \
        "config" in out and "config_xeonx1x3.py" in out
    assert f"case {GOOD}" in out and f"case {BAD}" not in out


def test_the_skipped_keys_are_in_run_json(tmp_path):
    cluster_path, test_path = _configs(tmp_path, GOOD, BAD)
    cluster, test, catalogue = load_all(cluster_path, test_path, None, keep_going=True)
    assert [str(e.key) for e in test.cases] == [GOOD]
    (skipped,) = test.skipped
    assert isinstance(skipped, SkippedCase) and skipped.key == BAD and len(skipped.problems) == 1
    plan = make_plan(cluster, test, catalogue, "run1", tmp_path / "result")
    plan.result_dir.mkdir(parents=True)
    RunRecord(plan, cluster, test, "training")
    record = json.loads((plan.result_dir / "run.json").read_text())
    assert record["skipped"] == {BAD: list(skipped.problems)}
    assert list(record["cases"]) == ["resnet50-pytorch_2.13-xeon-1x1"]


def test_keep_going_with_no_case_left_is_still_an_error(tmp_path):
    cluster, test = _configs(tmp_path, BAD)
    with pytest.raises(ConfigError) as err:
        load_all(cluster, test, None, keep_going=True)
    assert "--keep-going: no case can run" in str(err.value) and "config_xeonx1x3.py" in str(err.value)


def test_a_problem_of_the_whole_config_is_not_skipped(tmp_path):
    cluster, test = _configs(tmp_path, GOOD, BAD)
    Path(test).write_text(Path(test).read_text().replace('"cpu"', '"nosuchvendor"'))
    with pytest.raises(ConfigError) as err:
        load_all(cluster, test, None, keep_going=True)
    assert "VENDOR 'nosuchvendor' is unknown" in str(err.value)


def test_flagperf_entry_keeps_going_unless_strict(tmp_path, monkeypatch):
    seen: list[list[str]] = []
    monkeypatch.setattr("chipperf.cli.main", lambda argv: seen.append(list(argv)) or 0)
    cluster, test = _configs(tmp_path, GOOD)
    entry_main("run.py", "", ["--cluster", cluster, "--test", test], "training")
    entry_main("run.py", "", ["--strict", "--cluster", cluster, "--test", test], "training")
    assert seen[0][-1] == "--keep-going" and "--keep-going" not in seen[1]
    assert not any(a.startswith("--strict") for a in seen[0] + seen[1])


def test_flagperf_s_whole_case_list_keeps_going_over_its_vendor_configs(tmp_path):
    """Every case key FlagPerf's test_conf.py lists (commented out or not: 125 distinct), as
    VENDOR nvidia, with FlagPerf's vendor configs dropped into training/: strict refuses; with
    --keep-going the 58 keys of cases chipperf has (and an nvidia config for) plan, and each
    other key is skipped for a case, framework or config chipperf lacks, never for a parameter
    (llama2_7b_finetune, tacotron2:pytorch_1.13, dlrm:pytorch_1.10, moflow:pytorch_1.13,
    bert_hf, longformer, transformer, transformer_xl, mask_rcnn, detr, bigtransfer, cpm and glm
    among them: cpm's pytorch_1.8 and pytorch_2.0 and glm's and transformer_xl's pytorch_1.8
    A100 1x8 keys plan; FlagPerf's WaveGlow is chipperf's waveglow; the 16 paddle keys of
    llama1_7B, llama1_13B, gpt3_6.7B and gpt3_13B with their layout chip names such as
    TP2PP4SH1SP1A10040G plan). Eleven of the 58 are
    FlagPerf's Megatron-LM/FlagScale/DeepSpeed keys planned as chipperf's torch-native case
    (mixtral_8x7B:flagscale_2409:H100:4:8, aquila2_7b:flagscale:A100:1:8,
    llava1.5_7b:flagscale_2409:H100:4:8, llama3_70B:flagscale_2409:H100:4:8, the
    continue-training llama3_70B_continuetrain, mixtral_8x7B_continuetrain and
    llava1.5_7b_continuetrain :flagscale_2409:H100:4:8, and the A800/H800 keys
    llava1.5_7b:deepspeed-torch, aquila2_7b_finetune:flagscale, qwen1.5_MoE:megatron_pai and
    llama2_70B:megatron:H800:4:8), with the note saying so; two are FlagPerf's Megatron-Core
    keys (llama3_8B:megatron_core060:A100:1:8, mixtral_8x7B:megatron_core060:H100:4:8),
    planned as written with implementation = "megatron_core" (issue 41)."""
    import re
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import flagperf_overlay

    text = (flagperf_overlay.DATA / "run_benchmarks" / "config" / "test_conf_full.py").read_text()
    keys = dict(re.findall(r'^\s*#?\s*"([^"]+:[^"]+:[^"]+:\d+:\d+:\d+)"\s*:\s*"([^"]*)"', text, re.M))
    root = tmp_path / "training"
    flagperf_overlay.overlay(root)
    test = tmp_path / "test_conf.py"
    test.write_text(f'VENDOR = "nvidia"\nRESULT_ROOT = "{tmp_path / "result"}"\nCASES = {keys!r}\n')
    cluster = tmp_path / "cluster_conf.py"
    cluster.write_text(f"HOSTS = {list(flagperf_overlay.HOSTS)!r}\n")
    with pytest.raises(ConfigError):
        load_all(str(cluster), str(test), str(root))
    _, kept, _ = load_all(str(cluster), str(test), str(root), keep_going=True)
    assert len(keys) == 125 and len(kept.cases) == 58 and len(kept.skipped) == 67
    planned = {str(e.key) for e in kept.cases}
    assert {"waveglow:pytorch_1.13:A100:1:8:1", "transformer_xl:pytorch_1.8:A100:1:8:1"} <= planned
    native = {str(e.key): e.implementation for e in kept.cases if e.implementation}
    megatron_core = {"llama3_8B:megatron_core060:A100:1:8:1",
                     "mixtral_8x7B:megatron_core060:H100:4:8:1"}
    assert sorted(set(native) - megatron_core) == [
        "aquila2_7b:pytorch_2.13:A100:1:8:1", "aquila2_7b_finetune:pytorch_2.13:A800:1:8:1",
        "llama2_70B:pytorch_2.13:H800:4:8:1", "llama3_70B:pytorch_2.13:H100:4:8:1",
        "llama3_70B_continuetrain:pytorch_2.13:H100:4:8:1",
        "llava1.5_7b:pytorch_2.13:A800:1:8:1", "llava1.5_7b:pytorch_2.13:H100:4:8:1",
        "llava1.5_7b_continuetrain:pytorch_2.13:H100:4:8:1",
        "mixtral_8x7B:pytorch_2.13:H100:4:8:1",
        "mixtral_8x7B_continuetrain:pytorch_2.13:H100:4:8:1",
        "qwen1.5_MoE:pytorch_2.13:A800:1:8:1"]
    assert all("not comparable with FlagPerf's" in native[k] for k in set(native) - megatron_core)
    assert all("implementation = 'megatron_core'" in native[k] for k in megatron_core)
    reasons = [re.sub(r"^.*?\]: ", "", p) for s in kept.skipped for p in s.problems]
    lacks = ("framework ", "no case code ", "no image folder ", "missing vendor config ",
             "vendor 'nvidia' has no case", "vendor 'nvidia' has no chip",   # (another vendor's)
             "nnodes=")   # (FlagPerf's 8- and 10-node keys on these 4 hosts)
    assert all(r.startswith(lacks) for r in reasons), [r for r in reasons if not r.startswith(lacks)]
    assert not any("which this case does not have" in p for s in kept.skipped for p in s.problems)


def test_the_run_s_last_screen_lists_the_skipped_keys(tmp_path):
    from chipperf.cli import final_screen

    screen = final_screen(tmp_path / "run1", {}, (SkippedCase(BAD, ("why one", "why two")),))
    assert f"skipped (--keep-going): {BAD}: why one; why two\n" in screen
