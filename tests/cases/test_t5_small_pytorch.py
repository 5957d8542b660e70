"""t5_small (PyTorch) on the host: the generated summarisation data is FlagPerf's layout, a
non-finite loss ends the case naming its step, a folder that is not FlagPerf's t5_small layout
stops the case with one message naming the folder and every missing piece, and a checkpoint is
read. Two ranks reaching the CI ROUGE-1 target: tests/e2e/test_cases_e2e.py (two hosts through
the engine). Needs torch, transformers, tokenizers, safetensors and numpy.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from caserun import Case, assert_case_error, init_end, perflog_events

CASE = Case("t5_small", "pytorch")


@pytest.fixture(scope="module")
def pairs_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("t5_ci")
    subprocess.run([sys.executable, str(CASE.dir / "prepare_data.py"), "--output", str(out)],
                   check=True, timeout=300)
    return out


def test_the_ci_data_is_flagperf_s_layout_and_decodes_to_its_summaries(pairs_dir: Path) -> None:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(pairs_dir / "model" / "tokenizer.json"))
    with np.load(pairs_dir / "dataset" / "eval_dataset.npz") as split:
        ids, mask, labels = split["input_ids"], split["attention_mask"], split["labels"]
    assert ids.shape == mask.shape == (256, 64) and labels.shape == (256, 16)
    assert (mask == (ids != 0)).all() and tokenizer.token_to_id("</s>") == 1
    summary = labels[0][labels[0] != -100].tolist()
    assert summary[-1] == 1 and -100 in labels[0]
    text = tokenizer.decode(summary, skip_special_tokens=True).split()
    source = tokenizer.decode(ids[0].tolist(), skip_special_tokens=True).split()
    assert source[:2] == ["summarize", ":"] and len(text) == 10
    assert (text[2], text[4], text[5], text[7], text[9]) == ("the", "at", "the", "on", ".")
    assert {text[0], text[1], text[3], text[6], text[8]} <= set(source)   # the five facts


def test_a_non_finite_loss_ends_the_case_naming_the_step(pairs_dir: Path) -> None:
    result = CASE.run_config(pairs_dir, "--set", "learning_rate=1e30", "--set", "warmup_steps=1")
    assert result.returncode == 2, result.stderr[-3000:]
    assert "chipperf case error: training diverged: loss is nan at step 5" in result.stderr
    assert "Traceback" not in result.stderr
    names = [e.name for e in perflog_events(result.stdout)]
    assert "TRAIN_START" in names and "FINISHED" not in names


def test_a_folder_missing_pieces_is_refused_naming_each(pairs_dir: Path, tmp_path: Path) -> None:
    (tmp_path / "dataset").mkdir()
    with np.load(pairs_dir / "dataset" / "train_dataset.npz") as split:
        np.savez(tmp_path / "dataset" / "train_dataset.npz", input_ids=split["input_ids"],
                 attention_mask=split["attention_mask"])
    result = CASE.run_config(tmp_path)
    assert_case_error(result, f"t5_small dataset {tmp_path} is not usable",
                      "train_dataset.npz lacks the arrays labels",
                      f"{tmp_path}/dataset/eval_dataset.npz is missing",
                      f"{tmp_path}/model/tokenizer.json is missing",
                      "expected layout (FlagPerf's t5_small folder)")
    assert result.stderr.count("chipperf case error") == 1


def test_starting_from_a_checkpoint_needs_one_and_reads_it(pairs_dir: Path,
                                                            tmp_path: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(pairs_dir, data)
    assert_case_error(CASE.run_config(data, "--set", "from_checkpoint=True"),
                      f"{data}/model/model.safetensors is missing")
    save_tiny_checkpoint(data / "model" / "model.safetensors")
    result = CASE.run_config(data, "--set", "from_checkpoint=True", "--set", "max_steps=2",
                             "--set", "eval_samples=32")
    assert result.returncode == 0, result.stderr[-3000:]
    events = perflog_events(result.stdout)
    assert init_end(events)["weights"] == str(data / "model" / "model.safetensors")
    assert events[-1].name == "FINISHED" and events[-1].value["work_done"] == 2 * 32


def save_tiny_checkpoint(path: Path) -> None:
    """The tiny preset's weights as transformers saves them (tied copies left out)."""
    import importlib.util

    from safetensors.torch import save_file

    from chipperf_runtime.training.hftext.models import hf_model
    from chipperf_runtime.training.hftext.seq2seq import TIED

    spec = importlib.util.spec_from_file_location("t5_small_entry", CASE.entry)
    assert spec is not None and spec.loader is not None
    entry = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(entry)
    state = hf_model("t5", entry.PRESETS["tiny"]).state_dict()
    save_file({k: v.contiguous() for k, v in state.items() if k not in TIED}, str(path))
