"""bert / PyTorch on the host: the prepared corpus's layout and bad input. Two ranks reaching the
tiny size's MLM-accuracy target: tests/e2e/test_cases_e2e.py (two hosts through the engine).

Needs torch and numpy on the host (requirements-test.txt). The data dir is made by the case's
own prepare_data.py from text already on the machine; the vendor config is the cpu CI one.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from caserun import Case, assert_case_error

CASE = Case("bert", "pytorch")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bert_ci")
    subprocess.run([sys.executable, str(CASE.dir / "prepare_data.py"), "--output", str(out)],
                   check=True, timeout=300)
    return out


def test_prepared_corpus_has_the_documented_layout(corpus: Path) -> None:
    vocab = (corpus / "vocab.txt").read_text().splitlines()
    assert len(vocab) == 1024 and vocab[:5] == ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    train = np.load(corpus / "train" / "shard_00000.npy")
    assert train.dtype == np.uint16 and train.ndim == 2 and train.shape[1] == 64
    assert (train[:, 0] == 2).all() and ((train == 3).sum(axis=1) == 2).all()
    assert len(train) > 5000 and len(np.load(corpus / "eval" / "shard_00000.npy")) > 500


def test_missing_data_dir_fails_with_how_to_make_one(tmp_path: Path) -> None:
    result = CASE.run_config(tmp_path / "nope")
    assert_case_error(result, f"data dir {tmp_path / 'nope'} does not exist",
                      "bert/pytorch/prepare_data.py --output")


def test_malformed_dataset_lists_every_problem(corpus: Path, tmp_path: Path) -> None:
    (tmp_path / "train").mkdir()
    np.save(tmp_path / "train" / "shard_00000.npy", np.zeros(10, np.uint16))
    result = CASE.run_config(tmp_path)
    assert_case_error(result, "vocab.txt is missing", "expected a non-empty 2-D integer array",
                      f"{tmp_path / 'eval'} has no .npy shards", "layout: vocab.txt")


def test_batch_that_does_not_divide_across_ranks_fails(corpus: Path) -> None:
    result = CASE.run_config(corpus, env=CASE.env(RANK="0", LOCAL_RANK="0", WORLD_SIZE="3"))
    assert_case_error(result, "global_batch_size = 32 does not divide across 3 ranks")


def test_vendor_config_may_not_change_the_target(corpus: Path, tmp_path: Path) -> None:
    (tmp_path / "config_bad.py").write_text(
        'model_size = "tiny"\ntarget_mlm_accuracy = {"tiny": 0.01}\n')
    result = CASE.run_config(corpus, config_dir=tmp_path, config_file="config_bad.py")
    assert_case_error(result, "sets 'target_mlm_accuracy', which a vendor config may not change")


def test_unknown_model_size_fails(corpus: Path) -> None:
    result = CASE.run_config(corpus, "--set", "model_size=huge")
    assert_case_error(result, "model_size 'huge' is unknown: use one of large, tiny")
