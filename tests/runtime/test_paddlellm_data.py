"""FlagPerf's PaddleNLP data layout as the Paddle LLM cases read it
(chipperf_runtime/training/paddlellm/data.py): documents split by the split knob, every
problem of a malformed folder listed at once."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from chipperf_runtime.training.driver import DataError
from chipperf_runtime.training.paddlellm.data import open_dataset, write_dataset


def test_paddlenlp_layout_is_split_by_documents(tmp_path: Path):
    documents = [np.full(100, i + 3, np.uint16) for i in range(10)]
    assert write_dataset(tmp_path, "corpus", documents) == {"documents": 10, "tokens": 1000}
    data = open_dataset(tmp_path, 16, 259, "8,2,0", "prepare_data.py")
    assert len(data.train) == (800 - 1) // 16 and len(data.eval) == (200 - 1) // 16
    assert int(data.eval.take(np.array([0]))[0, 0]) == 8 + 3   # the 9th document starts it


def test_a_malformed_paddlenlp_folder_lists_every_problem(tmp_path: Path):
    np.save(tmp_path / "a_ids.npy", np.zeros((4, 4), np.int32))
    np.savez(tmp_path / "a_idx.npz", lens=np.array([16]))
    np.savez(tmp_path / "b_idx.npz", lens=np.array([3]))
    with pytest.raises(DataError) as err:
        open_dataset(tmp_path, 16, 259, "1,1", "prepare_data.py")
    text = str(err.value)
    assert "split = '1,1': give three non-negative weights" in text
    assert "a_ids.npy: expected a 1-D integer array" in text
    assert "b_idx.npz has no b_ids.npy beside it" in text
