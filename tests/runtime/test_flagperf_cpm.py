"""FlagPerf's cpm raw-text layout (train.txt, valid.txt, bpe_3w_new/): tokenised as CPM-1's
tokenizer does (jieba, then SentencePiece), each document ended by <eod>, through the cpm
case's own task; a folder without the tokenizer names what is missing and where it comes from.
Needs jieba and sentencepiece (the project's test extra)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from chipperf_runtime.training.driver import Config, DataError
from chipperf_runtime.training.hftext import flagperf_cpm
from chipperf_runtime.training.hftext.megatron_weights import MegatronGPT2LM

REPO = Path(__file__).resolve().parents[2]
PREPARE = REPO / "training" / "benchmarks" / "cpm" / "pytorch" / "prepare_data.py"


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("cpm-text")
    subprocess.run([sys.executable, str(PREPARE), "--output", str(out), "--flagperf-text",
                    "--documents", "60"], check=True, timeout=120)
    return out


def test_each_document_is_cpm_tokenised_and_ended_by_eod(folder: Path) -> None:
    tokenizer = flagperf_cpm.CpmTokenizer(folder / "bpe_3w_new")
    eod = json.loads((folder / "bpe_3w_new" / "vocab.json").read_text(encoding="utf-8"))["<eod>"]
    stream = tokenizer.stream(folder / "valid.txt")
    documents = (folder / "valid.txt").read_text(encoding="utf-8").splitlines(keepends=True)
    assert int((stream == eod).sum()) == len(documents) and stream[-1] == eod
    first = stream[:int(np.argmax(stream == eod))].tolist()
    assert first == tokenizer.encode(documents[0])
    text = tokenizer.pieces.decode(first).replace(" ", "").replace("\u2582", " ").replace("\u2583", "\n")
    assert text == documents[0]                         # CPM-1's decode gives the line back


def test_the_cpm_task_opens_the_layout_as_token_windows(folder: Path) -> None:
    cfg = Config({"seq_len": 32, "tokenizer_dir": None}, {})
    data = MegatronGPT2LM("cpm").open(folder, type("Arch", (), {"vocab_size": 256})(), cfg, "x")
    assert data.root == folder and data.vocab_size == 256
    assert len(data.train) > len(data.eval) > 0 and data.train.seq_len == 32
    with pytest.raises(DataError, match="is not below the model's vocabulary"):
        flagperf_cpm.open_dataset(folder, 32, 100)


def test_a_folder_without_the_tokenizer_names_it_and_where_it_comes_from(tmp_path: Path) -> None:
    (tmp_path / "train.txt").write_text("我们学习\n", encoding="utf-8")
    with pytest.raises(DataError) as raised:
        flagperf_cpm.open_dataset(tmp_path, 32, 30000)
    said = str(raised.value)
    assert f"{tmp_path / 'valid.txt'} is missing" in said
    assert f"{tmp_path / 'bpe_3w_new' / 'chinese_vocab.model'} is missing" in said
    assert "cpm/pytorch/dataloaders/bpe_3w_new" in said
