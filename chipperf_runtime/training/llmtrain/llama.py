"""The entry of an LLM case that is transformers' ``LlamaForCausalLM`` and nothing else
(llama2_70B, llama3_70B): its model shapes are data, the case folder's ``model.json``, and its
name is its folder's (``training/benchmarks/<name>/pytorch/``). The case's
``run_pretraining.py`` (which prepares torchvision first, as every entry does)::

    from chipperf_runtime.models.tvision import prepare_torchvision
    prepare_torchvision()
    ...
    CASE_DIR, SPEC = llama_case(Path(__file__).resolve().parent)
    if __name__ == "__main__":
        run_llama(CASE_DIR, SPEC)

``model.json``: ``{"about": {size: where the shape comes from}, "presets": {size: LlamaConfig
keyword arguments}}``; JSON, read with the standard library (not every image has a YAML
library).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from transformers import LlamaConfig, LlamaForCausalLM

from chipperf_runtime.training.driver import ConfigError, run_case
from chipperf_runtime.training.llmtrain.case import LLMSpec, main

MODEL_FILE = "model.json"


def read_presets(case_dir: Path) -> dict[str, dict[str, Any]]:
    """model_size -> LlamaConfig keyword arguments, from the case's model.json."""
    path = Path(case_dir) / MODEL_FILE
    try:
        presets = json.loads(path.read_text(encoding="utf-8"))["presets"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ConfigError(f"{path}: cannot read the model presets ({e}): give it "
                          '{"presets": {size: {LlamaConfig keyword: value}}}') from e
    if not isinstance(presets, dict) or not all(isinstance(v, dict) for v in presets.values()):
        raise ConfigError(f"{path}: presets must map each model size to LlamaConfig keywords")
    return presets


def llama_case(case_dir: Path) -> tuple[Path, LLMSpec]:
    """The case folder and its LLMSpec: LlamaForCausalLM over the presets of model.json."""
    suite_path = f"training/benchmarks/{case_dir.parent.name}/{case_dir.name}/prepare_data.py"
    return case_dir, LLMSpec(LlamaForCausalLM, LlamaConfig, read_presets(case_dir), suite_path)


def run_llama(case_dir: Path, spec: LLMSpec) -> None:
    """The case's main under the driver (its name: the case folder's parent's)."""
    run_case(lambda: main(case_dir.parent.name, case_dir, spec), quick_exit=True)
