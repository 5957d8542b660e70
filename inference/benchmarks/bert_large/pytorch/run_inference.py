"""chipperf inference case bert_large (PyTorch model; engines: see common.engines).

Data: plain text (or SQuAD-style JSON) with a WordPiece vocab.txt, tokenised on the host
and masked (``common.text``). Model: transformers' ``BertForMaskedLM`` built from a
``BertConfig`` of the configured shape (``common.models.hf_text``; BERT-large by default:
335,174,458 parameters at vocab 30522, no pooler). Output: logits [batch, seq_len, vocab];
the masked positions are scored by their top-1 token.
"""

from __future__ import annotations

from chipperf_runtime.models.tvision import prepare_torchvision

prepare_torchvision()  # first, explicitly: torchvision (transformers imports it) beside a CPU torch

import sys
from typing import Any, Mapping

import torch

from chipperf_runtime.inference import text
from chipperf_runtime.inference.case import Case
from chipperf_runtime.inference.errors import CaseError
from chipperf_runtime.inference.models.hf_text import masked_lm
from chipperf_runtime.inference.runner import main

# case key -> transformers' BertConfig key
SHAPE_KEYS = {"hidden_size": "hidden_size", "num_layers": "num_hidden_layers",
              "num_heads": "num_attention_heads", "intermediate_size": "intermediate_size",
              "max_position": "max_position_embeddings"}
# Keys of Hugging Face BERT checkpoints this model has no use for: BertForPreTraining's pooler
# and next-sentence head, and the index buffers older transformers saved.
IGNORABLE = ("bert.embeddings.position_ids", "bert.embeddings.token_type_ids", "bert.pooler.",
             "cls.seq_relationship.")


def load_data(config: Mapping[str, Any], data_dir: str, max_items: int | None) -> text.TextItems:
    problems = [f"{k}: must be a whole number >= 1, got {config[k]!r}"
                for k in ("seq_len", "words_per_item", *SHAPE_KEYS)
                if not isinstance(config[k], int) or config[k] < 1]
    if isinstance(config["seq_len"], int) and config["seq_len"] > config["max_position"]:
        problems.append(f"seq_len {config['seq_len']} exceeds max_position "
                        f"{config['max_position']}: lower seq_len")
    if not 0.0 < config["mask_fraction"] <= 1.0:
        problems.append(f"mask_fraction: must be in (0, 1], got {config['mask_fraction']!r}")
    if config["hidden_size"] % config["num_heads"]:
        problems.append("hidden_size must be a multiple of num_heads")
    if problems:
        raise CaseError("configuration problems:\n  " + "\n  ".join(problems))
    return text.load(data_dir, config["vocab_file"], config["words_per_item"], config["seq_len"],
                     config["mask_fraction"], config["seed"], max_items)


def build_model(config: Mapping[str, Any], data: text.TextItems) -> torch.nn.Module:
    vocab = len(data.tokenizer.vocab)
    size = config["vocab_size"] or vocab
    if size < vocab:
        raise CaseError(f"vocab_size {size} is smaller than the vocabulary ({vocab} tokens): "
                        "set vocab_size: null to take it from vocab.txt")
    return masked_lm({"vocab_size": size, **{hf: config[k] for k, hf in SHAPE_KEYS.items()}})


def scored(logits: torch.Tensor, targets: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    masked = targets != text.IGNORE
    return logits[masked], targets[masked]


CASE = Case(model="bert_large", input_names=("input_ids", "attention_mask"),
            load_data=load_data, build_model=build_model, scored=scored,
            ignorable_keys=IGNORABLE)

if __name__ == "__main__":
    sys.exit(main(CASE))
