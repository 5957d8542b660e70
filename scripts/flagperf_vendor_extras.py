"""FlagPerf's vendor folders beyond its main branch, and its trainer adapters against chipperf's
hooks (the helpers are scripts/flagperf_vendor_cases.py's). Run from the repository root:

    python scripts/flagperf_vendor_extras.py /tmp/FlagPerf.git elsewhere

carries the folders FlagPerf keeps off its main branch (``ELSEWHERE``: a vendor branch, an
unmerged pull request), each from its own commit (a clone with ``git fetch origin
'+refs/pull/*/head:refs/pull/*/head'`` has them), into chipperf's folders; a README is written
only for a new folder (one chipperf had says what came from where by hand).

    python scripts/flagperf_vendor_extras.py /tmp/FlagPerf.git adapters

prints, as a Markdown table, every FlagPerf trainer adapter (its main's HEAD) of a carried
folder: its functions, the hook points chipperf's case loop has for them, and what the chipperf
folder does now (docs/flagperf-names.md holds its output).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from flagperf_vendor_cases import (
    TRAINING,
    VENDORS,
    Source,
    _readme,
    fit_configs,
    target_case,
    write_case,
)

from chipperf.config.adaptation import adapter_gaps, adapter_hooks, case_hooks
from chipperf.suites.catalogue import Catalogue, read_case_meta
from chipperf_runtime.training.driver.adapter import ADAPTER_FILE

# FlagPerf's vendor folders not on its main branch: (commit, where it is, vendor, folder). The
# mthreads_llama2 branch's DeepSpeed llama2_7b (FlagPerf's test_conf lists its key under
# mthreads), and pull request 375's dcu folders: detr on the Z100L (its head), and glm's Z100L
# configs (its first commit; its head removed them; main has glm for the K100)
ELSEWHERE = (("9c6460608b0fe2ab27f64a23947cfb5a8feb1325", "branch mthreads_llama2", "mthreads",
              "llama2_7b-deepspeed"),
             ("1e05cb6512ff5fff3e9501c9b49258b533d13f7b", "pull request 375", "dcu",
              "detr-pytorch"),
             ("f37ffdfc89fadece0716ed7118a93c135022c6cb", "pull request 375", "dcu",
              "glm-pytorch"))


def carry_elsewhere(git_dir: Path, catalogue: Catalogue) -> int:
    """The ELSEWHERE folders, each from its commit; a README written only for a new folder."""
    for commit, where, vendor, folder in ELSEWHERE:
        case = target_case(folder, catalogue)
        if case is None:
            print(f"{vendor}/{folder}@{commit[:8]}: no chipperf case runs it")
            continue
        done = write_case(Source(git_dir, commit, where), vendor, folder, *case, None)
        fit_configs(done, catalogue)
        print(f"{vendor}: {done.target.name} <- {folder}@{commit[:8]}: "
              f"{', '.join(done.configs) or 'no new config'}; not carried: "
              f"{'; '.join(done.not_carried) or 'nothing'}")
        _readme(done, vendor, f"{commit} ({where})")
    return 0


def adapter_table(git_dir: Path, catalogue: Catalogue) -> list[str]:
    """One Markdown row per FlagPerf trainer adapter (main's HEAD) of a folder carried here."""
    commit = subprocess.run(["git", "--git-dir", str(git_dir), "rev-parse", "HEAD"],
                            capture_output=True, text=True, check=True).stdout.strip()
    src = Source(git_dir, commit)
    rows = [f"| FlagPerf@{commit[:8]} adapter | its functions | chipperf's loop has a point for "
            "| no point in chipperf | chipperf's folder now |", "| --- | --- | --- | --- | --- |"]
    for vendor in VENDORS:
        for folder in sorted(src.folders(vendor)):
            path = f"training/{vendor}/{folder}/extern/trainer_adapter.py"
            case = target_case(folder, catalogue)
            if case is None or path not in src.files(f"training/{vendor}/{folder}"):
                continue
            rows.append(_adapter_row(src, path, vendor, case[0], case[1], catalogue))
    return rows


def _adapter_row(src: Source, path: str, vendor: str, model: str, fam: str,
                 catalogue: Catalogue) -> str:
    tree = ast.parse(src.text(path))
    names = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
    points = case_hooks(read_case_meta(catalogue.cases[(model, fam)])) or ()
    honoured = [n for n in names if n in points]
    target = TRAINING / vendor / f"{model}-{fam}"
    mine = target / ADAPTER_FILE
    if mine.is_file():
        hooks, _ = adapter_hooks(mine)
        gaps, _ = adapter_gaps(mine)
        now = (f"chipperf adapter, hooks {', '.join(hooks)}; NOT_CARRIED: "
               f"{', '.join(g.split(':')[0] for g in gaps) or 'none'}")
    else:
        now = "not carried: the README lists it and what it did; the standard case's steps run"
    return (f"| `{vendor}/{Path(path).parents[1].name}` | {', '.join(names)} | "
            f"{', '.join(honoured) or 'none'} | "
            f"{', '.join(n for n in names if n not in points) or 'none'} | {now} |")


if __name__ == "__main__":
    ACTIONS = {"elsewhere": carry_elsewhere,
               "adapters": lambda git, cat: print("\n".join(adapter_table(git, cat))) or 0}
    if len(sys.argv) != 3 or sys.argv[2] not in ACTIONS:
        sys.exit(f"usage: {sys.argv[0]} <FlagPerf git dir> {'|'.join(ACTIONS)}")
    sys.exit(ACTIONS[sys.argv[2]](Path(sys.argv[1]), Catalogue.scan(TRAINING)))
