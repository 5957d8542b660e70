"""Megatron-LM GPT-2 weights (CPM-1's release, FlagPerf's cpm) into transformers'
GPT2LMHeadModel: Megatron's layout ([out, in] linear weights, its names) loads into a fresh
model that then predicts as the saved one; a file that does not fit names every problem."""

from __future__ import annotations

from pathlib import Path

import pytest
from casemodules import load_case_module

ENTRY = load_case_module("cpm/pytorch", "run_pretraining", "cpm_run_pretraining")


def _tiny(seed: int):
    import torch

    from chipperf_runtime.training.hftext.models import hf_model

    torch.manual_seed(seed)
    return hf_model("gpt2", ENTRY.PRESETS["tiny"]).eval()


def _megatron_state(net) -> dict:
    from chipperf_runtime.training.hftext.megatron_weights import gpt2_names

    own = net.state_dict()
    return {theirs: (own[ours].t() if transposed else own[ours]).clone()
            for ours, (theirs, transposed) in gpt2_names(len(net.transformer.h)).items()}


def test_megatron_gpt2_weights_load_and_predict_as_saved(tmp_path: Path) -> None:
    import torch

    from chipperf_runtime.training.hftext.megatron_weights import load_checkpoint, load_megatron_gpt2

    saved, fresh = _tiny(1), _tiny(2)
    state = _megatron_state(saved)
    assert state["transformer.layers.0.attention.query_key_value.weight"].shape == (192, 64)
    assert state["transformer.layers.1.mlp.dense_4h_to_h.weight"].shape == (64, 256)
    torch.save({"model": state}, tmp_path / "cpm.pt")       # FlagPerf's trainer unwraps "model"
    load_checkpoint(fresh, tmp_path / "cpm.pt", "CPM's weights", load_megatron_gpt2)
    ids = torch.randint(4, 256, (2, 16))
    with torch.no_grad():
        assert torch.equal(fresh(input_ids=ids).logits, saved(input_ids=ids).logits)


def test_a_file_that_does_not_fit_names_every_problem(tmp_path: Path) -> None:
    import torch

    from chipperf_runtime.training.driver import DataError
    from chipperf_runtime.training.hftext.megatron_weights import load_checkpoint, load_megatron_gpt2

    state = _megatron_state(_tiny(1))
    del state["transformer.final_layernorm.bias"]
    state["position_embeddings.weight"] = torch.zeros(1024, 64)
    state["transformer.layers.0.attention.rotary.inv_freq"] = torch.zeros(4)
    torch.save(state, tmp_path / "bad.pt")
    with pytest.raises(DataError) as error:
        load_checkpoint(_tiny(2), tmp_path / "bad.pt", "CPM's weights", load_megatron_gpt2)
    for problem in ("transformer.final_layernorm.bias is missing",
                    "position_embeddings.weight has shape (1024, 64), the model (64, 64)",
                    "transformer.layers.0.attention.rotary.inv_freq is not a tensor of this model"):
        assert problem in str(error.value)
    torch.save([1, 2], tmp_path / "list.pt")
    with pytest.raises(DataError, match="holds a list, not CPM-1's state dict"):
        load_checkpoint(_tiny(2), tmp_path / "list.pt", "CPM-1", load_megatron_gpt2)
