"""waveglow / PyTorch: WaveGlow (the published architecture, ``glow_model``) trained on
LJSpeech audio segments and their mel spectrograms to a validation negative log-likelihood
target, DDP under torchrun: the vocoder of FlagPerf's speech data (DLE's WaveGlow recipe).
The loop, optimiser, DDP and FINISHED are ``lossloop.case``'s."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from glow_data import LJSpeechAudio, open_ljspeech_audio
from glow_model import PRESETS, forward_flops, waveglow

from chipperf_runtime.training.driver import Config, run_case
from chipperf_runtime.training.lossloop.case import LossCase, main
from chipperf_runtime.training.lossloop.data import CaseData

CASE_DIR = Path(__file__).resolve().parent


def open_data(data_dir: Path, cfg: Config, preset: Mapping[str, Any]) -> LJSpeechAudio:
    return open_ljspeech_audio(data_dir, cfg.training_files, cfg.validation_files, preset)


def flops(preset: Mapping[str, Any], data: CaseData) -> float:
    """Per segment of ``segment_length`` audio samples."""
    return forward_flops(preset, preset["segment_length"])


CASE = LossCase(presets=PRESETS, build=lambda preset, data: waveglow(preset),
                open_data=open_data, forward_flops=flops)

if __name__ == "__main__":
    run_case(lambda: main("waveglow", CASE_DIR, CASE), quick_exit=True)
