"""llama2_7b / DeepSpeed on the host (DS_ACCELERATOR=cpu): the prepared corpus's layout, bad
input stopping the case before training, and the DeepSpeed config each vendor config gives.
Its training to the tiny size's eval-loss target (2 nodes of 1 rank, chipperf's deepspeed
launcher, ZeRO stage 2) is tests/e2e/test_cases_e2e.py, through the engine on two hosts.

Needs torch, numpy and deepspeed on the host. The data dir is made by the case's own
prepare_data.py from text already on the machine; the vendor configs are the cpu CI ones.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from caserun import Case, assert_case_error

CASE = Case("llama2_7b", "deepspeed", cpu_env={"DS_ACCELERATOR": "cpu"})


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("llama2_ci")
    subprocess.run([sys.executable, str(CASE.dir / "prepare_data.py"), "--output", str(out)],
                   check=True, timeout=300)
    return out


def test_prepared_corpus_has_the_documented_layout(corpus: Path) -> None:
    tokenizer = json.loads((corpus / "tokenizer.json").read_text())
    assert tokenizer["vocab_size"] == 259 and tokenizer["bos_id"] == 1
    train = np.load(corpus / "train" / "shard_00000.npy")
    assert train.dtype == np.uint16 and train.ndim == 1 and len(train) > 1_000_000
    assert train[0] == 1 and train.max() <= 258 and (train == 2).sum() == (train == 1).sum()
    text = bytes((train[1:200] - 3).astype(np.uint8)).decode("utf-8")  # bytes shifted by 3
    assert text.isascii() and len(text.split()) > 10
    assert len(np.load(corpus / "eval" / "shard_00000.npy")) > 100_000


# ---------------------------------------------------------------- errors before training


def test_missing_data_dir_fails_with_how_to_make_one(tmp_path: Path) -> None:
    result = CASE.run_config(tmp_path / "nope")
    assert_case_error(result, f"data dir {tmp_path / 'nope'} does not exist",
                      "llama2_7b/deepspeed/prepare_data.py --output")


def test_malformed_dataset_lists_every_problem(tmp_path: Path) -> None:
    (tmp_path / "train").mkdir()
    np.save(tmp_path / "train" / "shard_00000.npy", np.zeros((4, 4), np.uint16))
    result = CASE.run_config(tmp_path)
    assert_case_error(result, "expected a 1-D integer token array",
                      f"{tmp_path / 'eval'} has no .npy shards")


def test_batch_that_does_not_divide_across_ranks_fails(corpus: Path) -> None:
    result = CASE.run_config(corpus, env=CASE.env(RANK="0", LOCAL_RANK="0", WORLD_SIZE="3"))
    assert_case_error(result, "global_batch_size = 32 does not divide across 3 ranks")


def test_batch_that_does_not_split_into_micro_batches_fails(corpus: Path) -> None:
    result = CASE.run_config(corpus, "--set", "micro_batch_size=5")
    assert_case_error(result, "gives 32 samples per rank, not a multiple of micro_batch_size 5")


def test_vendor_config_may_not_change_the_target(corpus: Path, tmp_path: Path) -> None:
    (tmp_path / "config_bad.py").write_text(
        'model_size = "tiny"\ntarget_eval_loss = {"tiny": 9.0}\n')
    result = CASE.run_config(corpus, config_dir=tmp_path, config_file="config_bad.py")
    assert_case_error(result, "sets 'target_eval_loss', which a vendor config may not change")


def test_sequence_longer_than_the_model_fails(corpus: Path) -> None:
    result = CASE.run_config(corpus, "--set", "seq_len=512")
    assert_case_error(result, "seq_len 512 must be 1..256 for model_size 'tiny'")


# ---------------------------------------------------------------- the DeepSpeed config


def deepspeed_config_for(vendor_config: Path, world_size: int) -> dict:
    sys.path.insert(0, str(CASE.dir))
    try:
        import run_pretraining as case

        from chipperf_runtime.training.driver import load_case_config

        return case.deepspeed_config(load_case_config(CASE.dir / "config", vendor_config),
                                     world_size)
    finally:
        sys.path.remove(str(CASE.dir))


def test_deepspeed_config_follows_the_case_config() -> None:
    ds = deepspeed_config_for(CASE.cpu_configs / "config_xeonx1x1.py", 1)
    assert (ds["train_batch_size"], ds["train_micro_batch_size_per_gpu"],
            ds["gradient_accumulation_steps"]) == (32, 16, 2)
    assert ds["zero_optimization"]["stage"] == 2
    assert "offload_optimizer" not in ds["zero_optimization"]
    assert ds["optimizer"]["type"] == "AdamW" and ds["optimizer"]["params"]["torch_adam"]
    assert ds["bf16"] == {"enabled": False} and ds["gradient_clipping"] == 1.0


def test_nvidia_single_gpu_config_offloads_the_optimizer() -> None:
    nvidia = CASE.configs("nvidia")
    ds = deepspeed_config_for(nvidia / "config_H100x1x1.py", 1)
    assert ds["zero_optimization"]["offload_optimizer"]["device"] == "cpu"
    assert ds["bf16"] == {"enabled": True} and ds["gradient_accumulation_steps"] == 32
    ds = deepspeed_config_for(nvidia / "config_H100x2x8.py", 16)
    assert ds["zero_optimization"]["stage"] == 3 and ds["gradient_accumulation_steps"] == 8
