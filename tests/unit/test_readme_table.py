"""`chipperf report RUN --readme-table [--case X] [--into README.md]`: the table generated from a
result directory, put between the README's results markers; and every training case README
holds exactly one such generated block."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from synthetic_results import SynthCase, SynthRound, write_run

from chipperf.cli import main as cli_main
from chipperf.results import summarize
from chipperf.results.render.readme import (
    RESULTS_END,
    RESULTS_START,
    readme_table,
    replace_results_block,
    results_block,
    select_cases,
)

REPO = Path(__file__).resolve().parents[2]
ROUNDS = (SynthRound(), SynthRound(1010.0))
BERT_1X1 = SynthCase(model="bert", framework="paddle_3.3", chip="xeon", vendor="cpu", nnodes=1,
                     nproc=1, rounds=ROUNDS)
BERT_1X2 = SynthCase(model="bert", framework="paddle_3.3", chip="xeon", vendor="cpu", nnodes=1,
                     nproc=2, rounds=ROUNDS)
RESNET = SynthCase(model="resnet50", framework="pytorch_2.13", chip="xeon", vendor="cpu",
                   nnodes=1, nproc=1, rounds=ROUNDS)
README = f"""# a case

## Results

How the run was made: `chipperf run ...`.

{RESULTS_START}
| a hand-typed | table |
| --- | --- |
| 1 | 2 |
{RESULTS_END}

## After

kept as it is
"""


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_run(tmp_path_factory.mktemp("readme"), [BERT_1X1, BERT_1X2, RESNET])


def report(*args: str) -> int:
    return cli_main(["report", *args])


def table_rows(text: str) -> list[str]:
    """The data rows of the (one) Markdown table in ``text``."""
    rows = [line for line in text.splitlines() if line.startswith("| ")]
    return rows[2:]


# ---------------------------------------------------------------- marker replacement


def test_into_replaces_only_the_block_between_the_markers(run: Path, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(README)
    assert report(str(run), "--readme-table", "--into", str(readme)) == 0
    text = readme.read_text()
    before, rest = text.split(RESULTS_START + "\n")
    block, after = rest.split(RESULTS_END + "\n")
    assert before == README.split(RESULTS_START)[0]
    assert after == "\n## After\n\nkept as it is\n"
    assert "hand-typed" not in text
    assert block == readme_table(summarize(run))
    assert "Measured by chipperf 0.1.0, run `run20231114221320`" in block
    assert [r.split(" | ")[0] for r in table_rows(block)] == [
        "| config_xeonx1x1", "| config_xeonx1x2", "| config_xeonx1x1"]
    assert f"run20231114221320 (3 case row(s)) into {readme}" in capsys.readouterr().out


def test_into_twice_changes_nothing(run: Path, tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(README)
    assert report(str(run), "--readme-table", "--into", str(readme), "--case", "bert") == 0
    once = readme.read_text()
    assert report(str(run), "--readme-table", "--into", str(readme), "--case", "bert") == 0
    assert readme.read_text() == once
    table = readme_table(summarize(run))
    assert replace_results_block(once, table)[0] == replace_results_block(
        replace_results_block(once, table)[0] or "", table)[0]


def test_block_keeps_a_file_without_a_final_newline_intact() -> None:
    text = f"top\n{RESULTS_START}\nold\n{RESULTS_END}"
    assert replace_results_block(text, "new") == (f"top\n{RESULTS_START}\nnew\n{RESULTS_END}", [])
    assert results_block(f"{RESULTS_START}\n{RESULTS_END}\n") == ""


# ---------------------------------------------------------------- missing or unbalanced markers


@pytest.mark.parametrize("text, says", [
    ("# no markers\n", "0 `<!-- chipperf:results -->` lines"),
    (f"{RESULTS_START}\nold\n", "0 `<!-- /chipperf:results -->` lines"),
    (f"old\n{RESULTS_END}\n", "0 `<!-- chipperf:results -->` lines"),
    (f"{RESULTS_START}\n{RESULTS_START}\n{RESULTS_END}\n", "2 `<!-- chipperf:results -->` lines"),
    (f"{RESULTS_END}\nold\n{RESULTS_START}\n", "comes before"),
])
def test_missing_or_unbalanced_markers_name_the_file(run: Path, tmp_path: Path, text: str,
                                                     says: str,
                                                     capsys: pytest.CaptureFixture) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(text)
    assert report(str(run), "--readme-table", "--into", str(readme)) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"chipperf report: {readme}: ")
    assert says in out and "Put one line <!-- chipperf:results -->" in out
    assert readme.read_text() == text                       # untouched
    assert replace_results_block(text, "x")[0] is None and results_block(text) is None


def test_markers_must_stand_alone_on_their_line() -> None:
    text = f"see {RESULTS_START} here\n{RESULTS_END}\n"
    updated, problems = replace_results_block(text, "x")
    assert updated is None and problems == [
        f"0 `{RESULTS_START}` lines (expected exactly one, alone on its line)"]


def test_unreadable_readme_and_options_without_readme_table(run: Path, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture) -> None:
    assert report(str(run), "--readme-table", "--into", str(tmp_path / "absent.md")) == 1
    assert f"cannot read {tmp_path / 'absent.md'}" in capsys.readouterr().out
    assert report(str(run), "--into", str(tmp_path / "absent.md")) == 2
    assert report(str(run), "--case", "bert") == 2
    assert "--into and --case go with --readme-table" in capsys.readouterr().out
    assert not (run / "summary.json").exists()               # nothing written either way


# ---------------------------------------------------------------- --case filter


@pytest.mark.parametrize("pattern, configs", [
    ("bert", ["config_xeonx1x1", "config_xeonx1x2"]),
    ("resnet50", ["config_xeonx1x1"]),
    ("bert:paddle_3.3:xeon:1:2:*", ["config_xeonx1x2"]),
    ("*:xeon:1:1:*", ["config_xeonx1x1", "config_xeonx1x1"]),
    ("resnet50-pytorch_2.13-xeon-1x1", ["config_xeonx1x1"]),
])
def test_case_filter_keeps_the_matching_rows(run: Path, pattern: str, configs: list[str],
                                             capsys: pytest.CaptureFixture) -> None:
    assert report(str(run), "--readme-table", "--case", pattern) == 0
    rows = table_rows(capsys.readouterr().out)
    assert [r.split(" | ")[0].lstrip("| ") for r in rows] == configs
    kept = select_cases(summarize(run), pattern)
    assert len(kept.cases) == len(configs) and kept.run_id == "run20231114221320"


def test_case_filter_is_not_a_substring_match(run: Path, capsys: pytest.CaptureFixture) -> None:
    assert select_cases(summarize(run), "ber").cases == ()
    assert report(str(run), "--readme-table", "--case", "ber") == 1
    assert "no case of run run20231114221320 matches 'ber'" in capsys.readouterr().out


def test_case_filter_with_into_writes_only_those_rows(run: Path, tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(README)
    assert report(str(run), "--readme-table", "--case", "resnet50", "--into", str(readme)) == 0
    block = results_block(readme.read_text()) or ""
    assert len(table_rows(block)) == 1
    assert block == readme_table(select_cases(summarize(run), "resnet50"))


# ---------------------------------------------------------------- absent columns


def test_absent_columns_are_listed_with_their_reason(run: Path) -> None:
    text = readme_table(summarize(run))
    cases = "bert:paddle_3.3:xeon:1:1:2, bert:paddle_3.3:xeon:1:2:2, resnet50:pytorch_2.13:xeon:1:1:2"
    assert (f"- MFU not measured ({cases}): every round: cpu vendor spec sheet has no peak "
            "FLOP/s for chip xeon") in text.splitlines()
    assert f"- peak accel memory not measured ({cases}): every round: 10.0.0.1_noderank0: " \
        "vendor cpu has no accelerator telemetry" in text.splitlines()
    assert "work/J not measured" not in text                  # measured: the synthetic run has it
    assert "CPU energy" not in text                           # absent, but not a README column
    one = readme_table(select_cases(summarize(run), "resnet50"))
    assert "- MFU not measured (resnet50:pytorch_2.13:xeon:1:1:2): every round" in one


# ---------------------------------------------------------------- the case READMEs


def case_readmes() -> list[Path]:
    """The README of every training case folder (one with an entry script, as the catalogue
    finds cases)."""
    entries = sorted((REPO / "training" / "benchmarks").glob("*/*/run_pretraining.py"))
    return [entry.parent / "README.md" for entry in entries]


def test_every_training_case_readme_is_found() -> None:
    assert {f"{p.parent.parent.name}/{p.parent.name}" for p in case_readmes()} >= {
        "resnet50/pytorch", "resnet50/tensorflow2", "bert/pytorch", "bert/paddle",
        "llama2_7b/deepspeed"}


@pytest.mark.parametrize("readme", case_readmes(), ids=lambda p: p.parent.parent.name + "/"
                         + p.parent.name)
def test_case_readme_results_are_one_generated_block(readme: Path) -> None:
    text = readme.read_text()
    block = results_block(text)
    assert block is not None, replace_results_block(text, "")[1]
    note = re.search(r"^Measured by chipperf \S+, run `run\d{14}`; figures are means over the "
                     r"counted rounds", block, re.MULTILINE)
    assert note, f"{readme}: the results block does not hold a generated table"
    rows = table_rows(block)
    assert block.startswith("| config | nodes x procs | rounds (counted/total) |") and rows
    # a reduced preset's row carries its label ("config_xeonx1x2 [tiny preset: 0.132 M params]")
    assert all(re.match(r"\| config_\w+x\d+x\d+( \[[^\]]+\])? \| \d+x\d+ \| \d+/\d+ \|", r)
               for r in rows)
    section = text.split("\n## Results\n", 1)
    assert len(section) == 2, f"{readme}: no '## Results' section"
    results = section[1].split("\n## ", 1)[0]
    assert RESULTS_START in results, f"{readme}: the results block is not under '## Results'"
    outside = results.replace(block, "")
    assert not [line for line in outside.splitlines() if line.startswith("|")], \
        f"{readme}: a table outside the generated block in '## Results'"
