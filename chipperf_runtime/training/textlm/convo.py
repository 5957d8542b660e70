"""FlagPerf's aquila2_7b_finetune data: conversations in FlagAI's Aquila chat format, one JSON
object a line, turned into causal-LM token windows.

Layout (FlagPerf's README: FlagAI's ``alpaca_data_train.jsonl`` put under ``dataset`` in the
case's data directory; FlagScale reads it with ``examples/aquila/utils/convo_dataset.py``)::

    <data_dir>/dataset/alpaca_data_train.jsonl
        {"id": str, "conversations": [{"from": "human" | "gpt", "value": str}, ...],
         "instruction": str}                     one sample a line

FlagPerf's run evaluates nothing (``--eval-iters 0``); chipperf holds out every 20th sample
as the eval split. Each sample becomes ``instruction`` (when not empty), then a line per turn,
``Human: value`` or ``Assistant: value``, + EOS; the samples are tokenised and concatenated
into one stream per split, cut into ``seq_len + 1`` windows. Tokeniser: ``textlm.bytelevel``'s
byte-fallback ids (``<s>`` + UTF-8 bytes + ``</s>``), which needs no tokenizer file; FlagScale
tokenises with Aquila's BPE (``<data_dir>/tokenizer``) and scores only the assistant's turns,
while here every token is scored (the work per token is the same).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from chipperf_runtime.training.textlm import bytelevel, samsum
from chipperf_runtime.training.textlm.shards import Windows, require_data_dir, unusable
from chipperf_runtime.training.textlm.tokens import TokenDataset

FILE = Path("dataset") / "alpaca_data_train.jsonl"
EVAL_EVERY = 20               # every 20th sample (the 20th, 40th, ...) is held out for eval
ROLES = {"human": "Human", "gpt": "Assistant"}
LAYOUT = (f"(layout: {FILE}, one JSON object a line: {{\"conversations\": [{{\"from\": "
          "\"human\" | \"gpt\", \"value\": str}, ...], \"instruction\": str}, FlagAI's Aquila "
          "chat format; see textlm/convo.py)")


def open_convo(data_dir: Path, seq_len: int, vocab_size: int, prepare: str) -> TokenDataset:
    """The train and eval windows; a DataError naming every problem otherwise."""
    data_dir = require_data_dir(data_dir, f"{prepare} --output DIR")
    problems: list[str] = []
    samples = _samples(data_dir / FILE, problems)
    splits = {"train": [s for i, s in enumerate(samples, 1) if i % EVAL_EVERY],
              "eval": [s for i, s in enumerate(samples, 1) if not i % EVAL_EVERY]}
    windows = {name: Windows.of([_stream(part)], seq_len) for name, part in splits.items() if part}
    for name in splits if samples else ():
        if name not in windows or len(windows[name]) == 0:
            problems.append(f"{FILE}: its {name} split (every {EVAL_EVERY}th sample to eval) "
                            f"holds fewer than seq_len + 1 = {seq_len + 1} tokens")
    if problems:
        raise unusable("aquila2 conversation", data_dir, problems, LAYOUT)
    return TokenDataset(windows["train"], windows["eval"], vocab_size)


def _samples(path: Path, problems: list[str]) -> list[dict[str, Any]]:
    if not path.is_file():
        problems.append(f"{path} is missing")
        return []
    samples = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as err:
        problems.append(f"{path}: not readable ({err})")
        return []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            sample = json.loads(line)
        except json.JSONDecodeError as err:
            problems.append(f"{path}:{number}: not JSON ({err})")
            return []
        if (bad := _bad_sample(sample)) is not None:
            problems.append(f"{path}:{number}: {bad}")
            return []
        samples.append(sample)
    if not samples:
        problems.append(f"{path}: holds no sample")
    return samples


def _bad_sample(sample: Any) -> str | None:
    turns = sample.get("conversations") if isinstance(sample, dict) else None
    if not isinstance(turns, list) or not turns:
        return "needs a non-empty \"conversations\" list"
    for turn in turns:
        if not isinstance(turn, dict) or turn.get("from") not in ROLES \
                or not isinstance(turn.get("value"), str):
            return f"each turn needs \"from\" ({' or '.join(ROLES)}) and a string \"value\""
    return None


def text(sample: dict[str, Any]) -> str:
    """One sample as the text trained on (``bytelevel.encode`` adds BOS and EOS)."""
    lines = [sample["instruction"]] if sample.get("instruction") else []
    lines += [f"{ROLES[t['from']]}: {t['value']}" for t in sample["conversations"]]
    return "\n".join(lines)


def _stream(samples: list[dict[str, Any]]) -> np.ndarray:
    return np.concatenate([bytelevel.encode(text(s)) for s in samples])


# ---------------------------------------------------------------- generated data (CI)

def generated(count: int, seed: int) -> list[dict[str, Any]]:
    """``count`` conversations in the layout's format: a human asks for a summary of one of
    ``samsum.generated``'s dialogues, the assistant gives it (structure a small model learns,
    no text downloaded)."""
    return [{"id": s["id"], "instruction": "",
             "conversations": [{"from": "human", "value": f"Summarize this dialog:\n{s['dialogue']}"},
                               {"from": "gpt", "value": s["summary"]}]}
            for s in samsum.generated(count, seed)]


def write_generated(output: Path, count: int, seed: int) -> Path:
    """The layout (module doc) under ``output`` with ``count`` generated conversations."""
    path = output / FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(s, ensure_ascii=False) + "\n"
                            for s in generated(count, seed)), encoding="utf-8")
    return path
