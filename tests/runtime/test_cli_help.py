"""CLI help a user reads: `chipperf --help` says what the tool is, the entry scripts say what
they are, and every option of every command has help."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest

from chipperf import cli

REPO = Path(__file__).resolve().parents[2]
ENTRIES = {"training/run_benchmarks/run.py": "training benchmarks",
           "inference/run.py": "inference benchmarks"}


def _parsers(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return [parser] + [q for a in subs for p in a.choices.values() for q in _parsers(p)]


def _undocumented(parser: argparse.ArgumentParser) -> list[str]:
    return [f"{parser.prog} {'/'.join(a.option_strings) or a.dest}" for a in parser._actions
            if not isinstance(a, argparse._SubParsersAction) and not a.help]


def test_every_option_and_argument_of_every_command_has_help() -> None:
    parsers = _parsers(cli.parser())
    assert len(parsers) == 15  # chipperf and its fourteen commands
    assert [u for p in parsers for u in _undocumented(p)] == []


def test_every_command_is_described_and_listed() -> None:
    top = cli.parser()
    listed = top.format_help()
    for parser in _parsers(top)[1:]:
        assert parser.description, parser.prog
        assert parser.prog.split()[-1] in listed


def test_chipperf_help_says_what_the_tool_does(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        cli.main(["--help"])
    assert done.value.code == 0
    text = capsys.readouterr().out
    for words in ("evaluates AI hardware", "result/run<timestamp>", "chipperf run --cluster",
                  "chipperf report", "Exit status"):
        assert words in text


def _entry_help(script: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, str(REPO / script), "--help"], capture_output=True,
                          text=True, env=env, timeout=120)


@pytest.mark.parametrize("script", sorted(ENTRIES))
def test_entry_scripts_say_what_they_are(script: str) -> None:
    proc = _entry_help(script)
    assert proc.returncode == 0, proc.stderr
    prog = "run_benchmarks/run.py" if script.startswith("training") else script
    assert proc.stdout.startswith(f"usage: {prog} ")
    assert f"Run the {ENTRIES[script]}" in proc.stdout
    assert "result/run<timestamp>/" in proc.stdout


def test_entry_script_options_all_have_help_and_default_to_the_files_beside_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[list[str]] = []
    monkeypatch.setattr(cli, "main", lambda argv: seen.append(list(argv)) or 0)
    here = REPO / "training" / "run_benchmarks" / "config"
    assert cli.entry_main("run.py", "doc", ["--debug"], "training", cluster=str(here / "c.py"),
                          test=str(here / "t.py")) == 0
    # FlagPerf's run.py skips a case key it cannot run and runs the rest: so do its entries
    assert seen == [["--debug", "run", "--suite=training", f"--cluster={here / 'c.py'}",
                     f"--test={here / 't.py'}", "--keep-going"]]
    assert cli.entry_main("run.py", "doc", ["--host-config", "h.yaml"], "inference") == 0
    assert seen[-1] == ["run", "--suite=inference", "--host-config=h.yaml", "--keep-going"]
    for suite in ("training", "inference"):
        assert _undocumented(cli.entry_parser("run.py", "doc", suite)) == []


def test_a_reader_that_leaves_early_ends_the_listing_quietly() -> None:
    """`chipperf cases | head -1`: the pipe closes under the writer; no traceback, exit 141."""
    code = "import sys; from chipperf.cli import main; sys.exit(main(['cases']))"
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first line is written
    done = subprocess.run([sys.executable, "-c", code], stdout=write_end, stderr=subprocess.PIPE,
                          cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=120,
                          text=True)
    os.close(write_end)
    assert done.returncode == cli.EXIT_BROKEN_PIPE, done.stderr
    assert "Traceback" not in done.stderr
