"""The loss-loop cases' pieces without training (tacotron2, ...): case.yaml's full-size
numbers are the built model's, and FlagPerf's data layouts are read (a wrong one is one
error naming what is missing)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest
import torch
import yaml
from casemodules import BENCHMARKS, load_case_module

from chipperf_runtime.training.driver import DataError


def full_size(case: str) -> dict:
    return yaml.safe_load((BENCHMARKS / case / "case.yaml").read_text())["full_size"]


def parameters(net: torch.nn.Module) -> int:
    return sum(p.numel() for p in net.parameters())


# ---------------------------------------------------------------- tacotron2

def taco(name: str) -> ModuleType:
    load_case_module("tacotron2/pytorch", "taco_data")
    return load_case_module("tacotron2/pytorch", name)


def test_tacotron2_full_size_is_dles_model_and_case_yaml_says_so() -> None:
    model = taco("taco_model")
    with torch.device("meta"):
        net = model.tacotron2(model.PRESETS["full"])
    row = full_size("tacotron2/pytorch")
    # torchaudio.models.Tacotron2() (n_symbol=148): 28,193,153 (README: how it was compared)
    assert row["params"] == parameters(net) == 28_193_153
    ljspeech = model.forward_flops(model.PRESETS["full"], 1308678 / 13100, 6.57 * 22050 / 256)
    assert row["flops_per_unit"] == int(3 * ljspeech)


def test_tacotron2_reads_dles_filelists_and_symbols(tmp_path: Path) -> None:
    data = taco("taco_data")
    assert data.text_ids("Hi, Bob!") == [45, 46, 6, 11, 39, 52, 39, 2]   # h i , _ b o b !
    (tmp_path / "filelists").mkdir()
    (tmp_path / "mels").mkdir()
    torch.save(torch.zeros(80, 7), tmp_path / "mels" / "LJ001-0001.pt")
    (tmp_path / "filelists" / "train.txt").write_text("mels/LJ001-0001.pt|Printing, in the.\n")
    rows = data.read_filelist(tmp_path, "filelists/train.txt")
    text, mel = data.MelText(rows, 80)[0]
    assert mel.shape == (80, 7) and len(text) == len("printing, in the.")
    batch = data.collate([(text, mel), (text[:3], mel[:, :4])])
    assert batch[2].shape == (2, 80, 7) and batch[4][1].tolist() == [0, 0, 0, 1, 1, 1, 1]
    with pytest.raises(DataError, match="expected a \\[16, frames\\] tensor"):
        data.MelText(rows, 16)[0]
    with pytest.raises(DataError, match="filelists/val.txt does not exist"):
        data.read_filelist(tmp_path, "filelists/val.txt")
