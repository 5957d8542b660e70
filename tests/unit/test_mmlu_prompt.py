"""FlagPerf's MMLU prompt and answer reading (chipperf_runtime.inference.mmlu.questions):
the exact text of a few-shot prompt, the shots dropped to fit, MMLU's CSV rows."""

from __future__ import annotations

from pathlib import Path

import pytest

from chipperf_runtime.inference.errors import CaseError
from chipperf_runtime.inference.mmlu import questions as mmlu

SHOT = ("What is 1 + 1?", "1", "2", "3", "4", "B")
TEST = ("What is 2 + 2?", "4", "5", "6", "7", "A")


def test_the_prompt_is_flagperfs_text() -> None:
    prompt = mmlu.shots_prompt([SHOT], "high_school_physics") + mmlu.format_example(TEST, False)
    assert prompt == (
        "The following are multiple choice questions (with answers) about  high school physics."
        "\n\nWhat is 1 + 1?\nA. 1\nB. 2\nC. 3\nD. 4\nAnswer: B\n\n"
        "What is 2 + 2?\nA. 4\nB. 5\nC. 6\nD. 7\nAnswer:")


def test_shots_are_dropped_first_first_until_the_prompt_fits() -> None:
    prompt = mmlu.shots_prompt([SHOT, TEST], "anatomy") + mmlu.format_example(TEST, False)
    words = len(prompt.split())
    fitted = mmlu.fit(prompt, lambda text: len(text.split()), words)   # one shot too many
    assert fitted.count("Answer:") == 2 and "1 + 1" not in fitted
    assert fitted.startswith("The following are") and fitted.endswith("7\nAnswer:")
    with pytest.raises(CaseError, match="a question alone is longer than max_prompt_tokens 3"):
        mmlu.fit(prompt, lambda text: len(text.split()), 3)


def test_the_answer_is_the_letters_of_the_decoded_token() -> None:
    assert [mmlu.predicted_letter(t) for t in (" B", "C", "the", " AB")] == ["B", "C", "", "AB"]


def test_questions_load_in_subject_order_with_their_shots(tmp_path: Path) -> None:
    for split, rows in (("dev", [SHOT] * 6), ("test", [TEST, SHOT])):
        (tmp_path / split).mkdir()
        for subject in ("anatomy", "virology"):
            (tmp_path / split / f"{subject}_{split}.csv").write_text(
                "".join(",".join(f'"{c}"' for c in row) + "\n" for row in rows))
    found = mmlu.load(tmp_path, ["virology", "anatomy"], 5, lambda t: len(t.split()), 2048)
    assert [(q.subject, q.answer) for q in found] == [("virology", "A"), ("virology", "B"),
                                                     ("anatomy", "A"), ("anatomy", "B")]
    assert found[0].prompt.count("Answer: B") == 5


def test_a_missing_or_malformed_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(CaseError, match="anatomy_dev.csv not found: the data dir needs MMLU's"):
        mmlu.load(tmp_path, ["anatomy"], 5, len, 2048)
    (tmp_path / "dev").mkdir()
    (tmp_path / "dev" / "anatomy_dev.csv").write_text("q,a,b,c,d,E\n")
    with pytest.raises(CaseError, match="row 1 is not question, four choices and an answer"):
        mmlu.load(tmp_path, ["anatomy"], 5, len, 2048)
