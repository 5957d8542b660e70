"""t5_3b (PyTorch) on the host: prepare_data.py writes CNN/DailyMail's CSV layout and
tokenises it (generated, or a release's CSVs with a given tokenizer, truncated as
run_summarization.py does) into the pairs layout, a release missing a column is refused
naming it, the tiny CI preset reaches its ROUGE-1 target with gradient checkpointing, and
DeepSpeed ZeRO stage 3 on two ranks trains as DistributedDataParallel's one rank does.
The full-size parameter count and FLOPs: tests/runtime/test_text_models.py. Needs torch,
transformers, tokenizers, numpy and deepspeed.
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from caserun import (
    Case,
    assert_case_error,
    check_converged,
    contract_args,
    free_port,
    init_end,
    perflog_events,
)

CASE = Case("t5_3b", "pytorch", cpu_env={"DS_ACCELERATOR": "cpu"})
PREPARE = CASE.dir / "prepare_data.py"
STEPS = Path(__file__).with_name("t5_zero_steps.py")


def prepare(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(PREPARE), *args], capture_output=True, text=True,
                          timeout=300)


@pytest.fixture(scope="module")
def ci_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("t5_3b_ci")
    result = prepare("--output", str(out), "--train", "4096", "--eval", "64")
    assert result.returncode == 0, result.stderr
    return out


def test_the_ci_data_is_cnn_dailymail_s_csv_layout_tokenised_to_pairs(ci_dir: Path) -> None:
    from tokenizers import Tokenizer

    with (ci_dir / "raw" / "validation.csv").open(newline="") as src:
        rows = list(csv.DictReader(src))
    assert list(rows[0]) == ["id", "article", "highlights"] and len(rows) == 64
    tokenizer = Tokenizer.from_file(str(ci_dir / "model" / "tokenizer.json"))
    with np.load(ci_dir / "dataset" / "eval_dataset.npz") as split:
        ids, labels = split["input_ids"], split["labels"]
    assert ids.shape == (64, 24) and labels.shape == (64, 12)
    for row, source, target in zip(rows, ids, labels):     # nothing cut
        summary = target[target != -100].tolist()
        assert summary[-1] == 1 and len(summary) == 11
        assert tokenizer.decode(summary, skip_special_tokens=True) == row["highlights"]
        assert tokenizer.decode(source.tolist(), skip_special_tokens=True) == \
            "summarize : " + row["article"]


def test_a_release_is_truncated_as_run_summarization_does(ci_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "pairs"
    result = prepare("--output", str(out), "--from", str(ci_dir / "raw"), "--tokenizer",
                     str(ci_dir / "raw" / "tokenizer.json"), "--source-len", "8",
                     "--target-len", "4")
    assert result.returncode == 0, result.stderr
    with np.load(out / "dataset" / "train_dataset.npz") as split:
        ids, labels = split["input_ids"], split["labels"]
    assert ids.shape == (4096, 8) and labels.shape == (4096, 4)
    assert (ids[:, -1] == 1).all() and (labels[:, -1] == 1).all()   # cut, then </s>


def test_a_release_missing_a_column_is_refused_naming_it(tmp_path: Path, ci_dir: Path) -> None:
    (tmp_path / "train.csv").write_text("id,article\nx,some text\n")
    result = prepare("--output", str(tmp_path / "out"), "--from", str(tmp_path),
                     "--tokenizer", str(ci_dir / "raw" / "tokenizer.json"))
    assert result.returncode != 0
    assert f"{tmp_path}/train.csv: no column highlights" in result.stderr
    assert "Traceback" not in result.stderr


def test_the_tiny_preset_reaches_its_target_with_gradient_checkpointing(ci_dir: Path) -> None:
    """The shipped CI configuration (config_xeonx1x1, one rank) to ROUGE-1 95 of greedy
    summaries of the 64 eval pairs, gradient checkpointing on, as the case README measured."""
    result = CASE.run_config(ci_dir, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    events = perflog_events(result.stdout)
    finished = check_converged(events)
    assert finished["metric"]["name"] == "rouge1" and finished["metric"]["target"] == 95.0
    assert finished["execution"]["gradient_checkpointing"] is True
    assert "zero_stage" not in finished["execution"]          # stage 0: no DeepSpeed
    arch = init_end(events)["architecture"]
    assert arch["d_kv"] * arch["num_heads"] > arch["d_model"]   # attention wider, as T5-3B's


def zero_steps(ci_dir: Path, out: Path, nproc: int, *sets: str) -> dict:
    """t5_zero_steps.py's three steps and evaluation of the case on ``nproc`` ranks."""
    launcher = [] if nproc == 1 else ["-m", "torch.distributed.run", f"--nproc_per_node={nproc}",
                                      f"--master_port={free_port()}"]
    args = contract_args(ci_dir, CASE.cpu_configs, "config_xeonx1x1.py")
    env = CASE.env(OMP_NUM_THREADS="1")
    result = subprocess.run([sys.executable, *launcher, str(STEPS), str(out), *args,
                             *(a for s in sets for a in ("--set", s))], env=env,
                            capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-4000:]
    return json.loads(out.read_text())


def test_zero_stage_3_on_two_ranks_trains_as_one_rank_without_deepspeed(
        ci_dir: Path, tmp_path: Path) -> None:
    """``zero_stage = 3`` (DS_ACCELERATOR=cpu, gloo) on two ranks: DeepSpeed's engine
    partitions parameters, gradients and AdamW's state over them; the three step losses (the
    ranks' mean) and the ROUGE-1 after them are one rank's under DistributedDataParallel's
    path (stage 0, no DeepSpeed) within 1e-5 relative (fp32 sums in another order; measured:
    README). DeepSpeed builds its CPU shared-memory op (deepspeed_shm_comm) into
    ~/.cache/torch_extensions on first use."""
    one = zero_steps(ci_dir, tmp_path / "one.json", 1)
    zero = zero_steps(ci_dir, tmp_path / "zero3.json", 2, "zero_stage=3")
    assert one["zero"] is None and one["world_size"] == 1
    assert zero["zero"] == {"stage": 3, "optimizer": "DeepSpeedZeroOptimizer_Stage3"}
    assert zero["world_size"] == 2 and len(zero["losses"]) == len(one["losses"]) == 3
    for step, (got, want) in enumerate(zip(zero["losses"], one["losses"]), 1):
        assert got == pytest.approx(want, rel=1e-5), (step, zero, one)
    assert zero["rouge1"] == pytest.approx(one["rouge1"], rel=1e-5), (zero, one)
    print(f"losses: one rank {one['losses']}, ZeRO-3 on two {zero['losses']}; rouge1 "
          f"{one['rouge1']}, {zero['rouge1']}")


def test_a_zero_stage_outside_0_to_3_is_refused_before_training(ci_dir: Path) -> None:
    result = CASE.run_config(ci_dir, "--set", "zero_stage=4")
    assert_case_error(result, "zero_stage = 4 must be 0 (DistributedDataParallel, no "
                      "DeepSpeed), 1, 2 or 3 (DeepSpeed ZeRO)")


def test_zero_stage_3_refuses_eval_shares_of_unequal_batches(ci_dir: Path) -> None:
    """Each ZeRO-3 forward gathers the partitioned parameters: 33 eval pairs over two ranks
    (17 and 16, batches of 16) would give one rank a batch the other never joins."""
    result = CASE.run_config(ci_dir, "--set", "zero_stage=3", "--set", "eval_samples=33",
                             env=CASE.env(RANK="0", LOCAL_RANK="0", WORLD_SIZE="2"))
    assert_case_error(result, "eval_samples = 33: with zero_stage = 3 every rank must evaluate "
                      "as many batches, but the 33 eval pairs give the 2 ranks 1 to 2: set "
                      "eval_samples to a multiple of global_batch_size (32)")
