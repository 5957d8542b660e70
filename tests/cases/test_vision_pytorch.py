"""The torchvision- and timm-built vision cases (vit, mobilenetv2, efficientnet,
swin_transformer, bigtransfer) on the host: 2 ranks under chipperf's torchrun command on the
digits data reach their CI target.

The data dir is prepared with resnet50/pytorch's prepare_digits.py; the vendor configs are the
cpu CI ones. Needs torch, torchvision, timm, scikit-learn and Pillow (the test extra).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from caserun import Case, assert_case_error, check_converged, perflog_events, rank_logs

from chipperf.launchers import pytorch as pytorch_launcher

CASES = {name: Case(name, "pytorch") for name in
         ("vit", "mobilenetv2", "efficientnet", "swin_transformer", "bigtransfer")}


@pytest.mark.parametrize("name", sorted(CASES))
def test_two_ranks_reach_the_ci_target(name: str, digits: Path, tmp_path: Path) -> None:
    case = CASES[name]
    argv = pytorch_launcher.command(case.context(digits, "config_xeonx1x2.py", tmp_path, 2))
    result = subprocess.run(argv, env=case.env(), capture_output=True, text=True, timeout=300)
    logs = rank_logs(tmp_path)
    assert result.returncode == 0, result.stderr[-4000:] + "\n" + logs.get(0, "")[-4000:]
    events = perflog_events(logs[0])
    finished = check_converged(events)
    assert finished["world_size"] == 2 and finished["work_unit"] == "samples"
    init = next(e.value for e in events if e.name == "INIT_END")
    assert finished["flops_per_unit"] == 3 * init["forward_flops_per_sample"] > 0
    # the cpu CI config's tiny model is labelled, with its count and the named model's
    preset = finished["preset"]
    assert preset["name"] == "tiny" and preset["params"] == init["parameters"]
    assert preset["full_params"] > preset["params"] and preset["set_by"] == "vendor configuration"


def test_an_unknown_model_size_stops_the_case_before_training(digits: Path) -> None:
    result = CASES["vit"].run_config(digits, "--set", "model_size=huge")
    assert_case_error(result, "model_size 'huge' is unknown: use one of ['base', 'tiny']")


def test_an_unknown_optimizer_stops_the_case_before_training(digits: Path) -> None:
    result = CASES["swin_transformer"].run_config(digits, "--set", "optimizer=lamb")
    assert_case_error(result, "optimizer 'lamb' is not supported: use one of ('sgd', 'adamw')")
