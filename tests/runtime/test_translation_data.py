"""The transformer case's pieces without a process: fairseq's binarized files read back as
written, corpus BLEU-4, the decoder's inputs, and a folder's problems named at once."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from chipperf_runtime.training.driver import DataError
from chipperf_runtime.training.hftext import bleu
from chipperf_runtime.training.hftext.translation import PairBatch, Translation, words
from chipperf_runtime.training.textlm import fairseq_data as fs


def test_sentences_read_back_as_fairseq_writes_them(tmp_path: Path) -> None:
    sentences = [np.array([5, 6, 2]), np.array([7, 2]), np.array([2])]
    fs.write(tmp_path / "train.en-de.en", sentences)
    problems: list[str] = []
    read = fs.read_sentences(tmp_path / "train.en-de.en", problems)
    assert problems == [] and read is not None and len(read) == 3
    assert [read.get(i).tolist() for i in range(3)] == [s.tolist() for s in sentences]
    fs.write_dictionary(tmp_path / "dict.en.txt", ["a@@", "b"])
    assert fs.read_dictionary(tmp_path / "dict.en.txt", problems) == [*fs.SPECIALS, "a@@", "b"]


def test_bleu_is_corpus_bleu4_with_the_brevity_penalty() -> None:
    same = "the cat sat on the mat".split()
    assert bleu.bleu(bleu.stats(same, same)) == pytest.approx(100.0)
    short = bleu.stats("the cat sat on".split(), same)      # every n-gram right, 4 of 6 words
    assert bleu.bleu(short) == pytest.approx(100.0 * np.exp(1 - 6 / 4))
    assert bleu.bleu(bleu.stats("a b c".split(), same)) == 0.0
    summed = [a + b for a, b in zip(bleu.stats(same, same), short)]
    assert 0 < bleu.bleu(summed) < 100


def test_words_stop_at_eos_and_join_bpe() -> None:
    symbols = [*fs.SPECIALS, "ha@@", "llo", "world"]
    assert words([4, 5, 6, fs.EOS, 6], symbols) == ["hallo", "world"]


def test_decoder_reads_eos_then_the_target_without_its_end() -> None:
    batch = PairBatch(np.array([[5, 6, 2]]), np.array([[7, 8, 2, 1]]))
    tensors = Translation().tensors(batch, torch.device("cpu"))
    assert tensors.inputs["decoder_input_ids"].tolist() == [[2, 7, 8, 1]]
    assert tensors.labels.tolist() == [[7, 8, 2, -100]]


def test_a_folder_missing_pieces_is_one_message(tmp_path: Path) -> None:
    fs.write_dictionary(tmp_path / "dict.en.txt", ["a"])
    cfg = SimpleNamespace(source_lang="en", target_lang="de", train_subset="train",
                          eval_subset="test")
    with pytest.raises(DataError) as err:
        Translation().open(tmp_path, SimpleNamespace(vocab_size=None, max_positions=64), cfg, "p.py")
    for phrase in ("transformer dataset", "dict.de.txt is missing", "train.en-de.en.idx is missing",
                   "test.en-de.de.idx is missing"):
        assert phrase in str(err.value)
