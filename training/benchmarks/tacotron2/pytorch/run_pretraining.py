"""tacotron2 / PyTorch: Tacotron 2 (DLE's shapes, ``taco_model``) trained teacher-forced on
LJSpeech mel spectrograms to FlagPerf's validation-loss target, DDP under torchrun:
FlagPerf's tacotron2. The loop, optimiser, DDP and FINISHED are ``lossloop.case``'s."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from taco_data import LJSpeech, open_ljspeech
from taco_model import PRESETS, forward_flops, tacotron2

from chipperf_runtime.training.driver import Config, run_case
from chipperf_runtime.training.lossloop.case import LossCase, main
from chipperf_runtime.training.lossloop.data import CaseData

CASE_DIR = Path(__file__).resolve().parent


def open_data(data_dir: Path, cfg: Config, preset: Mapping[str, Any]) -> LJSpeech:
    return open_ljspeech(data_dir, cfg.training_files, cfg.validation_files,
                         preset["n_mel_channels"])


def flops(preset: Mapping[str, Any], data: CaseData) -> float:
    """Per utterance of the train set's mean text and frame counts."""
    assert isinstance(data, LJSpeech)
    return forward_flops(preset, data.mean_text, data.mean_frames)


CASE = LossCase(presets=PRESETS, build=lambda preset, data: tacotron2(preset),
                open_data=open_data, forward_flops=flops)

if __name__ == "__main__":
    run_case(lambda: main("tacotron2", CASE_DIR, CASE), quick_exit=True)
