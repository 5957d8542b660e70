"""A missing data dir is bad input found before the run has a run dir (issue 27): one
problem per case and dir naming every host that lacks it, ConfigError (exit 2), and nothing
made: no run dir, no work dir. On this machine's own shell (127.0.0.1, localhost)."""

from __future__ import annotations

from pathlib import Path

import pytest

from chipperf.cli import EXIT_CONFIG, main
from chipperf.config.model import CaseEntry, CaseKey, ClusterConfig, TestConfig
from chipperf.errors import ConfigError
from chipperf.run import controller
from chipperf.run.precheck import data_dirs, missing_problems, run_hosts
from chipperf.suites.catalogue import Catalogue


def training(tmp_path: Path) -> Path:
    root = tmp_path / "training"
    for rel in ("benchmarks/resnet50/pytorch/run_pretraining.py", "benchmarks/driver/__init__.py",
                "cpu/resnet50-pytorch/config/config_xeonx1x1.py",
                "cpu/resnet50-pytorch/config/config_xeonx2x1.py",
                "cpu/docker_image/pytorch_2.13/Dockerfile"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("")
    return root


def configs(tmp_path: Path, cases: dict[str, str]) -> tuple[ClusterConfig, TestConfig]:
    cluster = ClusterConfig(hosts=("127.0.0.1", "localhost"), work_root=str(tmp_path / "work"))
    test = TestConfig(vendor="cpu", result_root=str(tmp_path / "result"), cases=tuple(
        CaseEntry(CaseKey.parse(k), d) for k, d in cases.items()))
    return cluster, test


def test_a_missing_data_dir_names_each_host_and_makes_nothing(tmp_path) -> None:
    cluster, test = configs(tmp_path, {"resnet50:pytorch_2.13:xeon:2:1:1": "/nonexistent/imagenet",
                                       "resnet50:pytorch_2.13:xeon:1:1:1": str(tmp_path)})
    with pytest.raises(ConfigError) as err:
        controller.run(cluster, test, Catalogue.scan(training(tmp_path)))
    assert err.value.problems == (
        "CASES['resnet50:pytorch_2.13:xeon:2:1:1']: data dir /nonexistent/imagenet does not "
        "exist on 127.0.0.1, localhost: copy the dataset there, or fix the path in CASES",)
    assert not (tmp_path / "result").exists() or not any((tmp_path / "result").iterdir())
    assert not (tmp_path / "work").exists()


def test_the_cli_exits_2_for_it(tmp_path, capsys) -> None:
    (tmp_path / "cluster.yaml").write_text(f"hosts: ['127.0.0.1']\nwork_root: {tmp_path}/work\n")
    (tmp_path / "test.yaml").write_text(
        f"vendor: cpu\nresult_root: {tmp_path}/result\ntraining_dir: {training(tmp_path)}\n"
        "cases: {'resnet50:pytorch_2.13:xeon:1:1:1': /nonexistent/data}\n")
    code = main(["run", "--cluster", str(tmp_path / "cluster.yaml"),
                 "--test", str(tmp_path / "test.yaml")])
    assert code == EXIT_CONFIG
    err = capsys.readouterr().err
    assert "data dir /nonexistent/data does not exist on 127.0.0.1" in err
    assert "Traceback" not in err
    assert not any((tmp_path / "result").glob("run*"))


def test_which_host_needs_which_dir_is_pure() -> None:
    cluster = ClusterConfig(hosts=("a", "b", "c"))
    test = TestConfig(vendor="cpu", cases=(
        CaseEntry(CaseKey.parse("resnet50:pytorch_2.13:xeon:2:1:1"), "/d1"),
        CaseEntry(CaseKey.parse("bert:pytorch_2.13:xeon:1:1:1"), "/d1"),
        CaseEntry(CaseKey.parse("bert:pytorch_2.13:xeon:1:2:1"), "/d2")))
    need = data_dirs(cluster, test)
    assert run_hosts(cluster, test) == ("a", "b")
    assert need == {"a": {"/d1": ("resnet50:pytorch_2.13:xeon:2:1:1", "bert:pytorch_2.13:xeon:1:1:1"),
                          "/d2": ("bert:pytorch_2.13:xeon:1:2:1",)},
                    "b": {"/d1": ("resnet50:pytorch_2.13:xeon:2:1:1",)}}
    assert missing_problems({"a": ["/d2"], "b": ["/d1"]}, need) == [
        "CASES['bert:pytorch_2.13:xeon:1:2:1']: data dir /d2 does not exist on a: copy the "
        "dataset there, or fix the path in CASES",
        "CASES['resnet50:pytorch_2.13:xeon:2:1:1']: data dir /d1 does not exist on b: copy the "
        "dataset there, or fix the path in CASES"]
