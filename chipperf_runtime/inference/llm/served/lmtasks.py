"""The accuracy tasks of the served mode: lm-eval (EleutherAI's lm-evaluation-harness) asks
the running server through its ``local-completions`` model (``harness.py``, a child process),
after the sweep, so a fast engine that answers wrong shows it beside its speed.

Tasks are lm-eval's own (``arc_easy``, ``gsm8k``, ...: their datasets come from the Hugging Face
hub, so they run only where that dataset is already in the cache; the run is offline) or local
ones, whose data is a JSON-lines file read with lm-eval's ``dataset_path: json``:

    chipperf_arith       exact match, seeded "What is A plus B?" questions chipperf writes
    chipperf_arith_mc    the same questions as 4-way multiple choice (log-likelihoods)
    serve_lmeval_local_tasks: {NAME: {kind: exact_match | multiple_choice, data_file: PATH}}
                         the user's own set: {"question", "answer"} or {"question", "choices",
                         "label"} per line

Pure but for writing the task files: the settings' problems, the task YAML and data, and the
FINISHED record from lm-eval's results.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence

HARNESS = "lm-eval"
HARNESS_PIN = "lm-eval[api]==0.4.13"
KINDS = ("exact_match", "multiple_choice")
BUILTIN = {"chipperf_arith": "exact_match", "chipperf_arith_mc": "multiple_choice"}
BUILTIN_ITEMS = 50
FIELDS = {"exact_match": ("question", "answer"), "multiple_choice": ("question", "choices", "label")}
PROMPT = "Question: {{question}}\nAnswer:"


@dataclass(frozen=True)
class LocalTask:
    name: str
    kind: str
    data_file: Path

    def yaml_config(self) -> dict[str, Any]:
        """lm-eval's task config: ``dataset_path: json`` over the data file, no hub."""
        common = {"task": self.name, "dataset_path": "json",
                  "dataset_kwargs": {"data_files": {"test": str(self.data_file)}},
                  "test_split": "test", "doc_to_text": PROMPT, "metadata": {"version": 1.0}}
        if self.kind == "multiple_choice":
            return {**common, "output_type": "multiple_choice", "doc_to_choice": "choices",
                    "doc_to_target": "label",
                    "metric_list": [{"metric": "acc", "aggregation": "mean",
                                     "higher_is_better": True}]}
        return {**common, "output_type": "generate_until", "doc_to_target": "{{answer}}",
                "generation_kwargs": {"until": ["\n"], "max_gen_toks": 8, "do_sample": False},
                "metric_list": [{"metric": "exact_match", "aggregation": "mean",
                                 "higher_is_better": True, "ignore_case": True,
                                 "regexes_to_ignore": ["^\\s+", "\\s+$"]}]}


def problems(tasks: Sequence[Any], limit: Any, local: Any, timeout_s: Any) -> list[str]:
    """Every problem of the serve_lmeval_* keys (pure: files are checked at case start)."""
    out = [f"serve_lmeval_tasks: every item must be a task name (a string), got {t!r}"
           for t in tasks if not isinstance(t, str) or not t]
    if len(set(map(str, tasks))) < len(tasks):
        out.append(f"serve_lmeval_tasks: a task is listed twice: {list(tasks)!r}")
    if limit is not None and not (isinstance(limit, int) and not isinstance(limit, bool)
                                  and limit >= 1):
        out.append(f"serve_lmeval_limit: must be null (every example) or a whole number >= 1 "
                   f"of examples per task, got {limit!r}")
    if not isinstance(timeout_s, (int, float)) or isinstance(timeout_s, bool) or timeout_s <= 0:
        out.append(f"serve_lmeval_timeout_s: must be a number of seconds > 0, got {timeout_s!r}")
    if not isinstance(local, Mapping):
        return out + [f"serve_lmeval_local_tasks: must be a mapping of task name to "
                      f"{{kind, data_file}}, got {local!r}"]
    for name, spec in local.items():
        where = f"serve_lmeval_local_tasks.{name}"
        if name in BUILTIN:
            out.append(f"{where}: {name} is chipperf's own local task: give yours another name")
        if not isinstance(spec, Mapping) or spec.get("kind") not in KINDS \
                or not isinstance(spec.get("data_file"), str) or set(spec) - {"kind", "data_file"}:
            shown = dict(spec) if isinstance(spec, Mapping) else spec
            out.append(f"{where}: must be {{kind: {' | '.join(KINDS)}, data_file: PATH}}, got "
                       f"{shown!r}")
    return out


def local_tasks(tasks: Sequence[str], local: Mapping[str, Mapping[str, str]], data_dir: Path,
                out: Path) -> list[LocalTask]:
    """The local tasks the run asks for: chipperf's own (data written under ``out``) and the
    user's (``data_file`` relative to the case's data dir)."""
    found = []
    for name in tasks:
        if name in BUILTIN:
            found.append(LocalTask(name, BUILTIN[name], out / "data" / f"{name}.jsonl"))
        elif name in local:
            path = Path(local[name]["data_file"])
            found.append(LocalTask(name, local[name]["kind"],
                                   path if path.is_absolute() else data_dir / path))
    return found


def missing_files(found: Sequence[LocalTask]) -> list[str]:
    """A user's data file that is absent or has a line without its kind's fields."""
    out = []
    for task in found:
        if task.name in BUILTIN:
            continue
        where = f"serve_lmeval_local_tasks.{task.name}.data_file"
        if not task.data_file.is_file():
            out.append(f"{where}: {task.data_file} is not a file: write the task's examples "
                       f"there, one JSON object per line ({', '.join(FIELDS[task.kind])})")
            continue
        out += _bad_lines(task, where)
    return out


def _bad_lines(task: LocalTask, where: str) -> list[str]:
    lines = task.data_file.read_text().splitlines()
    for number, line in enumerate(lines, 1):
        try:
            item = json.loads(line)
        except ValueError as exc:
            return [f"{where}: {task.data_file} line {number} is not JSON ({exc})"]
        lacks = [f for f in FIELDS[task.kind] if not isinstance(item, dict) or f not in item]
        if lacks:
            return [f"{where}: {task.data_file} line {number} lacks {', '.join(lacks)} (a "
                    f"{task.kind} example has {', '.join(FIELDS[task.kind])})"]
    return [] if lines else [f"{where}: {task.data_file} has no examples"]


def write_tasks(found: Sequence[LocalTask], seed: int, folder: Path) -> Path:
    """Each local task's YAML (and chipperf's own data) under ``folder``; lm-eval's
    ``include_path``."""
    import yaml

    (folder / "data").mkdir(parents=True, exist_ok=True)
    for task in found:
        if task.name in BUILTIN:
            items = arithmetic(seed, BUILTIN_ITEMS, task.kind)
            task.data_file.write_text("".join(json.dumps(i) + "\n" for i in items))
        (folder / f"{task.name}.yaml").write_text(yaml.safe_dump(task.yaml_config()))
    return folder


def arithmetic(seed: int, count: int, kind: str) -> list[dict[str, Any]]:
    """Seeded sums of two numbers below 50; multiple choice adds three wrong sums."""
    draw, items = random.Random(seed), []
    for _ in range(count):
        a, b = draw.randrange(50), draw.randrange(50)
        item: dict[str, Any] = {"question": f"What is {a} plus {b}?", "answer": str(a + b)}
        if kind == "multiple_choice":
            wrong = draw.sample([n for n in range(100) if n != a + b], 3)
            choices = [a + b, *wrong]
            draw.shuffle(choices)
            item.update(choices=[str(c) for c in choices], label=choices.index(a + b))
        items.append(item)
    return items


def scores(results: Mapping[str, Any]) -> list[dict[str, Any]]:
    """(task, metric, value, stderr, n) from lm-eval's results: its ``results`` and
    ``n-samples`` (a stderr lm-eval could not compute is None)."""
    out = []
    for task, figures in sorted((results.get("results") or {}).items()):
        n = (results.get("n-samples") or {}).get(task, {}).get("effective")
        for key, value in figures.items():
            metric, _, kept = key.partition(",")
            if not kept or metric.endswith("_stderr") or not isinstance(value, (int, float)):
                continue
            stderr = figures.get(f"{metric}_stderr,{kept}")
            out.append({"task": task, "metric": metric if kept == "none" else f"{metric} ({kept})",
                        "value": float(value), "n": n,
                        "stderr": float(stderr) if isinstance(stderr, (int, float)) else None})
    return out


def record(result: Optional[Mapping[str, Any]], why_not: Optional[str], checkpoint: Optional[str],
           tasks: Sequence[str], limit: Optional[int]) -> dict[str, Any]:
    """FINISHED's ``serving.sweep.accuracy_tasks``: the scores, or why there are none; whether
    they mean anything (a checkpoint's do; chipperf's seeded random weights' do not)."""
    meaningful = checkpoint is not None
    out: dict[str, Any] = {
        "harness": (result or {}).get("harness", HARNESS), "tasks": list(tasks), "limit": limit,
        "meaningful": meaningful,
        "weights": f"checkpoint {checkpoint}" if meaningful else "chipperf's seeded random weights",
        "scores": scores(result) if result else []}
    if not meaningful:
        out["note"] = ("not meaningful: chipperf's seeded random weights (no model_dir given) "
                       "answer at chance or below; the scores prove the harness path, not the "
                       "engine's accuracy")
    if why_not:
        out["not_run"] = why_not
    for key in ("model", "elapsed_s", "log"):
        if result and key in result:
            out[key] = result[key]
    return out
