"""Every vendor config of every training case layers onto its case's base config: it sets only
parameters vendors may change (nvidia's configs never run in CI, so this is their check)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TRAINING = REPO / "training"
sys.path[:0] = [p for p in (str(REPO), str(TRAINING / "benchmarks")) if p not in sys.path]

from driver import load_case_config  # noqa: E402

VENDOR_CONFIGS = sorted(TRAINING.glob("*/*-*/config/config_*x*x*.py"))


def case_config_dir(vendor_config: Path) -> Path:
    model, family = vendor_config.parent.parent.name.split("-", 1)
    return TRAINING / "benchmarks" / model / family / "config"


def test_every_case_has_cpu_and_nvidia_configs_for_the_required_topologies() -> None:
    cases = sorted((p.parent.parent.name, p.parent.name)
                   for p in TRAINING.glob("benchmarks/*/*/run_pretraining.py"))
    assert len(cases) >= 5
    required = {"cpu": ["config_xeonx1x1.py"],
                "nvidia": [f"config_{chip}x{topology}.py" for chip in ("A100", "H100")
                           for topology in ("1x1", "1x8", "2x8")]}
    missing = [f"training/{vendor}/{model}-{family}/config/{name}"
               for model, family in cases for vendor, names in required.items() for name in names
               if not (TRAINING / vendor / f"{model}-{family}" / "config" / name).is_file()]
    assert missing == []


@pytest.mark.parametrize("vendor_config", VENDOR_CONFIGS,
                         ids=[str(p.relative_to(TRAINING)) for p in VENDOR_CONFIGS])
def test_vendor_config_layers_onto_the_case_base(vendor_config: Path) -> None:
    config = load_case_config(case_config_dir(vendor_config), vendor_config)
    assert config is not None
