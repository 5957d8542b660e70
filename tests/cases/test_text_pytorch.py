"""The transformers-built text cases (gpt2, distilbert) on the host: their data layouts, gpt2 on
FlagPerf's layout, and bad input stops a case with one message. Their convergence across two
ranks is proven by tests/e2e/test_cases_e2e.py (two hosts through the engine).

gpt2's data is made by its own prepare_data.py (a byte-level BPE trained on the prose on the
machine), distilbert's by bert/pytorch's (the bert cases' MLM layout); the vendor configs are
the cpu CI ones. Needs torch, transformers (and its tokenizers) and numpy on the host.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from caserun import Case, assert_case_error, init_end, perflog_events

CASES = {name: Case(name, "pytorch") for name in ("gpt2", "distilbert")}
# case -> (data fixture, metric, CI target, work unit)
EXPECTED = {"gpt2": ("gpt2_corpus", "lm_accuracy", 0.16, "tokens"),
            "distilbert": ("bert_corpus", "mlm_accuracy", 0.12, "samples")}


def prepare(script: Path, out: Path) -> Path:
    subprocess.run([sys.executable, str(script), "--output", str(out)], check=True, timeout=300)
    return out


@pytest.fixture(scope="module")
def gpt2_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return prepare(CASES["gpt2"].dir / "prepare_data.py", tmp_path_factory.mktemp("gpt2_ci"))


@pytest.fixture(scope="module")
def bert_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return prepare(Case("bert", "pytorch").dir / "prepare_data.py",
                   tmp_path_factory.mktemp("bert_ci"))


def test_gpt2_corpus_has_the_documented_layout(gpt2_corpus: Path) -> None:
    meta = json.loads((gpt2_corpus / "meta.json").read_text())
    vocab = json.loads((gpt2_corpus / "vocab.json").read_text())
    assert meta["vocab_size"] == len(vocab) == 1024 and vocab["<|endoftext|>"] == 0
    assert (gpt2_corpus / "merges.txt").read_text().startswith("#version")
    train = np.load(gpt2_corpus / "train" / "shard_00000.npy")
    assert train.dtype == np.uint16 and train.ndim == 1 and train.max() < 1024
    assert (train == 0).sum() == len(meta["sources"]) - ((np.load(
        gpt2_corpus / "eval" / "shard_00000.npy") == 0).sum())


def test_a_non_finite_loss_ends_the_case_naming_the_step(gpt2_corpus: Path) -> None:
    result = CASES["gpt2"].run_config(gpt2_corpus, "--set", "learning_rate=1e30",
                                      "--set", "warmup_steps=1")
    assert result.returncode == 2, result.stderr[-3000:]
    assert "chipperf case error: training diverged: loss is nan at step 5" in result.stderr
    assert "Traceback" not in result.stderr
    names = [e.name for e in perflog_events(result.stdout)]
    assert "TRAIN_START" in names and "FINISHED" not in names


def test_a_corpus_of_another_vocabulary_is_refused(bert_corpus: Path) -> None:
    result = CASES["gpt2"].run_config(bert_corpus)
    assert_case_error(result, "gpt2 dataset", "expected a 1-D integer token array")


def test_an_unknown_model_size_stops_the_case_before_training(bert_corpus: Path) -> None:
    result = CASES["distilbert"].run_config(bert_corpus, "--set", "model_size=huge")
    assert_case_error(result, "model_size 'huge' is unknown: use one of base, tiny")


def flagperf_gpt2_folder(corpus: Path, out: Path) -> Path:
    """FlagPerf's gpt2 layout made from the CI corpus: its train tokens as a Megatron dataset,
    some text as lambada_test.json, the corpus' BPE as gpt2-vocab.json / gpt2-merges.txt."""
    from chipperf_runtime.training.textlm import megatron

    train = np.load(corpus / "train" / "shard_00000.npy")
    megatron.write(out / "lambada_train_text_document", np.split(train, np.flatnonzero(train == 0) + 1)[:-1])
    passages = ["The quick brown fox jumps over the lazy dog, and the dog sleeps on. " * 6] * 40
    (out / "lambada_test.json").write_text("".join(json.dumps({"text": p}) + "\n" for p in passages))
    (out / "gpt2-vocab.json").write_text((corpus / "vocab.json").read_text())
    (out / "gpt2-merges.txt").write_text((corpus / "merges.txt").read_text())
    return out


def test_gpt2_trains_on_flagperf_s_data_layout(gpt2_corpus: Path, tmp_path: Path) -> None:
    data = flagperf_gpt2_folder(gpt2_corpus, tmp_path)
    result = CASES["gpt2"].run_config(data, "--set", "max_steps=3", "--set", "eval_every_steps=3")
    assert result.returncode == 0, result.stderr[-3000:]
    events = perflog_events(result.stdout)
    finished = events[-1].value
    assert events[-1].name == "FINISHED" and finished["work_done"] == 3 * 32 * 64
    assert init_end(events)["eval_size"] > 0 and finished["metric"]["name"] == "lm_accuracy"
    (data / "lambada_test.json").unlink()
    assert_case_error(CASES["gpt2"].run_config(data), "gpt2 (FlagPerf layout) dataset",
                      "no eval/ folder and no lambada_test.json")


def test_gpt2_pads_its_vocabulary_as_megatron_does_and_counts_the_real_one(gpt2_corpus: Path
                                                                         ) -> None:
    """make_vocab_size_divisible_by pads the network's vocabulary (1,024 -> 2,000 here); MFU's
    FLOPs stay those of the real one, and with compile on the loss is compiled too."""
    base = CASES["gpt2"].run_config(gpt2_corpus, "--set", "max_steps=2", "--set",
                                    "eval_every_steps=2")
    padded = CASES["gpt2"].run_config(gpt2_corpus, "--set", "max_steps=2", "--set",
                                      "eval_every_steps=2", "--set",
                                      "make_vocab_size_divisible_by=1000", "--set", "compile=True",
                                      "--set", "compile_backend=aot_eager")
    assert base.returncode == 0 and padded.returncode == 0, padded.stderr[-3000:]
    plain, wide = init_end(perflog_events(base.stdout)), init_end(perflog_events(padded.stdout))
    assert "padded_vocab_size" not in plain and wide["padded_vocab_size"] == 2000
    assert wide["parameters"] - plain["parameters"] == (2000 - 1024) * 256   # tied embedding
    assert wide["forward_flops_per_sequence"] == plain["forward_flops_per_sequence"]
    # FINISHED's attention part: 12 x layers x width x seq_len per token, causal (MFU's half)
    finished, shape = perflog_events(base.stdout)[-1].value, plain["architecture"]
    assert finished["attention_flops_per_unit"] == \
        12 * shape["n_layer"] * shape["n_embd"] * plain["seq_len"]
    assert finished["causal_attention"] is True
    execution = perflog_events(padded.stdout)[-1].value["execution"]
    assert execution["loss"] == "cross entropy, torch.compile(aot_eager)", execution


def test_a_vocabulary_multiple_below_one_stops_the_case(gpt2_corpus: Path) -> None:
    result = CASES["gpt2"].run_config(gpt2_corpus, "--set", "make_vocab_size_divisible_by=0")
    assert_case_error(result, "make_vocab_size_divisible_by = 0 must be a whole number of at "
                      "least 1")
