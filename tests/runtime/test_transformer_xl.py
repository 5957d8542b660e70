"""transformer_xl's pieces: the full-size model built on meta has transformers 4.34's parameter
count and case.yaml's, its FLOPs formula is what torch counts, the memory carried into the
next segment changes its loss, and FlagPerf's WikiText-103 layout is read (and refused, naming
what is missing)."""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import torch
import yaml
from casemodules import BENCHMARKS, load_case_module

from chipperf_runtime.models.transfo_xl import (
    SegmentRecurrence,
    TransfoXLConfig,
    TransfoXLLMHeadModel,
    config_from_json,
    forward_flops,
)
from chipperf_runtime.training.driver import DataError
from chipperf_runtime.training.textlm.wikitext import read_vocab, split_path, write_lines

CASE = BENCHMARKS / "transformer_xl" / "pytorch"
DATA = load_case_module("transformer_xl/pytorch", "txl_data")
ENTRY = load_case_module("transformer_xl/pytorch", "run_pretraining", "txl_run_pretraining")
PREPARE = load_case_module("transformer_xl/pytorch", "prepare_data", "txl_prepare_data")


def params(config: TransfoXLConfig) -> int:
    with torch.device("meta"):
        net = TransfoXLLMHeadModel(config)
    return sum(p.numel() for p in net.parameters())


def test_full_size_is_flagperf_s_model_with_transformers_4_34_s_count() -> None:
    """transformers 4.34.1's TransfoXLLMHeadModel on meta: 56,385,628 for FlagPerf's
    TransfoXLConfig(n_layer=16, d_model=410, ...), 285,205,322 for transfo-xl-wt103's
    (TransfoXLConfig()'s defaults); the case README says how that was measured."""
    full = yaml.safe_load((CASE / "case.yaml").read_text())["full_size"]
    assert params(TransfoXLConfig(**ENTRY.PRESETS["base"])) == full["params"] == 56_385_628
    assert params(TransfoXLConfig()) == 285_205_322


def tiny(**change: object) -> TransfoXLConfig:
    return config_from_json(PREPARE.CONFIG, **{**ENTRY.PRESETS["tiny"], **change})


def test_forward_flops_are_what_torch_counts() -> None:
    """The formula against torch's FLOP counter on a segment whose tokens are all in the
    first cluster (the adaptive softmax's tails then never run)."""
    from torch.utils.flop_counter import FlopCounterMode

    config = tiny()
    net = TransfoXLLMHeadModel(config).eval()
    ids = torch.randint(0, 20, (1, 16))
    with FlopCounterMode(display=False) as counter, torch.no_grad():
        net(ids)
    assert forward_flops(config, 16, [1.0, 0.0, 0.0]) == counter.get_total_flops()


def test_the_memory_of_the_first_segment_changes_the_second_s_loss() -> None:
    torch.manual_seed(0)   # weights larger than the initialisation's, as training makes them
    net = SegmentRecurrence(TransfoXLLMHeadModel(tiny(init_std=0.3, proj_init_std=0.3))).eval()
    first, second = torch.randint(0, 62, (2, 3, 16))
    with torch.no_grad():
        net(first, torch.zeros(3))
        assert net.mems is not None and net.mems[0].shape == (32, 3, 64)
        carried = net(second, torch.ones(3))        # segment 1: the memory is kept
        net(first, torch.zeros(3))
        fresh = net(second, torch.zeros(3))         # segment 0: a stream starts, no memory
        alone, _ = net.lm(second)
    assert abs(float(carried - fresh)) > 0.01 and float(fresh) == float(alone.mean())


def write_data(root: Path) -> Path:
    PREPARE.prepare(root, train_lines=40, eval_lines=8)
    return root


def test_flagperf_s_layout_is_read_into_ordered_streams(tmp_path: Path) -> None:
    root = write_data(tmp_path)
    vocab = read_vocab(root / "model" / "vocab.pkl")
    assert vocab["<eos>"] == 0 and len(vocab) == 62
    cfg = SimpleNamespace(train_split="train", eval_split="test", global_batch_size=4, tgt_len=16)
    data = DATA.open_wikitext(root, cfg, ENTRY.PRESETS["tiny"])
    assert data.model.vocab_size == 62 and data.model.cutoffs == (20, 40)
    assert data.model.n_layer == 2 and data.model.mem_len == 32
    tokens = 40 * 17                                  # 16 words and <eos> a line
    assert len(data.train) == 4 * (tokens // 4 // 16) and abs(sum(data.shares) - 1) < 1e-9
    # sample i: segment i // 4 of stream i % 4; a stream's segments follow each other
    (seg0, k0), (seg1, k1) = data.train[1], data.train[5]
    stream = data.train.cut[1].reshape(-1)
    assert (k0, k1) == (0, 1) and seg0.tolist() + seg1.tolist() == stream[:32].tolist()
    (whole,) = data.eval[0]
    assert whole.shape == (2, 16) and data.describe()["eval_streams"] == 4


def test_missing_or_wrong_files_are_named(tmp_path: Path) -> None:
    root = write_data(tmp_path)
    cfg = SimpleNamespace(train_split="train", eval_split="test", global_batch_size=4, tgt_len=16)
    split_path(root, "test").unlink()
    with pytest.raises(DataError, match=r"data/wikitext-test\.arrow: missing"):
        DATA.open_wikitext(root, cfg, ENTRY.PRESETS["tiny"])
    write_lines(split_path(root, "test"), ["w1 w2"])
    with pytest.raises(DataError, match="make no 16-token segment in each of 4 streams"):
        DATA.open_wikitext(root, cfg, ENTRY.PRESETS["tiny"])
    (root / "model" / "vocab.pkl").write_bytes(pickle.dumps({"idx2sym": ["a", "<unk>"]}))
    with pytest.raises(DataError, match="has no <eos>"):
        read_vocab(root / "model" / "vocab.pkl")
    (root / "model" / "config.json").write_text(json.dumps({**PREPARE.CONFIG, "div_val": 1,
                                                            "pre_lnorm": True}))
    PREPARE.prepare(tmp_path / "again", train_lines=40, eval_lines=8)
    (tmp_path / "again" / "model" / "config.json").write_text(
        (root / "model" / "config.json").read_text())
    with pytest.raises(DataError, match=r"pre_lnorm = True \(only False\) is not supported; "
                                        r"div_val 1: only adaptive"):
        DATA.open_wikitext(tmp_path / "again", cfg, ENTRY.PRESETS["tiny"])


def test_the_vocabulary_unpickler_builds_no_foreign_object(tmp_path: Path) -> None:
    """transformers' vocab.pkl may hold other objects; none of their code runs."""
    path = tmp_path / "vocab.pkl"
    path.write_bytes(pickle.dumps({"idx2sym": ["<eos>", "<unk>"], "x": np.int64(3)}))
    assert read_vocab(path) == {"<eos>": 0, "<unk>": 1}
