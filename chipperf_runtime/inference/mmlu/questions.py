"""MMLU's questions and FlagPerf's prompt (FlagOpen/FlagPerf@1b5a030,
``inference/benchmarks/llama3_8b_mmlu/pytorch/dataloader.py``; the format of Hendrycks et
al.'s evaluation code):

    The following are multiple choice questions (with answers) about <subject words>.\\n\\n
    <dev question>\\nA. ..\\nB. ..\\nC. ..\\nD. ..\\nAnswer: <letter>\\n\\n     x few_shots
    <test question>\\nA. ..\\nB. ..\\nC. ..\\nD. ..\\nAnswer:

Files, as MMLU's ``data.tar`` unpacks: ``<mmlu_dir>/dev/<subject>_dev.csv`` (the shots: the
first ``few_shots`` rows) and ``<mmlu_dir>/test/<subject>_test.csv``; rows are question,
four choices, answer letter, no header. A prompt longer than ``max_prompt_tokens`` (FlagPerf:
2048, counting a BOS token) loses its first shot, then the next, until it fits.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from chipperf_runtime.inference.errors import CaseError

CHOICES = ("A", "B", "C", "D")
# MMLU's 57 subjects, in FlagPerf's order
SUBJECTS = (
    "abstract_algebra", "anatomy", "astronomy", "business_ethics", "clinical_knowledge",
    "college_biology", "college_chemistry", "college_computer_science", "college_mathematics",
    "college_medicine", "college_physics", "computer_security", "conceptual_physics",
    "econometrics", "electrical_engineering", "elementary_mathematics", "formal_logic",
    "global_facts", "high_school_biology", "high_school_chemistry",
    "high_school_computer_science", "high_school_european_history", "high_school_geography",
    "high_school_government_and_politics", "high_school_macroeconomics",
    "high_school_mathematics", "high_school_microeconomics", "high_school_physics",
    "high_school_psychology", "high_school_statistics", "high_school_us_history",
    "high_school_world_history", "human_aging", "human_sexuality", "international_law",
    "jurisprudence", "logical_fallacies", "machine_learning", "management", "marketing",
    "medical_genetics", "miscellaneous", "moral_disputes", "moral_scenarios", "nutrition",
    "philosophy", "prehistory", "professional_accounting", "professional_law",
    "professional_medicine", "professional_psychology", "public_relations",
    "security_studies", "sociology", "us_foreign_policy", "virology", "world_religions")

Row = tuple[str, ...]   # question, four choices, answer letter


@dataclass(frozen=True)
class Question:
    subject: str
    prompt: str
    answer: str         # the gold letter


def format_subject(subject: str) -> str:
    return "".join(" " + word for word in subject.split("_"))


def format_example(row: Row, include_answer: bool = True) -> str:
    text = row[0] + "".join(f"\n{letter}. {choice}" for letter, choice in zip(CHOICES, row[1:5]))
    text += "\nAnswer:"
    return text + (f" {row[5]}\n\n" if include_answer else "")


def shots_prompt(shots: Sequence[Row], subject: str) -> str:
    head = ("The following are multiple choice questions (with answers) about "
            f"{format_subject(subject)}.\n\n")
    return head + "".join(format_example(row) for row in shots)


def fit(prompt: str, count_tokens: Callable[[str], int], max_tokens: int) -> str:
    """FlagPerf's cut: drop the first shot (the second ``\\n\\n`` block) while the prompt and
    a BOS token exceed ``max_tokens``."""
    while count_tokens(prompt) + 1 > max_tokens:
        blocks = prompt.split("\n\n")
        if len(blocks) <= 2:
            raise CaseError(f"a question alone is longer than max_prompt_tokens {max_tokens}: "
                            "raise max_prompt_tokens")
        blocks.pop(1)
        prompt = "\n\n".join(blocks)
    return prompt


def read_rows(path: Path) -> list[Row]:
    if not path.is_file():
        raise CaseError(f"MMLU file {path} not found: the data dir needs MMLU's dev/ and test/ "
                        "folders (<subject>_dev.csv, <subject>_test.csv) under mmlu_dir")
    with path.open(newline="", encoding="utf-8") as file:
        rows = [tuple(row) for row in csv.reader(file)]
    bad = [i + 1 for i, row in enumerate(rows) if len(row) != 6 or row[5] not in CHOICES]
    if bad:
        raise CaseError(f"{path}: row {bad[0]} is not question, four choices and an answer "
                        "letter A-D: give MMLU's CSV files unchanged")
    return rows


def load(mmlu_dir: Path, subjects: Sequence[str], few_shots: int,
         count_tokens: Callable[[str], int], max_tokens: int) -> list[Question]:
    """Every test question of ``subjects``, in order, with its few-shot prompt."""
    questions = []
    for subject in subjects:
        shots = read_rows(mmlu_dir / "dev" / f"{subject}_dev.csv")[:few_shots]
        head = shots_prompt(shots, subject)
        for row in read_rows(mmlu_dir / "test" / f"{subject}_test.csv"):
            prompt = fit(head + format_example(row, include_answer=False), count_tokens,
                         max_tokens)
            questions.append(Question(subject, prompt, row[5]))
    return questions


def predicted_letter(decoded: str) -> str:
    """FlagPerf's reading of the answer token: its letters among A-D, joined."""
    return "".join(c for c in decoded if c in CHOICES)
