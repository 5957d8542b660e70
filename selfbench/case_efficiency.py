"""Case efficiency: each training case's CI config on this CPU against a GEMM measured here.

    python3 selfbench/case_efficiency.py [--list] [--cases resnet50-pytorch,bert-paddle,...]
        [--threads N] [--max-steps N] [--data-root DIR] [--gemm-sizes 1024,1536,2048]

The cases come from the catalogue (``chipperf.suites.catalogue``): every training case folder with
a cpu vendor config ``config_xeonx1x1.py``, so a new case is picked up when it lands; one it
cannot run (no cpu image for its framework, no data recipe) is named with the reason.
For every case picked (default: all of them) it runs the case's own entry
(``run_pretraining.py``) on this host as one rank of a 1x1 run, with the launch contract's
environment and arguments and the case's cpu vendor config ``config_xeonx1x1.py`` (plus
``--set max_steps=N`` when given), reads rank 0's FINISHED record and prints

    throughput           raw (the whole train window) and pure compute (the timed compute
                         regions only), in the case's unit (samples/s or tokens/s)
    achieved FLOP/s      throughput x FINISHED flops_per_unit (the case's model-shape FLOPs)
    share of peak        achieved FLOP/s / the GEMM peak below

The peak is measured in the same run, before and after the cases: an fp32 ``torch.mm`` of
square matrices of each size in ``--gemm-sizes``, best of ``--gemm-reps`` timed calls after
one warm-up, at the thread count the cases run with (``--threads``, default the usable
cores: what a 1x1 case picks by itself; each case gets it as ``OMP_NUM_THREADS`` and, where
the case has the parameter, ``cpu_threads``; the threads INIT_END reports are checked).
FLOPs of one ``mm`` of n x n matrices: 2 n^3. The peak is the best of all sizes and both
measurements; both are printed so drift from other load shows.

Data sets are the cases' offline CI data under ``--data-root``, made when missing by the
recipe in the case's case.yaml (``ci_data: {script, args}``, ``{out}`` the folder) or else
by the case's own ``prepare_data.py --output``; cases with the same recipe share a folder.
Needs on this host: torch, and for the cases picked transformers, tensorflow-cpu,
paddlepaddle, deepspeed (DS_ACCELERATOR=cpu is set).
Every figure is read from the case's FINISHED: nothing here is a typed-in constant.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

BENCH = REPO / "training" / "benchmarks"
sys.path.insert(1, str(BENCH))   # driver: the cases' config reader

from chipperf.commands.cases import read_case_meta  # noqa: E402
from chipperf.frameworks import family as framework_family  # noqa: E402
from chipperf.suites.catalogue import Catalogue  # noqa: E402
from chipperf_runtime.perflog import parse_lines  # noqa: E402

DATA_ROOT = Path("/var/lib/chipperf-test/data")
CONFIG_FILE = "config_xeonx1x1.py"


@dataclass(frozen=True)
class Dataset:
    name: str                        # folder under the data root
    prepare: tuple[str, ...]         # script (relative to training/benchmarks) + args, "{out}" in them


@dataclass(frozen=True)
class Case:
    name: str                        # <model>-<family>, as the vendor folder is named
    key: str                         # model:framework (the case key without chip and topology)
    data: Dataset
    env: tuple[tuple[str, str], ...] = ()
    threads_param: bool = False      # the case has a vendor-settable cpu_threads

    @property
    def entry(self) -> Path:
        model, family = self.name.rsplit("-", 1)
        return BENCH / model / family / "run_pretraining.py"

    @property
    def config_dir(self) -> Path:
        return REPO / "training" / "cpu" / self.name / "config"


# What a framework's cpu image sets that its cases need on a bare host (the image's ENV).
FAMILY_ENV = {"deepspeed": (("DS_ACCELERATOR", "cpu"),)}
OUT = "{out}"


# ---------------------------------------------------------------- the cases, from the catalogue


def discover(training: Path = REPO / "training") -> tuple[list[Case], list[str]]:
    """Every training case with a cpu ``config_xeonx1x1.py``, and why any other is left out."""
    catalogue = Catalogue.scan(training)
    cases, left_out = [], []
    for (model, family), case_dir in sorted(catalogue.cases.items()):
        frameworks = sorted(fw for vendor, fw in catalogue.images
                            if vendor == "cpu" and framework_family(fw) == family)
        if CONFIG_FILE not in catalogue.vendor_configs.get(("cpu", model, family), ()):
            left_out.append(f"{model}-{family}: no training/cpu/{model}-{family}/config/{CONFIG_FILE}")
        elif not frameworks:
            left_out.append(f"{model}-{family}: no cpu image for {family}")
        elif isinstance(data := ci_data(case_dir), str):
            left_out.append(f"{model}-{family}: {data}")
        else:
            cases.append(Case(f"{model}-{family}", f"{model}:{frameworks[0]}", data,
                              FAMILY_ENV.get(family, ()), has_cpu_threads(case_dir, model, family)))
    return cases, left_out


def ci_data(case_dir: Path) -> Dataset | str:
    """The case's CI data recipe: ``ci_data`` in its case.yaml (script relative to
    training/benchmarks, args with ``{out}``), else its own ``prepare_data.py --output``;
    why not, when there is none."""
    spec = read_case_meta(case_dir).get("ci_data") or {}
    relative = case_dir.relative_to(BENCH).as_posix()
    script = spec.get("script", f"{relative}/prepare_data.py")
    args = tuple(str(a) for a in spec.get("args", ("--output", OUT)))
    if not (BENCH / script).is_file():
        return (f"no CI data recipe: {BENCH / script} does not exist (add ci_data: "
                f"{{script: ..., args: [...]}} to {case_dir / 'case.yaml'})")
    name = "-".join([script.removesuffix(".py").replace("/", "-"),
                     *(a.lstrip("-") for a in args if a not in (OUT, "--output"))])
    return Dataset(name, (script, *args))


def has_cpu_threads(case_dir: Path, model: str, family: str) -> bool:
    """Whether the case's config (base + its cpu 1x1 file) has the ``cpu_threads`` parameter."""
    from chipperf_runtime.training.driver import load_case_config  # training/benchmarks is on sys.path

    vendor = REPO / "training" / "cpu" / f"{model}-{family}" / "config" / CONFIG_FILE
    return "cpu_threads" in load_case_config(case_dir / "config", vendor)


@dataclass(frozen=True)
class CaseRun:
    case: Case
    wall_s: float
    threads: Any                     # as INIT_END reports it
    finished: dict[str, Any]


# ---------------------------------------------------------------- the GEMM peak


def gemm_peak(threads: int, sizes: list[int], reps: int) -> dict[int, float]:
    """Best fp32 FLOP/s of ``torch.mm`` per matrix size, at ``threads`` threads."""
    import torch

    torch.set_num_threads(threads)
    return {n: _best_mm(torch, n, reps) for n in sizes}


def _best_mm(torch: Any, n: int, reps: int) -> float:
    gen = torch.Generator().manual_seed(n)
    a, b = (torch.randn(n, n, generator=gen, dtype=torch.float32) for _ in range(2))
    out = torch.empty(n, n, dtype=torch.float32)
    torch.mm(a, b, out=out)                              # warm-up
    best = float("inf")
    for _ in range(reps):
        started = time.perf_counter()
        torch.mm(a, b, out=out)
        best = min(best, time.perf_counter() - started)
    return 2.0 * n ** 3 / best


# ---------------------------------------------------------------- running one case


def ensure_data(data: Dataset, root: Path) -> Path:
    """The data folder, made by the recipe when missing (in a scratch folder, then renamed)."""
    target = root / data.name
    if not target.is_dir():
        scratch = root / f".{data.name}.{os.getpid()}"
        script, *args = data.prepare
        subprocess.run([sys.executable, str(BENCH / script),
                        *(str(scratch) if a == OUT else a for a in args)], check=True)
        scratch.rename(target)
    return target


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass(frozen=True)
class Chip:
    """Where the case runs: the cpu vendor's xeon (default), or another vendor's chip with its
    ``config_<chip>x1x1.py`` (case_profile.py's ``--vendor nvidia``, on a GPU machine)."""

    vendor: str = "cpu"
    name: str = "xeon"

    def config(self, case: Case) -> tuple[Path, str]:
        if self.vendor == "cpu":
            return case.config_dir, CONFIG_FILE
        return REPO / "training" / self.vendor / case.name / "config", f"config_{self.name}x1x1.py"


XEON = Chip()


def case_env(case: Case, threads: int, chip: Chip = XEON) -> dict[str, str]:
    """The launch contract for rank 0 of a 1x1 run (what chipperf's launcher gives it)."""
    from chipperf.plan import device_env

    keep = {k: v for k, v in os.environ.items()
            if not k.startswith(("PADDLE_", "CHIPPERF_")) and k not in ("TF_CONFIG",)}
    return {**keep, "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(free_port()),
            "NNODES": "1", "NODE_RANK": "0", "NPROC_PER_NODE": "1", "WORLD_SIZE": "1",
            "RANK": "0", "LOCAL_RANK": "0", "LOCAL_WORLD_SIZE": "1",
            "CHIPPERF_RUN_ID": "case-efficiency", "CHIPPERF_CASE": f"{case.key}:{chip.name}:1:1:1",
            "CHIPPERF_ROUND": "1", **device_env(chip.vendor), "OMP_NUM_THREADS": str(threads),
            "PYTHONPATH": f"{REPO}:{BENCH}", "PYTHONUNBUFFERED": "1",
            **(dict(case.env) if chip.vendor == "cpu" else {})}


def case_argv(case: Case, data_dir: Path, out: Path, threads: int,
              max_steps: int | None, chip: Chip = XEON) -> list[str]:
    config_dir, config_file = chip.config(case)
    argv = [sys.executable, "-u", str(case.entry), "--data_dir", str(data_dir),
            "--extern_config_dir", str(config_dir), "--extern_config_file", config_file,
            "--output_dir", str(out)]
    if case.threads_param and chip.vendor == "cpu":
        argv += ["--set", f"cpu_threads={threads}"]
    if max_steps is not None:
        argv += ["--set", f"max_steps={max_steps}"]
    return argv


class CaseFailed(Exception):
    """A case that did not end with one FINISHED record: its message names the case and why;
    ``output`` is the end of its log."""

    def __init__(self, message: str, output: str):
        super().__init__(message)
        self.output = output


def run_case(case: Case, data_dir: Path, threads: int, max_steps: int | None) -> CaseRun:
    with tempfile.TemporaryDirectory(prefix=f"efficiency-{case.name}-") as tmp:
        log = Path(tmp) / "rank0.out.log"
        started = time.monotonic()
        with log.open("w") as out:
            proc = subprocess.run(case_argv(case, data_dir, Path(tmp), threads, max_steps),
                                  env=case_env(case, threads), stdout=out,
                                  stderr=subprocess.STDOUT, cwd=tmp)
        wall = time.monotonic() - started
        text = log.read_text(errors="replace")
    if proc.returncode != 0:
        last = [line for line in text.splitlines() if line.strip()][-1:] or ["(no output)"]
        raise CaseFailed(f"{case.name}: exit {proc.returncode} after {wall:.1f} s: {last[0][:300]}",
                         text[-4000:])
    events, problems = parse_lines(text.splitlines())
    finished = [e.value for e in events if e.name == "FINISHED"]
    init = [e.value for e in events if e.name == "INIT_END"]
    if problems or len(finished) != 1:
        raise CaseFailed(f"{case.name}: {len(finished)} FINISHED record(s); problems: {problems}",
                         text[-4000:])
    return CaseRun(case, wall, (init[0] if init else {}).get("threads"), finished[0])


# ---------------------------------------------------------------- the table


def case_row(run: CaseRun, peak: float) -> list[str]:
    f = run.finished
    tput, per_unit = f["throughput"], float(f["flops_per_unit"])
    raw, compute = float(tput["raw"]), float(tput["pure_compute"])
    metric = f.get("metric") or {}
    return [run.case.name, str(run.threads), f"{run.wall_s:.1f}", f"{f['work_done']:,}",
            "yes" if f["converged"] else "no",
            f"{metric.get('name')} {metric.get('value'):.4g}" if metric.get("value") is not None
            else "-",
            f"{raw:,.1f}", f"{compute:,.1f}", tput["unit"], f"{per_unit / 1e6:,.2f}",
            f"{raw * per_unit / 1e9:.2f}", f"{compute * per_unit / 1e9:.2f}",
            f"{100 * raw * per_unit / peak:.1f}%", f"{100 * compute * per_unit / peak:.1f}%"]


HEADER = ["case", "threads", "wall s", "work done", "converged", "final metric",
          "raw", "compute", "unit", "MFLOP/unit", "GFLOP/s raw", "GFLOP/s compute",
          "peak share raw", "peak share compute"]


def print_table(rows: list[list[str]]) -> None:
    widths = [max(len(r[i]) for r in [HEADER, *rows]) for i in range(len(HEADER))]
    for row in [HEADER, *rows]:
        print("  ".join(c.rjust(w) if i else c.ljust(w)
                        for i, (c, w) in enumerate(zip(row, widths))))


def gemm_text(label: str, threads: int, per_size: dict[int, float]) -> str:
    sizes = ", ".join(f"{n}: {v / 1e9:.1f}" for n, v in per_size.items())
    return f"GEMM fp32 torch.mm {label}, {threads} thread(s), GFLOP/s by size: {sizes}"


# ---------------------------------------------------------------- main


def pick(cases: list[Case], names: str | None) -> list[Case]:
    if not names:
        return cases
    by_name = {c.name: c for c in cases}
    unknown = [n for n in names.split(",") if n not in by_name]
    if unknown:
        sys.exit(f"unknown case(s) {unknown}; choose from {', '.join(by_name)}")
    return [by_name[n] for n in names.split(",")]


def arguments(cases: list[Case]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cases", help="comma-separated: " + ",".join(c.name for c in cases))
    p.add_argument("--list", action="store_true", help="print the cases and their data; run none")
    p.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)),
                   help="threads of the case's one rank and of the GEMM (default: usable cores)")
    p.add_argument("--max-steps", type=int, default=None,
                   help="stop each case after this many steps (default: the CI config's own)")
    p.add_argument("--data-root", type=Path, default=DATA_ROOT)
    p.add_argument("--gemm-sizes", default="1024,1536,2048")
    p.add_argument("--gemm-reps", type=int, default=10)
    p.add_argument("--json", type=Path, help="also write the figures to this file")
    return p.parse_args()


def print_cases(cases: list[Case], left_out: list[str]) -> None:
    for case in cases:
        threads = "cpu_threads" if case.threads_param else "OMP_NUM_THREADS only"
        print(f"{case.name:28} {case.key:36} data {case.data.name} ({threads})")
    for line in left_out:
        print(f"left out: {line}")


def main() -> int:
    found, left_out = discover()
    args = arguments(found)
    if args.list:
        print_cases(found, left_out)
        return 0
    for line in left_out:
        print(f"left out: {line}", flush=True)
    cases = pick(found, args.cases)
    sizes = [int(n) for n in args.gemm_sizes.split(",")]
    print(f"load average before: {os.getloadavg()[0]:.1f}; {args.threads} thread(s)", flush=True)
    before = gemm_peak(args.threads, sizes, args.gemm_reps)
    print(gemm_text("before the cases", args.threads, before), flush=True)
    runs, failed = [], []
    for case in cases:   # a failing case is named and the others still run
        try:
            runs.append(run_case(case, ensure_data(case.data, args.data_root), args.threads,
                                 args.max_steps))
        except CaseFailed as exc:
            failed.append(str(exc))
            print(f"{exc}\n{exc.output}", flush=True)
            continue
        print(f"{case.name}: done in {runs[-1].wall_s:.1f} s", flush=True)
    after = gemm_peak(args.threads, sizes, args.gemm_reps)
    print(gemm_text("after the cases", args.threads, after))
    peak = max([*before.values(), *after.values()])
    print(f"peak (best of both): {peak / 1e9:.1f} GFLOP/s; load average after: "
          f"{os.getloadavg()[0]:.1f}\n")
    print_table([case_row(r, peak) for r in runs])
    mismatched = [r.case.name for r in runs if r.threads != args.threads]
    if mismatched:
        print(f"\nthreads differ from {args.threads} in: {', '.join(mismatched)}")
    if args.json:
        args.json.write_text(json.dumps({
            "threads": args.threads, "gemm_before": before, "gemm_after": after, "peak": peak,
            "cases": {r.case.name: {"wall_s": r.wall_s, "threads": r.threads,
                                    "finished": r.finished} for r in runs},
            "failed": failed}, indent=2))
    for line in failed:
        print(f"failed: {line}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
