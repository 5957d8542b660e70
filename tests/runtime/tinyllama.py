"""The served mode's tests' model folder: the llama3_8b cpu preset's seeded random Llama
(seed 42) written with ``save_pretrained``, beside the tokenizer that
``prepare_prompts.py`` trains on the machine's licence texts (no hub). ``tests/runtime/
conftest.py`` gives the preset's shape once per session (``tiny_llama_dir``); a test that
needs another shape calls ``write_tiny_llama`` with its overrides."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Sequence

REPO = Path(__file__).resolve().parents[2]
PREPARE = REPO / "inference/benchmarks/llama3_8b/pytorch/prepare_prompts.py"
SEED = 42


def write_tiny_llama(out: Path, sets: Sequence[str] = ()) -> Path:
    """``out/model`` (config, weights, tokenizer) from the cpu configuration with ``sets``
    (``key=value`` overrides); the prompts and tokenizer are in ``out/data``."""
    from chipperf_runtime.inference import config as configuration
    from chipperf_runtime.inference.llm import model
    from chipperf_runtime.inference.llm.served.weights import write_model_dir

    subprocess.run([sys.executable, str(PREPARE), "/usr/share/common-licenses",
                    str(out / "data")], check=True, stdout=subprocess.DEVNULL)
    cfg = configuration.load(REPO / "inference/configs/llama3_8b", "cpu_configuration.yaml",
                             list(sets))
    return write_model_dir(model.llama_config(cfg), SEED, out / "data" / "tokenizer.json",
                           out / "model")
