"""lm-eval against the running server, in a child process of the case's python (lm-eval and its
datasets import stay out of the case process; a hung harness is killed at its timeout):

    python -m chipperf_runtime.inference.llm.served.harness check --include DIR --tasks T,...
        one JSON line {"problems": [...]}: a task lm-eval does not know, or one whose dataset is
        not in this machine's cache (the check runs offline: it loads each task as the run will)
    python -m chipperf_runtime.inference.llm.served.harness run --include DIR --tasks T,...
        --base-url URL --model NAME --tokenizer DIR --max-length N --seed S --output FILE
        lm-eval's ``simple_evaluate`` with ``local-completions`` (prompts as token ids of the
        model folder's own tokenizer), its results written to FILE

The case calls ``preflight`` before the server starts (a bad task costs no measurement) and
``evaluate`` after the sweep, while the server still runs. Offline throughout: HF_HUB_OFFLINE and
HF_DATASETS_OFFLINE are set, so nothing is fetched from the hub.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Sequence

from chipperf_runtime.inference.errors import CaseError
from chipperf_runtime.inference.llm.served.lmtasks import BUILTIN, HARNESS, HARNESS_PIN

OFFLINE = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
CHECK_TIMEOUT_S = 600.0
MODULE = "chipperf_runtime.inference.llm.served.harness"


@dataclass(frozen=True)
class HarnessRun:
    """One lm-eval run: the tasks, their local YAML folder, examples per task, the server."""

    tasks: tuple[str, ...]
    include: Path
    limit: Optional[int]
    base_url: str
    model: str
    tokenizer: Path
    max_length: int
    seed: int
    python: str = sys.executable

    def command(self, action: str) -> list[str]:
        argv = [self.python, "-m", MODULE, action,
                "--include", str(self.include), "--tasks", ",".join(self.tasks)]
        if action == "check":
            return argv
        return [*argv, "--base-url", self.base_url, "--model", self.model,
                "--tokenizer", str(self.tokenizer), "--max-length", str(self.max_length),
                "--seed", str(self.seed)] + ([] if self.limit is None else
                                             ["--limit", str(self.limit)])


def preflight(run: HarnessRun, log: Path) -> None:
    """CaseError naming every task lm-eval cannot run here (unknown, or its dataset not cached),
    or that lm-eval is not installed for the case's python."""
    probe = [run.python, "-c", "import importlib.util, sys; "
             "sys.exit(importlib.util.find_spec('lm_eval') is None)"]
    if subprocess.run(probe, check=False, capture_output=True).returncode != 0:
        raise CaseError(f"serve_lmeval_tasks: {HARNESS} is not installed for {run.python}: use "
                        f"the serving image (its requirements-added.txt installs it), or pip "
                        f"install '{HARNESS_PIN}' there; or set serve_lmeval_tasks: []")
    done = _child(run.command("check"), log, CHECK_TIMEOUT_S)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise CaseError(f"serve_lmeval_tasks: lm-eval's task check failed (exit "
                        f"{done.returncode}); its log ({log}) ends:\n{_tail(log)}")
    found = json.loads(lines[-1])["problems"]
    if found:
        raise CaseError("serve_lmeval_tasks: " + "\n  ".join(found))


def evaluate(run: HarnessRun, output: Path, log: Path, timeout_s: float) -> dict[str, Any]:
    """lm-eval's results (with ``harness``, ``elapsed_s``, ``log``), or CaseError saying why
    there are none."""
    started = time.monotonic()
    try:
        done = _child([*run.command("run"), "--output", str(output)], log, timeout_s)
    except subprocess.TimeoutExpired as exc:
        raise CaseError(f"lm-eval did not finish within serve_lmeval_timeout_s = {timeout_s:g} s "
                        f"(killed); its log: {log}") from exc
    if done.returncode != 0 or not output.is_file():
        raise CaseError(f"lm-eval failed (exit {done.returncode}); its log ({log}) ends:\n"
                        f"{_tail(log)}")
    result = json.loads(output.read_text())
    return {**result, "elapsed_s": time.monotonic() - started, "log": str(log)}


def _child(argv: list[str], log: Path, timeout_s: float) -> subprocess.CompletedProcess:
    """``argv`` with the offline environment; stderr appended to ``log``, stdout returned."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "ab") as handle:
        return subprocess.run(argv, stdout=subprocess.PIPE, stderr=handle, text=True,
                              timeout=timeout_s, env={**os.environ, **OFFLINE}, check=False)


def _tail(log: Path, chars: int = 3000) -> str:
    try:
        return log.read_text(errors="replace")[-chars:]
    except OSError as exc:
        return f"(log unreadable: {exc})"


# ----- the child: lm-eval imported here only -----

def check(tasks: Sequence[str], include: Path) -> list[str]:
    """A problem per task lm-eval cannot load here, offline."""
    manager = task_manager(tasks, include)
    out = []
    for name in tasks:
        if name not in manager.all_tasks:
            out.append(f"{name!r} is neither an lm-eval task (see `lm_eval ls tasks`, "
                       f"{HARNESS} {_version()}) nor a local one "
                       f"({', '.join(BUILTIN)}, or one of serve_lmeval_local_tasks)")
            continue
        try:
            manager.load([name])
        except Exception as exc:   # datasets' offline miss is several exception types
            out.append(f"{name!r} needs its dataset from the Hugging Face hub, and it is not "
                       f"in this machine's cache (the run is offline; {type(exc).__name__}: "
                       f"{str(exc).splitlines()[0] if str(exc) else ''}): fetch it there once "
                       "beforehand (HF_HOME), or use a local task (chipperf_arith, "
                       "serve_lmeval_local_tasks)")
    return out


def task_manager(tasks: Sequence[str], include: Path) -> Any:
    """lm-eval's task index over the local tasks' YAML folder; its own thousands of task
    files are indexed only when a task is not local (that index takes most of a check)."""
    from lm_eval.tasks import TaskManager

    local = all((include / f"{name}.yaml").is_file() for name in tasks)
    return TaskManager(include_path=str(include), include_defaults=not local)


def run_tasks(args: argparse.Namespace) -> dict[str, Any]:
    from lm_eval import simple_evaluate

    model_args = {"base_url": args.base_url + "/v1/completions", "model": args.model,
                  "tokenizer": str(args.tokenizer), "tokenizer_backend": "huggingface",
                  "tokenized_requests": True, "max_length": args.max_length,
                  "num_concurrent": 1, "max_retries": 1}
    results = simple_evaluate(model="local-completions", model_args=model_args,
                              tasks=list(args.tasks), limit=args.limit, log_samples=False,
                              bootstrap_iters=1000, random_seed=args.seed,
                              numpy_random_seed=args.seed, torch_random_seed=args.seed,
                              fewshot_random_seed=args.seed,
                              task_manager=task_manager(args.tasks, args.include))
    if results is None:
        raise RuntimeError("lm-eval returned no results")
    return {"harness": f"{HARNESS} {_version()}", "model": f"local-completions at {args.base_url}",
            "results": results["results"], "n-samples": results.get("n-samples", {})}


def _version() -> str:
    from importlib.metadata import version

    return version("lm_eval")


def parse(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="harness", description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("check", "run"))
    parser.add_argument("--include", type=Path, required=True)
    parser.add_argument("--tasks", type=lambda text: text.split(","), required=True)
    parser.add_argument("--limit", type=int)
    parser.add_argument("--base-url")
    parser.add_argument("--model")
    parser.add_argument("--tokenizer", type=Path)
    parser.add_argument("--max-length", type=int, default=2048)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--output", type=Path)
    return parser.parse_args(argv)


def main(argv: Sequence[str]) -> None:
    from chipperf_runtime.models.tvision import prepare_torchvision

    prepare_torchvision()   # lm-eval imports transformers, which imports torchvision where present
    os.environ.update(OFFLINE)
    args = parse(argv)
    if args.action == "check":
        print(json.dumps({"problems": check(args.tasks, args.include)}), flush=True)
        return
    result = run_tasks(args)
    args.output.write_text(json.dumps(result, default=str))


if __name__ == "__main__":
    main(sys.argv[1:])
