"""chipperf's adapters of FlagPerf vendor folders (training/<vendor>/<case>/extern/
trainer_adapter.py) run in their case on the CPU: each hook is called by the loop and the tiny
preset still converges. The vendor's plug-in cannot be imported here, so a stand-in module of
the same name (only what the adapter uses, on torch's CPU path) is put on the path; nothing
here says how the vendor's chip runs."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from caserun import REPO, Case, check_converged, perflog_events

RESNET50 = Case("resnet50", "pytorch")
BERT_HF = Case("bert_hf", "pytorch")

# the stand-ins: the plug-in's names the adapters use, on torch's CPU path
TORCH_MUSA = '''"""Stand-in for Moore Threads' torch_musa (tests only): amp.GradScaler on the CPU."""
import torch


class amp:
    @staticmethod
    def GradScaler():
        return torch.amp.GradScaler("cpu")
'''


def vendor_case(tmp: Path, vendor: str, case: Case) -> Path:
    """A copy of the vendor's case folder whose configs are the cpu CI ones; its config/."""
    folder = tmp / vendor / f"{case.model}-{case.family}"
    shutil.copytree(REPO / "training" / vendor / folder.name / "extern", folder / "extern")
    shutil.copytree(case.cpu_configs, folder / "config")
    return folder / "config"


def stand_in(tmp: Path, module: str, text: str) -> Path:
    site = tmp / "site"
    site.mkdir(exist_ok=True)
    (site / f"{module}.py").write_text(text)
    return site


def run_mthreads(case: Case, data: Path, tmp: Path) -> list:
    """The case from the mthreads folder's adapter, torch_musa's stand-in on the path: its
    PerfLog events (the run must succeed)."""
    config_dir = vendor_case(tmp, "mthreads", case)
    site = stand_in(tmp, "torch_musa", TORCH_MUSA)
    env = case.env()
    result = case.run_config(data, config_dir=config_dir, timeout=600,
                             env={**env, "PYTHONPATH": f"{env['PYTHONPATH']}:{site}"})
    assert result.returncode == 0, result.stderr[-4000:]
    return perflog_events(result.stdout)


@pytest.fixture(scope="module")
def digits(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("digits")
    subprocess.run([sys.executable, str(RESNET50.dir / "prepare_digits.py"), str(out)],
                   check=True, timeout=120)
    return out


def test_mthreads_resnet50_adapter_trains_the_digits(digits: Path, tmp_path: Path) -> None:
    """FlagPerf's mthreads resnet50 adapter as chipperf carries it: channels-last weights,
    the grad scaler hook and its own train_step, which every step of the run goes through."""
    events = run_mthreads(RESNET50, digits, tmp_path)
    submit = next(e.value for e in events if e.name == "SUBMIT_INFO")
    assert submit["trainer_adapter"]["hooks"] == ["convert_model", "create_grad_scaler",
                                                  "train_step"]
    finished = check_converged(events)
    assert finished["execution"]["adapter_hooks"] == ["convert_model", "create_grad_scaler",
                                                      "train_step"]
    print(f"mthreads resnet50 adapter: top1 {finished['metric']['value']:.3f} "
          f"(target {finished['metric']['target']}), execution {finished['execution']}")


def test_mthreads_bert_hf_adapter_trains_the_ci_text(tmp_path: Path) -> None:
    """FlagPerf's mthreads bert_hf adapter as chipperf carries it: its train_one_step runs every
    step of the text loop (its grad scaler is not carried: NOT_CARRIED says why)."""
    data = tmp_path / "data"
    subprocess.run([sys.executable, str(BERT_HF.dir / "prepare_data.py"), "--output", str(data)],
                   check=True, timeout=120)
    events = run_mthreads(BERT_HF, data, tmp_path)
    finished = check_converged(events)
    assert finished["execution"]["adapter_hooks"] == ["train_one_step"]
    print(f"mthreads bert_hf adapter: {finished['metric']['name']} "
          f"{finished['metric']['value']:.3f} (target {finished['metric']['target']}), "
          f"execution {finished['execution']}")
