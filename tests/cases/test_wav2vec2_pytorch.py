"""The wav2vec2 case on the host: 2 ranks under chipperf's torchrun command pretrain the tiny
wav2vec 2.0 on the synthetic audio of its prepare_data.py, evaluate and finish with a valid
FINISHED, and bad input (a wrong data layout, .flac without a decoder, a non-finite loss)
stops it with one message. Needs torch, transformers and numpy on the host."""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from caserun import Case, assert_case_error, init_end, perflog_events, rank_logs

from chipperf.launchers import pytorch as pytorch_launcher
from chipperf_runtime.perflog import finished_problems

CASE = Case("wav2vec2", "pytorch")


@pytest.fixture(scope="module")
def audio_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wav2vec2_ci")
    subprocess.run([sys.executable, str(CASE.dir / "prepare_data.py"), "--output", str(out)],
                   check=True, timeout=300)
    return out


def test_the_ci_audio_has_the_manifest_layout(audio_dir: Path) -> None:
    for subset, count in (("synthetic-train", 1024), ("synthetic-dev", 128)):
        lines = (audio_dir / f"{subset}.tsv").read_text().splitlines()
        assert lines[0] == str(audio_dir) and len(lines) == 1 + count
        path, samples = lines[1].split("\t")
        assert (audio_dir / path).stat().st_size == 44 + 2 * int(samples)   # 16-bit mono


def test_two_ranks_train_evaluate_and_finish(audio_dir: Path, tmp_path: Path) -> None:
    """Twenty steps of the CI config over gloo: two evaluations, a valid FINISHED with the
    not-converged verdict (the tiny model has no CI recipe that reaches its target reliably: see
    the case README), the work of every rank and the FLOPs the case counted."""
    context = CASE.context(audio_dir, "config_xeonx1x2.py", tmp_path, 2)
    context = replace(context, case_args=(*context.case_args, "--set", "max_steps=20",
                                          "--set", "eval_every_steps=10"))
    result = subprocess.run(pytorch_launcher.command(context), env=CASE.env(),
                            capture_output=True, text=True, timeout=900)
    logs = rank_logs(tmp_path)
    assert result.returncode == 0, result.stderr[-4000:] + "\n" + logs.get(0, "")[-4000:]
    events = perflog_events(logs[0])
    names = [e.name for e in events]
    assert names[:4] == ["INIT_START", "SUBMIT_INFO", "INIT_END", "TRAIN_START"]
    assert names[-2:] == ["TRAIN_END", "FINISHED"] and names.count("EVALUATE") == 2
    finished = events[-1].value
    assert finished_problems(finished) == [] and finished["converged"] is False
    metric = finished["metric"]
    assert (metric["name"], metric["target"]) == ("contrastive_accuracy", 0.55)
    assert 0.0 <= metric["value"] < metric["target"]
    assert finished["world_size"] == 2 and finished["work_unit"] == "samples"
    assert finished["work_done"] == 20 * 16
    init = init_end(events)
    assert (init["crop_samples"], init["frames"], init["eval_size"]) == (16000, 49, 128)
    assert finished["flops_per_unit"] == 3 * init["forward_flops_per_sample"] > 0
    assert "[PerfLog]" not in logs[1]


def test_a_non_finite_loss_ends_the_case_naming_the_step(audio_dir: Path) -> None:
    result = CASE.run_config(audio_dir, "--set", "learning_rate=1e30", "--set", "warmup_steps=1",
                             "--set", "grad_clip_norm=0.0")
    assert result.returncode == 2, result.stderr[-3000:]
    assert re.search(r"chipperf case error: training diverged: loss is (nan|inf) at step \d+",
                     result.stderr), result.stderr[-3000:]
    assert "Traceback" not in result.stderr
    names = [e.name for e in perflog_events(result.stdout)]
    assert "TRAIN_START" in names and "FINISHED" not in names


def test_a_folder_without_the_manifests_is_refused(tmp_path: Path) -> None:
    (tmp_path / "train-clean-100").mkdir()
    result = CASE.run_config(tmp_path)
    assert_case_error(result, f"{tmp_path}: manifest synthetic-train.tsv of subset "
                      "'synthetic-train' is missing (.tsv files there: none)",
                      "<data_dir>/<subset>.tsv")


def test_flac_without_a_decoder_is_one_message(audio_dir: Path, tmp_path: Path) -> None:
    """LibriSpeech ships .flac; the cpu image has no decoder for it (soundfile)."""
    try:
        import soundfile  # noqa: F401
        pytest.skip("this host can decode .flac")
    except ImportError:
        pass
    for subset in ("synthetic-train", "synthetic-dev"):
        rows = (audio_dir / f"{subset}.tsv").read_text().splitlines()[1:]
        flac = [row.replace(".wav\t", ".flac\t") for row in rows]
        (tmp_path / f"{subset}.tsv").write_text("\n".join([str(tmp_path), *flac]) + "\n")
        for row in flac:
            path = tmp_path / row.split("\t")[0]
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(b"fLaC")
    assert_case_error(CASE.run_config(tmp_path), "synthetic-dev/00/00-00000.flac: reading .flac needs the "
                      "soundfile package", "EXT=wav")
