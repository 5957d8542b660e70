"""glm's pieces: the full-size model built on meta has GLM-Large's parameters and case.yaml's
count, its FLOPs are the analytic formula's, the blank-infilling mask (part A both ways,
part B causal), and FlagPerf's ReCoRD layout read and refused with every problem named."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml
from casemodules import BENCHMARKS, load_case_module

CASE = BENCHMARKS / "glm" / "pytorch"
ENTRY = load_case_module("glm/pytorch", "run_pretraining", "glm_run_pretraining")
BASE = {"train": "ReCoRD/glm_train_eval_hdf5_sparse/train_hdf5/train_sparse.hdf5",
        "eval": "ReCoRD/glm_train_eval_hdf5_sparse/eval_hdf5/eval_sparse.hdf5"}


def test_full_size_is_glm_large_and_counted_as_the_formula() -> None:
    import torch

    from chipperf_runtime.training.hftext.models import count_forward_flops, hf_model

    with torch.device("meta"):
        net = hf_model("glm", ENTRY.PRESETS["large"])
    params = sum(p.numel() for p in net.parameters())
    meta = yaml.safe_load((CASE / "case.yaml").read_text())
    assert params == meta["full_size"]["params"] == 334_688_256
    assert round(params / 1e6) == 335            # GLM-Large, the GLM paper (arXiv 2103.10360)
    h, s, layers, vocab = 1024, 512, 24, 30592
    forward = count_forward_flops(net, ENTRY.TEXT_MODEL.task, (s, 1.0))
    assert forward == 2 * (layers * 12 * h * h + vocab * h) * s + 4 * layers * s * s * h


def test_part_a_attends_both_ways_and_part_b_causally() -> None:
    import torch

    from chipperf_runtime.models.glm import GLMConfig, GLMModel, blank_infilling_mask

    assert blank_infilling_mask(torch.tensor([2]), 4)[0].tolist() == [
        [True, True, False, False], [True, True, False, False],
        [True, True, True, False], [True, True, True, True]]
    torch.manual_seed(0)
    net = GLMModel(GLMConfig(vocab_size=32, hidden_size=16, num_layers=2, num_attention_heads=2,
                             max_sequence_length=8, dropout=0.0)).eval()
    ids, pos, sep = torch.arange(8).view(1, 8) + 5, torch.zeros(1, 2, 8, dtype=torch.long), torch.tensor([4])
    before = net(ids, pos, sep)
    later_a, later_b = ids.clone(), ids.clone()
    later_a[0, 3], later_b[0, 6] = 30, 30
    assert not torch.allclose(net(later_a, pos, sep)[0, 0], before[0, 0])   # A sees A after it
    changed = net(later_b, pos, sep)
    assert torch.allclose(changed[0, :6], before[0, :6])    # nothing before a B token sees it
    assert not torch.allclose(changed[0, 7], before[0, 7])


def test_a_vendor_layer_norm_replaces_each_one_with_its_weights() -> None:
    """swap_layer_norms (the dcu, metax and iluvatar glm adapters' convert_model): every torch
    LayerNorm of GLM (two per block and the final one) becomes the vendor's class, the state
    dict keeps every key and value, and the output is the same."""
    import torch

    from chipperf_runtime.models.glm import GLMConfig, GLMModel, swap_layer_norms

    class VendorNorm(torch.nn.LayerNorm):
        pass

    torch.manual_seed(0)
    net = GLMModel(GLMConfig(vocab_size=32, hidden_size=16, num_layers=2, num_attention_heads=2,
                             max_sequence_length=8, dropout=0.0)).eval()
    for norm in (m for m in net.modules() if isinstance(m, torch.nn.LayerNorm)):
        torch.nn.init.normal_(norm.weight)          # not the ones a fresh norm would have
    before = {k: v.clone() for k, v in net.state_dict().items()}
    ids, pos, sep = torch.arange(8).view(1, 8) + 5, torch.zeros(1, 2, 8, dtype=torch.long), torch.tensor([4])
    out = net(ids, pos, sep)
    assert swap_layer_norms(net, VendorNorm) == 5
    assert sum(type(m) is VendorNorm for m in net.modules()) == 5
    after = net.state_dict()
    assert after.keys() == before.keys() and all(torch.equal(after[k], before[k]) for k in before)
    assert torch.equal(net(ids, pos, sep), out)


@pytest.fixture(scope="module")
def ci_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("glm_ci")
    subprocess.run([sys.executable, str(CASE / "prepare_data.py"), "--output", str(out),
                    "--train", "64", "--eval", "16"], check=True, timeout=60)
    return out


def test_flagperf_s_layout_reads_into_padded_candidate_batches(ci_data: Path) -> None:
    from chipperf_runtime.training.hftext import record

    data = record.open_dataset(ci_data, BASE["train"], BASE["eval"], 128, 32, "prepare")
    assert (len(data.train), len(data.eval), data.train.width) == (64, 16, 32)
    batch = data.eval.batch(np.arange(4))
    counts = data.eval.bounds[:4, 1] - data.eval.bounds[:4, 0]
    assert batch.input_ids.shape == (4, counts.max(), 32) and batch.position_ids.shape[2] == 2
    assert (batch.choice_mask.sum(axis=1) == counts).all() and batch.answers is not None
    assert (batch.answers.sum(axis=1) == 1).all() and not (batch.answers & (batch.choice_mask == 0)).any()
    assert ((batch.target_ids != 0) == (batch.logit_mask == 1)).all()


def test_a_broken_folder_is_refused_naming_every_problem(ci_data: Path, tmp_path: Path) -> None:
    import h5py

    from chipperf_runtime.training.driver import DataError
    from chipperf_runtime.training.hftext import record

    (tmp_path / BASE["train"]).parent.mkdir(parents=True)
    with h5py.File(tmp_path / BASE["train"], "w") as f:
        f.create_dataset("text", data=np.zeros((2, 4)))
    with pytest.raises(DataError) as error:
        record.open_dataset(tmp_path, BASE["train"], BASE["eval"], 128, 32, "prepare")
    assert "lacks position, target, logit_mask, mask, choice_start_end" in str(error.value)
    assert f"{tmp_path / BASE['eval']} is missing" in str(error.value)
    with pytest.raises(DataError, match=r"text holds 1\d\d: must be in 0..99 \(the model's vocabulary\)"):
        record.open_dataset(ci_data, BASE["train"], BASE["eval"], 100, 32, "prepare")


def _tiny_glm(seed: int):
    import torch

    from chipperf_runtime.models.glm import GLMConfig, GLMForMultiTokenCloze

    torch.manual_seed(seed)
    return GLMForMultiTokenCloze(GLMConfig(**ENTRY.PRESETS["tiny"])).eval()


def test_glm_s_released_checkpoint_loads_by_its_names(ci_data: Path, tmp_path: Path) -> None:
    """A state dict in THUDM/GLM's names (its 512-row position tables one row short, as GLM's
    release is) loads into a fresh model, which then scores as the saved one; FlagPerf's
    extension keeps the new row's initial values."""
    import torch

    from chipperf_runtime.models.glm import glm_name
    from chipperf_runtime.training.hftext import record
    from chipperf_runtime.training.hftext.cloze import MultipleChoiceCloze

    saved, fresh = _tiny_glm(1), _tiny_glm(2)
    state = {glm_name(k): v.clone() for k, v in saved.state_dict().items()}
    for table in ("position_embeddings", "block_position_embeddings"):
        state[f"transformer.{table}.weight"] = state[f"transformer.{table}.weight"][:-1]
    (tmp_path / "ckpt").mkdir()
    torch.save({"module": state, "iteration": 200000}, tmp_path / "ckpt" / "model.pt")
    data = record.open_dataset(ci_data, BASE["train"], BASE["eval"], 128, 32, "prepare")
    cfg = type("Cfg", (), {"from_checkpoint": True, "init_checkpoint": "ckpt/model.pt"})
    last_row = fresh.glm.transformer.position_embeddings.weight[-1].clone()
    MultipleChoiceCloze().initialise(fresh, record.RecordData(data.train, data.eval, tmp_path), cfg)
    assert torch.equal(fresh.glm.transformer.position_embeddings.weight[-1], last_row)
    batch = MultipleChoiceCloze().tensors(data.eval.batch(np.arange(4)), torch.device("cpu"))
    for table in ("position_embeddings", "block_position_embeddings"):   # the row GLM lacks
        own, theirs = getattr(saved.glm.transformer, table), getattr(fresh.glm.transformer, table)
        own.weight.data[-1] = theirs.weight.data[-1]
    with torch.no_grad():
        assert torch.equal(fresh(**batch.inputs).logits, saved(**batch.inputs).logits)


def test_a_checkpoint_that_does_not_fit_names_every_problem(ci_data: Path, tmp_path: Path) -> None:
    import torch

    from chipperf_runtime.models.glm import glm_name, load_glm_state
    from chipperf_runtime.training.driver import DataError
    from chipperf_runtime.training.hftext.megatron_weights import load_checkpoint

    state = {glm_name(k): v for k, v in _tiny_glm(1).state_dict().items()}
    del state["transformer.final_layernorm.bias"]
    state["word_embeddings.weight"] = torch.zeros(7, 64)
    state["transformer.layers.0.attention.rotary.weight"] = torch.zeros(1)
    torch.save({"module": state}, tmp_path / "bad.pt")
    with pytest.raises(DataError) as error:
        load_checkpoint(_tiny_glm(2), tmp_path / "bad.pt", "GLM's weights", load_glm_state)
    for problem in ("transformer.final_layernorm.bias is missing",
                    "word_embeddings.weight has shape (7, 64), the model (128, 64)",
                    "transformer.layers.0.attention.rotary.weight is not a tensor of this model"):
        assert problem in str(error.value)
    with pytest.raises(DataError, match="does not exist: put GLM's weights there"):
        load_checkpoint(_tiny_glm(2), tmp_path / "none.pt", "GLM's weights", load_glm_state)
