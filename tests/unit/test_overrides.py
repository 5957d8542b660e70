"""OVERRIDES in the test config: case parameters set for every training case of a run, checked
at plan time against each case's mutable_params and defaults, passed as the case's --set."""

from __future__ import annotations

from pathlib import Path

from chipperf.config.load import parse_test
from chipperf.config.model import CaseEntry, CaseKey, ClusterConfig, TestConfig
from chipperf.plan import check, make_plan
from chipperf.suites.catalogue import Catalogue

REPO = Path(__file__).resolve().parents[2]
CATALOGUE = Catalogue.scan(REPO / "training")
KEY = "resnet50:pytorch_2.13:xeon:1:1:1"


def configs(overrides: dict) -> tuple[ClusterConfig, TestConfig]:
    return (ClusterConfig(hosts=("127.0.0.1",), master_port=29600, work_root="/w"),
            TestConfig(vendor="cpu", cases=(CaseEntry(CaseKey.parse(KEY), "/data"),),
                       overrides=overrides))


def test_overrides_reach_the_case_as_its_set_arguments() -> None:
    cluster, test = configs({"max_steps": 30, "dtype": "fp32"})
    assert check(cluster, test, CATALOGUE) == []
    plan = make_plan(cluster, test, CATALOGUE, "run1", Path("result"))
    command = list(plan.cases[0].rounds[0].nodes[0].command)
    assert command[-4:] == ["--set", "max_steps=30", "--set", "dtype='fp32'"]


def test_a_name_the_case_does_not_have_and_a_wrong_kind_are_refused_at_plan_time() -> None:
    cluster, test = configs({"max_stepz": 30, "max_epochs": "four"})
    problems = check(cluster, test, CATALOGUE)
    assert any("OVERRIDES sets 'max_stepz', which this case does not have; allowed: " in p
               for p in problems), problems
    assert any("OVERRIDES max_epochs = 'four' is a str" in p for p in problems), problems


def test_the_test_config_key_is_read_and_checked(tmp_path: Path) -> None:
    path = tmp_path / "test_conf.py"
    path.write_text(f"VENDOR = 'cpu'\nCASES = {{'{KEY}': '/d'}}\nOVERRIDES = {{'max_steps': 5}}\n")
    test, problems = parse_test(path)
    assert problems == [] and test.overrides == {"max_steps": 5}
    path.write_text(f"VENDOR = 'cpu'\nCASES = {{'{KEY}': '/d'}}\nOVERRIDES = ['max_steps']\n")
    _, problems = parse_test(path)
    assert len(problems) == 1 and "OVERRIDES" in problems[0] and "not a mapping" in problems[0]
