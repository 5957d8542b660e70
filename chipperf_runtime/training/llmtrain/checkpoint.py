"""Model checkpoints of the LLM cases: a pretraining case writes its trained weights
(``save_checkpoint``), a continue-training case starts from them (``checkpoint``, a folder
under the data dir, as FlagPerf's continue-training cases read ``<data_dir>/<ckpt>``).

The format is PyTorch Distributed Checkpoint (``torch.distributed.checkpoint``): every rank
writes the shards it holds under the whole model's parameter names, so that DCP can reshard a
checkpoint written in one layout (one process, FSDP2, TP x PP) into another as it loads (CI
covers one process writing and one reading: tests/cases/test_llm_continue.py). Only
the weights are kept: the continuing case builds a fresh AdamW and schedule (FlagPerf's
mixtral_8x7B_continuetrain and aquila2_7b_finetune load no optimizer state either).

A model whose experts are split by ``llmtrain.experts`` (tensor or expert parallel over an
MoE) holds plain tensors that are slices of another shape, which DCP cannot place: such a
layout is refused before training (``layout_problems``).
"""

from __future__ import annotations

import contextlib
import warnings
from pathlib import Path
from typing import Any, Iterable, Iterator

import torch
import torch.distributed as tdist
import torch.distributed.checkpoint as dcp
from torch import nn

from chipperf_runtime.training.driver import Config, DataError
from chipperf_runtime.training.llmtrain.experts import ParallelExperts

METADATA = ".metadata"        # the file DCP writes last, on the coordinating rank


def continue_from(cfg: Config, data_dir: Path) -> Path | None:
    """The checkpoint folder a continue-training case reads (None: the case has no
    ``checkpoint`` knob); raises DataError when it is not a complete checkpoint."""
    name = cfg.get("checkpoint")
    if name is None:
        return None
    folder = Path(data_dir) / str(name)
    if not (folder / METADATA).is_file():
        raise DataError(f"checkpoint {folder}: no PyTorch distributed checkpoint there (no "
                        f"{METADATA}): this case continues training from one; write it with "
                        f"the model's pretraining case (--set save_checkpoint={folder}), or set "
                        "checkpoint to the folder under the data dir that holds it")
    return folder


def save_to(cfg: Config, output_dir: Path | None) -> Path | None:
    """Where this run writes its weights (None: ``save_checkpoint`` unset or empty); a
    relative path is under the node's --output_dir."""
    name = cfg.get("save_checkpoint") or ""
    if not name:
        return None
    path = Path(str(name))
    return path if path.is_absolute() or output_dir is None else Path(output_dir) / path


def layout_problems(model: nn.Module, option: str) -> list[str]:
    """Why this built model's weights cannot be checkpointed (``option``: the knob asking)."""
    if any(isinstance(m, ParallelExperts) for m in model.modules()):
        return [f"{option}: the experts are split by tensor or expert parallel, which the "
                "checkpoint cannot hold: set tensor_parallel = 1 and expert_parallel = 1 "
                "(FSDP2 shards the experts over every rank instead)"]
    return []


def weights(parts: Iterable[nn.Module]) -> dict[str, Any]:
    """The parameters of this rank's model parts under the whole model's names (a pipeline
    stage names its layers as the whole model does)."""
    state: dict[str, Any] = {}
    for part in parts:
        state.update(dict(part.named_parameters()))
    return state


def save(parts: Iterable[nn.Module], folder: Path) -> None:
    """Every rank writes its shards into ``folder`` (created)."""
    folder.mkdir(parents=True, exist_ok=True)
    with _one_process_is_meant():
        dcp.save(weights(parts), checkpoint_id=str(folder), no_dist=not tdist.is_initialized())


def load(parts: Iterable[nn.Module], folder: Path) -> None:
    """Fill this rank's parameters (its shards of them) from ``folder``; raises DataError
    naming the parameters the checkpoint lacks or holds in another shape."""
    state = weights(parts)
    try:
        with torch.no_grad(), _one_process_is_meant():
            dcp.load(state, checkpoint_id=str(folder), no_dist=not tdist.is_initialized())
    except (RuntimeError, ValueError, KeyError) as e:
        raise DataError(f"checkpoint {folder}: does not fit this model ({_first_line(e)}): "
                        "continue from a checkpoint the same model size wrote") from e


@contextlib.contextmanager
def _one_process_is_meant() -> Iterator[None]:
    """Without a process group DCP warns that it assumes one process: that is meant here."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="torch.distributed is disabled",
                                category=UserWarning)
        yield


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0][:300] if text else type(error).__name__
