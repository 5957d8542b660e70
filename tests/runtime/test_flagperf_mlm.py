"""FlagPerf's masked-LM layouts (hftext.flagperf_mlm): bert_hf's masking as FlagPerf's, and
each reader naming every problem of a folder at once. No process is started."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from chipperf_runtime.training.driver import DataError
from chipperf_runtime.training.hftext.flagperf_mlm import NpzMLM, TokenStreamMLM, mask_stream_rows

ARCH = SimpleNamespace(vocab_size=256, max_position_embeddings=128)


def stream_cfg(**changes: object) -> SimpleNamespace:
    base = {"seq_len": 64, "mask_token_id": 103, "datafilename": "train.npy",
            "valdatafilename": "eval.npy", "weight_dir": "weights", "from_checkpoint": False}
    return SimpleNamespace(**{**base, **changes})


def test_bert_hf_masks_its_ratio_of_all_positions_and_labels_every_one() -> None:
    rows = np.arange(2 * 50).reshape(2, 50) + 110
    masked = mask_stream_rows(rows, 0.10, 103, np.random.default_rng(0))
    assert masked.scored.sum() == 10 and (masked.input_ids[masked.scored] == 103).all()
    assert (masked.input_ids[~masked.scored] == rows[~masked.scored]).all()
    assert (masked.labels == rows).all() and masked.attention_mask.all()


def test_bert_hf_reads_flagperf_s_files(tmp_path: Path) -> None:
    np.save(tmp_path / "train.npy", np.arange(1000, dtype=np.int32) % 200 + 50)
    np.save(tmp_path / "eval.npy", np.arange(300, dtype=np.int32) % 200 + 50)
    data = TokenStreamMLM().open(tmp_path, ARCH, stream_cfg(), "prepare_data.py")
    assert (len(data.tokens.train), len(data.tokens.eval)) == (15, 4)   # rows of 64


def test_bert_hf_names_every_missing_piece_at_once(tmp_path: Path) -> None:
    np.save(tmp_path / "train.npy", np.zeros((4, 4), dtype=np.int32))
    cfg = stream_cfg(from_checkpoint=True, seq_len=512, mask_token_id=300)
    with pytest.raises(DataError) as err:
        TokenStreamMLM().open(tmp_path, ARCH, cfg, "prepare_data.py")
    for phrase in ("bert_hf dataset", "seq_len 512 exceeds the model's 128 positions",
                   "mask_token_id 300 is outside the model's vocab_size 256",
                   "train.npy: expected a 1-D integer token array", "eval.npy is missing",
                   "weights/model.safetensors is missing"):
        assert phrase in str(err.value)


def test_longformer_names_a_missing_array_and_a_missing_split(tmp_path: Path) -> None:
    (tmp_path / "dataset").mkdir()
    np.savez(tmp_path / "dataset" / "train_dataset.npz", input_ids=np.zeros((2, 8), np.int64),
             attention_mask=np.ones((2, 8), np.int64))
    with pytest.raises(DataError) as err:
        NpzMLM().open(tmp_path, ARCH, SimpleNamespace(mask_token_id=3), "prepare_data.py")
    assert "lacks the arrays special_tokens_mask" in str(err.value)
    assert "eval_dataset.npz is missing" in str(err.value)
