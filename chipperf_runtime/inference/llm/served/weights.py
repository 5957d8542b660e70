"""The model folder a serving engine loads: local weights only, nothing from the hub.

``write_model_dir`` writes the case's seeded random Llama (``model.build``) with
``save_pretrained`` and, beside it, the case's ``tokenizer.json`` as a transformers tokenizer
(``PreTrainedTokenizerFast``), so the server and vLLM's load generator (its random data set
needs a tokenizer) both read it from the folder. ``check_model_dir`` is what a user's own
checkpoint folder must pass before a server is started on it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

from chipperf_runtime.inference.errors import CaseError
from chipperf_runtime.inference.llm import model

WEIGHT_PATTERNS = ("*.safetensors", "pytorch_model*.bin")
SPECIAL_TOKENS = {"pad_token": "<|pad|>", "bos_token": "<|begin_of_text|>",
                  "eos_token": "<|end_of_text|>"}


def write_model_dir(llama: Any, seed: int, tokenizer_json: Path, out: Path) -> Path:
    """The seeded random model (fp32, on the CPU) and its tokenizer, saved into ``out``."""
    import torch
    from transformers import PreTrainedTokenizerFast

    out.mkdir(parents=True, exist_ok=True)
    built = model.build(llama, torch.device("cpu"), seed)
    built.save_pretrained(str(out))
    tokenizer = PreTrainedTokenizerFast(tokenizer_file=str(tokenizer_json), **SPECIAL_TOKENS)
    tokenizer.model_max_length = llama.max_position_embeddings
    tokenizer.save_pretrained(str(out))
    return out


def check_model_dir(folder: Path, data_dir: Optional[Path] = None) -> None:
    """A folder a server can load: config.json and at least one weights file. ``data_dir``
    (the case's, for a user's model_dir) is named where the folder is not found: in the
    case's container the host's files are only those mounted there."""
    if not folder.is_dir():
        seen = "" if data_dir is None else (
            f" where the case runs (its container sees the host's files only under the data "
            f"dir {data_dir}, read-only, the run's work dir and the volumes of "
            "ACCE_CONTAINER_OPT, -v HOST:CONTAINER): put the checkpoint under the data dir or "
            "mount it, and")
        raise CaseError(f"model dir {folder} does not exist{seen or ':'} give a folder written "
                        "by save_pretrained (config.json and weights), or leave model_dir null "
                        "for the case's seeded random weights")
    if not (folder / "config.json").is_file():
        raise CaseError(f"model dir {folder} has no config.json: give a folder written by "
                        "save_pretrained")
    if not any(next(folder.glob(p), None) for p in WEIGHT_PATTERNS):
        raise CaseError(f"model dir {folder} has no weights ({' or '.join(WEIGHT_PATTERNS)}): "
                        "save the model with save_pretrained, or leave model_dir null for the "
                        "case's seeded random weights")
