"""A vendor's adaptation changes the case it runs (issue 39, on the cpu vendor): the resnet50
case with tests/fixtures/vendor_adaptation/'s case folder, its environment as chipperf plans it,
its requirement installed (the probe wheel, ``pip install --target``: the image layer does this
in a run, tests/integration/test_requirements_layer.py) and its trainer adapter's optimizer."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from caserun import Case, assert_case_error, contract_args, perflog_events

from chipperf.config.model import CaseEntry, CaseKey, ClusterConfig, TestConfig
from chipperf.plan import make_plan
from chipperf.suites.catalogue import Catalogue
from chipperf_runtime.training.driver.adapter import VENDOR_ENV_NAMES

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from vendoradapt import probe_wheel, training_root  # noqa: E402

CASE = Case("resnet50", "pytorch")
KEY = "resnet50:pytorch_2.13:xeon:1:1:1"


@pytest.fixture(scope="module")
def vendor(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str], Path]:
    """(the vendor case's config folder, the adaptation's container env as planned, a
    site folder holding the installed probe package)."""
    tmp = tmp_path_factory.mktemp("vendor")
    root = training_root(tmp)
    test = TestConfig(vendor="cpu", cases=(CaseEntry(CaseKey.parse(KEY), "/data"),))
    plan = make_plan(ClusterConfig(hosts=("127.0.0.1",)), test, Catalogue.scan(root), "run1", tmp)
    env = plan.cases[0].rounds[0].nodes[0].env
    names = env[VENDOR_ENV_NAMES].split(",")
    site = tmp / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--target",
                    str(site), str(probe_wheel(tmp / "wheels"))], check=True, capture_output=True)
    return root / "cpu" / "resnet50-pytorch" / "config", \
        {n: env[n] for n in (*names, VENDOR_ENV_NAMES)}, site


def run(config_dir: Path, out: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    args = contract_args(out / "no-data", config_dir, "config_xeonx1x1.py", out)
    return CASE.run(*args, env=env, timeout=600)


def test_the_adaptation_is_in_the_run(vendor, tmp_path: Path) -> None:
    config_dir, planned, site = vendor
    base = CASE.env(**planned)
    result = run(config_dir, tmp_path, {**base, "PYTHONPATH": f"{base['PYTHONPATH']}:{site}"})
    assert result.returncode == 0, result.stderr[-4000:]
    events = perflog_events(result.stdout)
    submit = next(e.value for e in events if e.name == "SUBMIT_INFO")
    assert submit["vendor_env"] == {"CHIPPERF_PROBE_VENDOR": "cpu-wide",
                                    "CHIPPERF_PROBE_CASE": "resnet50-adapted",
                                    "CHIPPERF_PROBE_QUOTED": "two words"}
    assert submit["trainer_adapter"] == {
        "file": str(config_dir.parent / "extern" / "trainer_adapter.py"),
        "hooks": ["convert_model", "create_optimizer"]}
    execution = events[-1].value["execution"]
    assert execution["optimizer"] == "ProbeSGD"       # extern/layers/probe_sgd.py, by the adapter
    assert execution["adapter_hooks"] == ["convert_model", "create_optimizer"]
    print(f"SUBMIT_INFO vendor_env {submit['vendor_env']}; FINISHED execution {execution}")


def test_without_the_standard_run_uses_its_own_optimizer(tmp_path: Path) -> None:
    # the cpu CI config is for the digits: synthetic input needs the overrides
    result = CASE.run(*contract_args(tmp_path / "no-data", CASE.cpu_configs, "config_xeonx1x1.py",
                                     tmp_path), "--set", "data_mode=synthetic", "--set",
                      "run_mode=performance", "--set", "perf_warmup_steps=1", "--set",
                      "timed_steps=1", timeout=600)
    assert result.returncode == 0, result.stderr[-4000:]
    events = perflog_events(result.stdout)
    submit = next(e.value for e in events if e.name == "SUBMIT_INFO")
    assert submit["vendor_env"] == {} and submit["trainer_adapter"] is None
    assert events[-1].value["execution"]["optimizer"] == "SGD"


def test_an_adapter_whose_import_fails_stops_the_case_naming_the_file(vendor, tmp_path) -> None:
    """Without the requirement installed, the adapter's import fails in the container: exit 2
    before training, the file and the missing module named (the master cannot import it)."""
    config_dir, planned, _ = vendor
    result = run(config_dir, tmp_path, CASE.env(**planned))
    assert_case_error(result, f"{config_dir.parent / 'extern' / 'trainer_adapter.py'}: importing "
                      "the vendor's trainer adapter failed: ModuleNotFoundError: No module named "
                      "'chipperf_adapter_probe'")

