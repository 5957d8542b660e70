"""`python3 inference/run.py` on a fresh clone: its default data is made first where missing
(inference/prepare_data.py), with the project's python; what it lacks is one message with the
one command that fixes it."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("prepare_data", REPO / "inference" / "prepare_data.py")
assert spec is not None and spec.loader is not None
prepare_data = importlib.util.module_from_spec(spec)
spec.loader.exec_module(prepare_data)


def test_the_default_data_is_made_once_and_then_left(tmp_path: Path, capsys) -> None:
    assert prepare_data.missing(tmp_path) == ["digits", "licenses", "llm-prompts"]
    assert prepare_data.main(["--root", str(tmp_path)]) == 0
    assert prepare_data.missing(tmp_path) == []
    assert (tmp_path / "digits" / "train").is_dir() and (tmp_path / "licenses" / "vocab.txt").is_file()
    capsys.readouterr()
    assert prepare_data.main(["--root", str(tmp_path)]) == 0
    assert "preparing" not in capsys.readouterr().out             # nothing made twice


def test_a_missing_package_is_one_message_with_the_one_command(tmp_path: Path, monkeypatch,
                                                              capsys) -> None:
    monkeypatch.setitem(prepare_data.DATA_MODULES, "no_such_module_here", "no-such-package")
    assert prepare_data.main(["--root", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no-such-package" in err[0] and sys.executable in err[0]
    assert prepare_data.ONE_COMMAND in err[0] and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("package", ["numpy", "Pillow", "scikit-learn", "tokenizers"])
def test_what_the_preparers_import_is_in_the_data_extra(package: str) -> None:
    text = (REPO / "pyproject.toml").read_text()
    data_line = next(line for line in text.splitlines() if line.startswith("data = ["))
    assert f'"{package}"' in data_line
