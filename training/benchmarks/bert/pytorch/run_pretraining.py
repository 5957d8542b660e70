"""bert / PyTorch training case: masked-LM pretraining to an MLM-accuracy target, DDP.

    torchrun --nproc_per_node=N run_pretraining.py --data_dir D \
        --extern_config_dir DIR --extern_config_file config_<chip>x<nnodes>x<nproc>.py \
        --output_dir OUT [--set name=value ...]

The network is transformers' ``BertForMaskedLM`` built from the shared BERT presets
(``textlm.bert``, also bert/paddle's): the published post-LayerNorm encoder with the MLM head
tied to the word embeddings, no pooler, no next-sentence head. The loop, data and FINISHED are
the shared text case (hftext). The device and its collective backend are the vendor's
(chipperf_runtime.device). See README.md for the dataset layout, the FLOPs formula and the measured CI
runs.
"""

from __future__ import annotations

from chipperf_runtime.models.tvision import prepare_torchvision

prepare_torchvision()  # first, explicitly: torchvision (transformers imports it) beside a CPU torch

from pathlib import Path
from typing import Any

from chipperf_runtime.training.driver import run_case
from chipperf_runtime.training.hftext.case import main
from chipperf_runtime.training.hftext.models import TextModel
from chipperf_runtime.training.hftext.tasks import MaskedLM
from chipperf_runtime.training.textlm import bert

CASE_DIR = Path(__file__).resolve().parent


def hf_preset(arch: bert.BertConfig) -> dict[str, Any]:
    """transformers' ``BertConfig`` keywords of one of the shared presets."""
    return {"vocab_size": arch.vocab_size, "hidden_size": arch.hidden_size,
            "num_hidden_layers": arch.num_layers, "num_attention_heads": arch.num_heads,
            "intermediate_size": arch.intermediate_size,
            "max_position_embeddings": arch.max_position_embeddings,
            "type_vocab_size": arch.type_vocab_size, "hidden_act": "gelu",
            "hidden_dropout_prob": arch.hidden_dropout,
            "attention_probs_dropout_prob": arch.attention_dropout,
            "layer_norm_eps": arch.layer_norm_eps, "initializer_range": arch.initializer_range}


PRESETS = {name: hf_preset(arch) for name, arch in bert.PRESETS.items()}
FULL_SIZE = {"model_size": "large", "seq_len": 512}
TEXT_MODEL = TextModel("bert", PRESETS, MaskedLM(token_types=True),
                       "training/benchmarks/bert/pytorch/prepare_data.py",
                       target="target_mlm_accuracy")

if __name__ == "__main__":
    run_case(lambda: main("bert", CASE_DIR, TEXT_MODEL), quick_exit=True)
