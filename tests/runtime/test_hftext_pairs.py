"""hftext.pairs: FlagPerf's t5_small folder is read as it is, and every problem of a bad one is
named in one DataError (numpy only: arrays written here)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from casemodules import BENCHMARKS  # noqa: F401 - puts driver, textlm and hftext on sys.path


def write_folder(root: Path, rows: int = 4, source: int = 12, target: int = 5,
                 **override: np.ndarray) -> Path:
    ids = np.arange(rows * source).reshape(rows, source) % 30 + 2
    labels = np.full((rows, target), -100)
    labels[:, :3] = [7, 8, 1]
    arrays = {"input_ids": ids, "attention_mask": np.ones_like(ids), "labels": labels}
    (root / "dataset").mkdir(parents=True)
    (root / "model").mkdir()
    (root / "model" / "tokenizer.json").write_text("{}")
    for split in ("train", "eval"):
        np.savez(root / "dataset" / f"{split}_dataset.npz", **{**arrays, **override})
    return root


def test_flagperf_s_layout_opens_with_its_widths(tmp_path: Path) -> None:
    from chipperf_runtime.training.hftext.pairs import open_pairs

    data = open_pairs(write_folder(tmp_path), 32, "prepare_data.py", False, "t5_small")
    assert (len(data.train), data.source_len, data.target_len) == (4, 12, 5)
    assert data.train.take(np.array([1, 3])).labels.tolist() == [[7, 8, 1, -100, -100]] * 2
    assert data.checkpoint == tmp_path / "model" / "model.safetensors"


def test_every_problem_is_named_in_one_error(tmp_path: Path) -> None:
    from chipperf_runtime.training.driver import DataError
    from chipperf_runtime.training.hftext.pairs import open_pairs

    root = write_folder(tmp_path, attention_mask=np.ones((4, 11), dtype=np.int64),
                        labels=np.full((4, 5), 40))
    (root / "model" / "tokenizer.json").unlink()
    with pytest.raises(DataError) as caught:
        open_pairs(root, 32, "prepare_data.py", True, "t5_small")
    message = str(caught.value)
    assert message.startswith(f"t5_small dataset {root} is not usable:")
    for phrase in ("train_dataset.npz: attention_mask (4, 11) differs from input_ids (4, 12)",
                   "eval_dataset.npz: labels hold ids outside [0, 32) other than -100",
                   f"{root}/model/tokenizer.json is missing",
                   f"{root}/model/model.safetensors is missing",
                   "expected layout (FlagPerf's t5_small folder)"):
        assert phrase in message, message


def test_a_missing_folder_says_how_to_make_one(tmp_path: Path) -> None:
    from chipperf_runtime.training.driver import DataError
    from chipperf_runtime.training.hftext.pairs import open_pairs

    with pytest.raises(DataError, match="does not exist or is not a folder; make one with "
                                        "prepare_data.py --output DIR"):
        open_pairs(tmp_path / "nowhere", 32, "prepare_data.py", False, "t5_small")
