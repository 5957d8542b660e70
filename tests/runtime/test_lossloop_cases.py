"""The loss-loop cases' pieces without training (tacotron2, ...): case.yaml's full-size
numbers are the built model's, and FlagPerf's data layouts are read (a wrong one is one
error naming what is missing)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import numpy as np
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
    from chipperf_runtime.training.lossloop.ljspeech import read_filelist, text_ids
    assert text_ids("Hi, Bob!") == [45, 46, 6, 11, 39, 52, 39, 2]   # h i , _ b o b !
    (tmp_path / "filelists").mkdir()
    (tmp_path / "mels").mkdir()
    torch.save(torch.zeros(80, 7), tmp_path / "mels" / "LJ001-0001.pt")
    (tmp_path / "filelists" / "train.txt").write_text("mels/LJ001-0001.pt|Printing, in the.\n")
    rows = read_filelist(tmp_path, "filelists/train.txt")
    text, mel = data.MelText(rows, 80)[0]
    assert mel.shape == (80, 7) and len(text) == len("printing, in the.")
    batch = data.collate([(text, mel), (text[:3], mel[:, :4])])
    assert batch[2].shape == (2, 80, 7) and batch[4][1].tolist() == [0, 0, 0, 1, 1, 1, 1]
    with pytest.raises(DataError, match="expected a \\[16, frames\\] tensor"):
        data.MelText(rows, 16)[0]
    with pytest.raises(DataError, match="filelists/val.txt does not exist"):
        read_filelist(tmp_path, "filelists/val.txt")


# ---------------------------------------------------------------- waveglow

def glow(name: str) -> ModuleType:
    return load_case_module("waveglow/pytorch", name)


def test_waveglow_full_size_is_the_papers_model_and_case_yaml_says_so() -> None:
    model = glow("glow_model")
    full = model.PRESETS["full"]
    with torch.device("meta"):
        net = model.waveglow(full)
    row = full_size("waveglow/pytorch")
    assert row["params"] == parameters(net) == 87_879_272     # the paper: 87.88 million
    assert row["flops_per_unit"] == int(3 * model.forward_flops(full, full["segment_length"]))


def test_waveglow_flow_is_invertible_in_its_log_determinant() -> None:
    """At initialisation every coupling is the identity (WN's last layer is zero): z is the
    rotated audio, log-scales are 0 and log|det W| is 0, so the loss is |audio|^2 / 2 per
    sample."""
    model = glow("glow_model")
    tiny = model.PRESETS["tiny"]
    net = model.waveglow(tiny)
    audio = torch.randn(2, tiny["segment_length"])
    mel = torch.randn(2, tiny["n_mel_channels"], tiny["segment_length"] // tiny["hop_length"] + 1)
    z, log_s, log_det = net.flow(mel, audio)
    assert float(log_s.detach()) == 0.0 and abs(float(log_det.detach())) < 1e-3
    assert torch.allclose(net(mel, audio), (audio ** 2).sum() / 2 / audio.numel(), atol=1e-4)


def test_waveglow_reads_dles_audio_filelists(tmp_path: Path) -> None:
    data = glow("glow_data")
    prepare = glow("prepare_data")
    root = prepare.prepare(tmp_path / "lj", train=2, val=1)
    opened = data.open_ljspeech_audio(root, "filelists/ljs_audio_text_train_filelist.txt",
                                      "filelists/ljs_audio_text_val_filelist.txt",
                                      glow("glow_model").PRESETS["tiny"])
    mel, audio = opened.eval[0]
    assert audio.shape == (1024,) and mel.shape == (16, 1024 // 64 + 1)
    with pytest.raises(DataError, match="ljs_audio_text_test_filelist.txt does not exist"):
        data.open_ljspeech_audio(root, "filelists/ljs_audio_text_test_filelist.txt", "x",
                                 glow("glow_model").PRESETS["tiny"])


def test_the_mel_filterbank_is_slaneys() -> None:
    """Triangles on the Slaney mel scale (1 kHz is mel 15), each of area-normalised height."""
    import numpy as np

    from chipperf_runtime.training.lossloop.ljspeech import hz_to_mel, mel_filterbank, mel_to_hz

    assert float(hz_to_mel(np.array(1000.0))) == 15.0
    assert np.allclose(mel_to_hz(hz_to_mel(np.array([100.0, 4000.0]))), [100.0, 4000.0])
    bank = mel_filterbank(22050, 1024, 80, 0.0, 8000.0)
    assert bank.shape == (80, 513) and (bank >= 0).all() and (bank.max(axis=1) > 0).all()


# ---------------------------------------------------------------- dlrm

def dlrm(name: str) -> ModuleType:
    for dependency in ("dlrm_model", "dlrm_data"):
        load_case_module("dlrm/pytorch", dependency)
    return load_case_module("dlrm/pytorch", name, register_as=f"dlrm_{name}")


def test_dlrm_full_size_is_dles_model_on_criteo_fl15_and_case_yaml_says_so() -> None:
    model = dlrm("dlrm_model")
    full = model.PRESETS["full"]
    with torch.device("meta"):
        net = model.dlrm(full, model.CRITEO_FL15)
    row = full_size("dlrm/pytorch")
    assert model.interactions(26, 128) == 480           # 27 x 26 / 2 + 128 = 479, padded to 8
    assert row["params"] == parameters(net) == 128 * sum(model.CRITEO_FL15) + 2_369_921
    assert row["flops_per_unit"] == int(3 * model.forward_flops(full, 26))


def test_dlrm_reads_dles_split_binary_layout(tmp_path: Path) -> None:
    data = dlrm("dlrm_data")
    root = dlrm("prepare_data").prepare(tmp_path / "criteo", train=64, val=16)
    opened = data.open_criteo(root, "train", "validation")
    assert len(opened.cardinalities) == 26 and len(opened.train) == 64
    numerical, categorical, click = data.collate(opened.train.__getitems__(list(range(8, 16))))
    assert numerical.shape == (8, 13) and categorical.shape == (8, 26) and click.shape == (8,)
    assert (categorical < torch.tensor(opened.cardinalities)).all()
    gathered = data.collate(opened.train.__getitems__([3, 9]))
    assert torch.equal(gathered[1][1], data.collate(opened.train[9])[1][0])
    with pytest.raises(DataError, match="no split 'test' in source_spec"):
        data.open_criteo(root, "train", "test")
    (root / "validation" / "label.bin").unlink()
    with pytest.raises(DataError, match="validation/label.bin does not exist"):
        data.open_criteo(root, "train", "validation")


def test_dlrm_auc_from_histograms_is_the_rank_statistic() -> None:
    run = dlrm("run_pretraining")
    # positives in bins 2 and 3, negatives in bins 1 and 2: 3 of 4 pairs won, 1 tie
    assert run.auc_from_histograms([0, 0, 1, 1], [0, 1, 1, 0]) == (0.5 + 1 + 1 + 1) / 4


# ---------------------------------------------------------------- moflow

def moflow(name: str) -> ModuleType:
    for dependency in ("moflow_model", "moflow_data", "moflow_nuv"):
        load_case_module("moflow/pytorch", dependency)
    return load_case_module("moflow/pytorch", name, register_as=f"moflow_{name}")


def test_moflow_full_size_is_dles_zinc250k_model_and_case_yaml_says_so() -> None:
    model = moflow("moflow_model")
    full = model.PRESETS["full"]
    with torch.device("meta"):
        net = model.moflow(full)
    # closed form: per bond flow ActNorm(1600) + convs 800-512-512-1600 (3x3) with 2 batch
    # norms; per atom flow ActNorm(40 atoms) + graph conv 10->256 (self + 4 bond types),
    # linears 256-512-64-20 and 3 batch norms over the 40 atoms; one learned log-variance
    bond = 2 * 1600 + (800 * 512 * 9 + 512) + 2 * 512 + (512 * 512 * 9 + 512) + 2 * 512 \
        + (512 * 1600 * 9 + 1600)
    atom = 2 * 40 + (10 * 256 + 256) + (10 * 1024 + 1024) + 3 * 2 * 40 + (256 * 512 + 512) \
        + (512 * 64 + 64) + (64 * 20 + 20)
    row = full_size("moflow/pytorch")
    assert row["params"] == parameters(net) == 10 * bond + 38 * atom + 1 == 141_108_089
    assert row["flops_per_unit"] == int(3 * model.forward_flops(full))


def test_moflow_reads_dles_zinc_layout(tmp_path: Path) -> None:
    data = moflow("moflow_data")
    root = moflow("prepare_data").prepare(tmp_path / "zinc", count=20, valid=4)
    opened = data.open_zinc(root, "zinc250k", 8)
    assert (len(opened.train), len(opened.eval)) == (16, 4)
    x, adj = opened.train[0]
    assert x.shape == (8, 10) and adj.shape == (4, 8, 8)
    assert torch.equal(x.sum(1), torch.ones(8)) and torch.equal(adj.sum(0), torch.ones(8, 8))
    assert torch.equal(adj[:, 0, 0], torch.tensor([1.0, 0, 0, 0]))    # no self bond
    with pytest.raises(DataError, match="at most 2"):
        data.open_zinc(root, "zinc250k", 2)
    with pytest.raises(DataError, match="qm9_relgcn_kekulized_ggnp.npz does not exist"):
        data.open_zinc(root, "qm9", 8)


def test_moflow_reverse_inverts_both_flows_and_samples_molecule_codes() -> None:
    model = moflow("moflow_model")
    torch.manual_seed(0)
    net = model.moflow(model.PRESETS["tiny"])
    x = torch.nn.functional.one_hot(torch.randint(0, 10, (4, 8)), 10).float()
    adj = torch.nn.functional.one_hot(torch.randint(0, 4, (4, 8, 8)), 4).permute(0, 3, 1, 2).float()
    net(x, adj)                                   # ActNorm's data-dependent initialisation
    net.eval()
    with torch.no_grad():
        h, z, _, _ = net.flows(x, adj)
        assert torch.allclose(net.atoms_reverse(adj, h), net.dequantise(x), atol=1e-5)
        assert torch.allclose(net.bonds_reverse(z), net.squeeze(net.dequantise(adj)), atol=1e-5)
        atoms, bonds = net.sample(3, 0.3, torch.Generator().manual_seed(0))
    assert atoms.shape == (3, 8) and bonds.shape == (3, 8, 8)
    assert torch.equal(bonds, bonds.transpose(1, 2))          # DLE's symmetrised bonds


def test_moflow_nuv_is_dles_validity_uniqueness_novelty() -> None:
    nuv = moflow("moflow_nuv")
    chain = np.zeros((4, 4), dtype=np.int64)
    for i in range(3):
        chain[i, i + 1] = chain[i + 1, i] = 1
    ethanol = nuv.valid_smiles(nuv.construct_mol(np.array([6, 6, 8, 0]), chain))
    assert ethanol == "CCO"
    apart = chain.copy()
    apart[1, 2] = apart[2, 1] = 0
    assert nuv.valid_smiles(nuv.construct_mol(np.array([6, 6, 8, 6]), apart)) is None   # fragments
    oxonium = np.array([[0, 1, 1, 1], [1, 0, 0, 0], [1, 0, 0, 0], [1, 0, 0, 0]])
    assert nuv.valid_smiles(nuv.construct_mol(np.array([8, 6, 6, 6]), oxonium)) == "C[O+](C)C"
    known = nuv.training_smiles([(np.array([6, 6, 8]), chain[:3, :3])])
    assert known == frozenset({"CCO"})
    # 5 generated: 4 valid, 3 distinct of which 2 are not in the training set
    result = nuv.score(["CCO", "CCN", "CCN", "CCC", None], known)
    assert (result.validity, result.uniqueness, result.novelty, result.nuv) == (80.0, 75.0, 75.0, 40.0)
