"""textlm.megatron: Megatron-LM's mmap indexed dataset (FlagPerf gpt2's training data) read
back as one token stream, and a broken pair reported as a problem."""

from __future__ import annotations

from pathlib import Path

import casemodules  # noqa: F401 - puts training/benchmarks on sys.path
import numpy as np

from chipperf_runtime.training.textlm import megatron


def test_written_documents_read_back_as_one_stream(tmp_path: Path) -> None:
    docs = [np.array([5, 6, 7, 0]), np.array([8, 9, 0]), np.array([1, 0])]
    megatron.write(tmp_path / "lambada_train_text_document", docs)
    assert megatron.prefixes(tmp_path) == [tmp_path / "lambada_train_text_document"]
    problems: list[str] = []
    stream = megatron.token_stream(tmp_path / "lambada_train_text_document", problems)
    assert problems == [] and stream is not None and stream.dtype == np.uint16
    assert stream.tolist() == [5, 6, 7, 0, 8, 9, 0, 1, 0]
    raw = (tmp_path / "lambada_train_text_document.idx").read_bytes()
    assert raw[:9] == b"MMIDIDX\x00\x00" and raw[17] == 8      # version 1, uint16's code


def test_a_mismatched_or_foreign_pair_is_a_problem(tmp_path: Path) -> None:
    megatron.write(tmp_path / "a", [np.array([1, 2, 3])])
    with open(tmp_path / "a.bin", "ab") as out:
        out.write(np.array([4], dtype=np.uint16).tobytes())
    (tmp_path / "b.idx").write_bytes(b"not an index at all, just some bytes here")
    (tmp_path / "b.bin").write_bytes(b"")
    problems: list[str] = []
    assert megatron.token_stream(tmp_path / "a", problems) is None
    assert megatron.token_stream(tmp_path / "b", problems) is None
    assert megatron.token_stream(tmp_path / "c", problems) is None
    assert "counts 3 tokens in 1 sequences, a.bin holds 4" in problems[0]
    assert "is not a Megatron mmap index" in problems[1] and "has no c.bin" in problems[2]


def test_the_llm_token_dataset_reads_a_megatron_pair_and_holds_out_its_tail(tmp_path: Path) -> None:
    """tokens.open_dataset (llama2_7b, llama3_8B, mixtral_8x7B, ...) on FlagPerf's Megatron
    layout: without eval/, the last 1/20 of the windows (at least one) is the eval split."""
    from chipperf_runtime.training.textlm import tokens

    stream = np.arange(1, 402) % 250
    megatron.write(tmp_path / "wudao_llama3bpe_content_document", [stream[:200], stream[200:]])
    data = tokens.open_dataset(tmp_path, 10, 259, "prepare_data.py")
    assert (len(data.train), len(data.eval)) == (38, 2)
    rows = np.concatenate([data.train.take(np.arange(38)), data.eval.take(np.arange(2))])
    assert rows[:, :-1].ravel().tolist() == stream[:400].tolist()
    np.save(tmp_path / "held.npy", np.arange(50, dtype=np.int32))
    (tmp_path / "eval").mkdir()
    (tmp_path / "held.npy").rename(tmp_path / "eval" / "held.npy")
    data = tokens.open_dataset(tmp_path, 10, 259, "prepare_data.py")
    assert (len(data.train), len(data.eval)) == (40, 4)


def test_a_megatron_folder_too_short_for_one_window_is_refused(tmp_path: Path) -> None:
    import pytest

    from chipperf_runtime.training.driver import DataError
    from chipperf_runtime.training.textlm import tokens

    megatron.write(tmp_path / "a", [np.array([1, 2, 3])])
    with pytest.raises(DataError, match="(?s)llama2 \\(Megatron layout\\) dataset .*no Megatron dataset"):
        tokens.open_dataset(tmp_path, 10, 259, "prepare_data.py")
