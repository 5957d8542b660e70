"""`chipperf cases` reads each case's case.yaml; the numbers there must match the models."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from chipperf.cases import catalogue_rows
from chipperf.catalogue import default_training_dir

REPO = Path(__file__).resolve().parents[2]


def rows() -> dict[tuple[str, str], dict]:
    return {(r["model"], r["framework"]): r for r in catalogue_rows(default_training_dir())}


def test_resnet50_pytorch_full_size_numbers_match_the_model():
    import torch  # torch==2.13.0 (CPU) is in the test requirements
    sys.path.insert(0, str(REPO / "training/benchmarks/resnet50/pytorch"))
    try:
        from model import ResNet50, flops_per_sample
    finally:
        sys.path.pop(0)
    with torch.device("meta"):
        model = ResNet50(num_classes=1000)
    row = rows()[("resnet50", "pytorch")]
    assert row["params"] == sum(p.numel() for p in model.parameters()) == 25_557_032
    assert row["flops_per_unit"] == flops_per_sample(model, 224).training
    assert "cpu" in row["vendors"] and "config_xeonx2x1.py" in row["configs"]["cpu"]


def test_cases_cli_json_lists_every_standard_case():
    out = subprocess.run([sys.executable, "-m", "chipperf.cli", "cases", "--json"], cwd=REPO,
                         capture_output=True, text=True, check=True).stdout
    listed = {(r["model"], r["framework"]) for r in json.loads(out)}
    on_disk = {(p.parent.parent.name, p.parent.name)
               for p in (REPO / "training/benchmarks").glob("*/*/run_pretraining.py")}
    assert listed == on_disk
