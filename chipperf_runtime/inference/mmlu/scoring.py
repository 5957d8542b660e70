"""The timed pass over the questions, FlagPerf's scoring, and the deviation from fp32 eager.

One question is one forward pass of its whole prompt (batch 1); the answer is the argmax of
the last position's logits, decoded by the tokenizer and read as its letters among A-D
(FlagPerf's ``evaluator.py``). Accuracy is correct answers over all questions of all subjects
(FlagPerf's figure), with each subject's own beside it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any, Sequence

import torch

from chipperf_runtime.device.torch import TorchDevice
from chipperf_runtime.inference.engines.base import Runner
from chipperf_runtime.inference.mmlu.questions import Question, predicted_letter
from chipperf_runtime.inference.stats import Deviation
from chipperf_runtime.timing import now, timed_call


@dataclass(frozen=True)
class Pass:
    letters: list[str]          # the answers of the last pass, one per question
    latencies_ms: list[float]   # every question of every pass: copy to the device -> letter
    tokens: int                 # prompt tokens processed (all passes)
    questions: int              # questions answered (all passes)
    wall_s: float               # the whole loop: copy, forward, argmax, decode
    compute_s: float            # the forward passes alone (each between device syncs)


def letter_of(logits: torch.Tensor, tokenizer: Any) -> str:
    """The answer of one question's last-position logits [1, vocab]."""
    return predicted_letter(tokenizer.decode([int(logits[0].argmax())]))


def timed_pass(run: Runner, encoded: Sequence[torch.Tensor], passes: int, tokenizer: Any,
               device: TorchDevice) -> Pass:
    letters: list[str] = []
    latencies, compute = [], 0.0
    start = now()
    for _ in range(passes):
        letters = []
        for ids in encoded:
            asked = now()
            on_device = ids.to(device.device)
            logits, forward_s = timed_call(partial(run, on_device), device.synchronize)
            letters.append(letter_of(logits, tokenizer))
            compute += forward_s
            latencies.append((now() - asked) * 1000.0)
    wall = now() - start
    tokens = sum(int(ids.shape[-1]) for ids in encoded) * passes
    return Pass(letters, latencies, tokens, len(encoded) * passes, wall, compute)


def scores(questions: Sequence[Question], letters: Sequence[str]) -> dict:
    """Accuracy over every question, and per subject (questions, correct, accuracy)."""
    subjects: dict[str, dict] = {}
    for question, letter in zip(questions, letters):
        entry = subjects.setdefault(question.subject, {"questions": 0, "correct": 0})
        entry["questions"] += 1
        entry["correct"] += int(letter == question.answer)
    for entry in subjects.values():
        entry["accuracy"] = entry["correct"] / entry["questions"]
    correct = sum(e["correct"] for e in subjects.values())
    return {"accuracy": correct / max(len(questions), 1), "correct": correct,
            "questions": len(questions), "subjects": subjects,
            "answered": sum(1 for letter in letters if letter)}


def against_reference(run: Runner, reference: Runner, encoded: Sequence[torch.Tensor],
                      tokenizer: Any, device: TorchDevice) -> tuple[Deviation, float]:
    """(|engine - fp32 eager| of the answer logits, share of the same answer letter)."""
    deviation, same = Deviation(), 0
    for ids in encoded:
        on_device = ids.to(device.device)
        out, ref = run(on_device).float(), reference(on_device).float()
        finite = torch.isfinite(out)
        diff = (out - ref).abs()[finite]
        deviation = deviation.add(float(diff.max()) if diff.numel() else 0.0, float(diff.sum()),
                                  out.numel(), float(ref.abs().max()), int((~finite).sum()))
        same += int(letter_of(out, tokenizer) == letter_of(ref, tokenizer))
    return deviation, same / max(len(encoded), 1)
