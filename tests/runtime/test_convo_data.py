"""aquila2_7b_finetune's data (``textlm/convo.py``): FlagAI's Aquila chat jsonl under
``dataset/``, every 20th conversation held out for eval, each sample's instruction and turns as
byte-level ids; a bad line or a missing file is named in one DataError with the layout."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chipperf_runtime.training.driver import DataError
from chipperf_runtime.training.textlm import bytelevel, convo


def test_the_layout_is_read_with_every_20th_sample_held_out(tmp_path: Path) -> None:
    path = convo.write_generated(tmp_path, 60, seed=3)
    samples = [json.loads(line) for line in path.read_text().splitlines()]
    data = convo.open_convo(tmp_path, 64, 259, "prepare_data.py")
    held_out = [s for i, s in enumerate(samples, 1) if i % 20 == 0]
    assert len(held_out) == 3
    stream = sum(len(bytelevel.encode(convo.text(s))) for s in held_out)
    assert len(data.eval) == (stream - 1) // 64
    first = data.train.take([0])[0]
    assert first[0] == bytelevel.BOS
    text = bytes(int(t) - bytelevel.BYTE_OFFSET for t in first[1:30]).decode()
    assert text == "Human: Summarize this dialog:"


def test_the_instruction_leads_and_the_roles_are_named() -> None:
    sample = {"instruction": "Be brief.", "conversations": [
        {"from": "human", "value": "Hi?"}, {"from": "gpt", "value": "Hello."}]}
    assert convo.text(sample) == "Be brief.\nHuman: Hi?\nAssistant: Hello."


def test_a_bad_line_is_named_with_its_number(tmp_path: Path) -> None:
    path = tmp_path / convo.FILE
    path.parent.mkdir()
    path.write_text(json.dumps({"conversations": [{"from": "human", "value": "a"}]}) + "\n"
                    + json.dumps({"conversations": [{"from": "bot", "value": "b"}]}) + "\n")
    with pytest.raises(DataError) as err:
        convo.open_convo(tmp_path, 64, 259, "prepare_data.py")
    assert f"{path}:2: each turn needs \"from\" (human or gpt)" in str(err.value)
    assert "FlagAI's Aquila chat format" in str(err.value)


def test_a_missing_file_says_how_to_make_one(tmp_path: Path) -> None:
    with pytest.raises(DataError) as err:
        convo.open_convo(tmp_path, 64, 259, "prepare_data.py")
    assert f"{tmp_path / convo.FILE} is missing" in str(err.value)
