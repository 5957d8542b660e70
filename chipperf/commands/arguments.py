"""Command-line values checked where they are parsed: argparse types for numbers with bounds,
and the checks of a path a command reads or writes, made before anything is created.

An argparse type raises ``argparse.ArgumentTypeError``: argparse then prints
``chipperf CMD: error: argument --k: ...`` with the usage line and exits 2. A path check
returns the problem as ``where: what is wrong: how to fix`` (None when there is none)."""

from __future__ import annotations

import argparse
import math
import os
from pathlib import Path
from typing import Callable

from chipperf.errors import ConfigError


def port_number(text: str) -> int:
    """A TCP port to listen on: 1..65535 (0 would pick a random one no one can find)."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number: use 1..65535") from None
    if not 0 < port < 65536:
        raise argparse.ArgumentTypeError(f"{port} is outside 1..65535: use a port in that range")
    return port


def number_at_least(least: float, strictly: bool = False) -> Callable[[str], float]:
    """A finite number >= ``least`` (> with ``strictly``)."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not math.isfinite(value) or value < least or (strictly and value == least):
            bound = f"{'more than' if strictly else 'at least'} {least:g}"
            raise argparse.ArgumentTypeError(f"{text}: give a number {bound}")
        return value
    return parse


def whole_at_least(least: int) -> Callable[[str], int]:
    """A whole number >= ``least``."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"{value}: give a whole number of at least {least}")
        return value
    return parse


def output_file_problem(path: Path, option: str) -> str | None:
    """Why ``path`` cannot be written as a new or replaced file (None: it can)."""
    path = Path(path)
    folder = path.absolute().parent
    if path.is_dir():
        return f"{option} {path}: is a folder: give a file name, e.g. {path / 'leaderboard.html'}"
    if not folder.is_dir():
        return f"{option} {path}: the folder {folder} does not exist: create it or write elsewhere"
    if not os.access(folder, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
        return (f"{option} {path}: not writable by this user: choose a place you can write, "
                "or fix its permissions")
    return None


def output_dir_problem(path: Path, option: str) -> str | None:
    """Why ``path`` cannot be the folder files are written into (None: it can be, or made)."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        return f"{option} {path}: is a file, not a folder: give a folder (it is made if missing)"
    return None


def vendor_problem(vendor: str, option: str) -> str | None:
    """Why ``vendor`` names no vendor module (None: it names one)."""
    from chipperf.config.limits import did_you_mean
    from chipperf_runtime.vendors import vendor_names

    if vendor in vendor_names():
        return None
    return (f"{option} {vendor}: no such vendor{did_you_mean(vendor, vendor_names())}: "
            f"use one of {', '.join(vendor_names())}")


def check_monitor_args(out: Path, vendor: str) -> None:
    """ConfigError (exit 2, nothing made) for `chipperf monitor`'s --out and --vendor."""
    problems = [p for p in (output_dir_problem(out, "--out"), vendor_problem(vendor, "--vendor"))
                if p]
    if problems:
        raise ConfigError(problems, kind="argument")


def run_dir_problem(run_dir: Path, has_fallback: bool = False) -> str | None:
    """Why ``run_dir`` is not a result directory chipperf wrote (None: it is one).
    ``has_fallback``: its record lies in the fallback place (a full result root)."""
    run_dir = Path(run_dir)
    if not run_dir.exists():
        return f"{run_dir}: no such directory: give a result/run<timestamp> directory"
    if not run_dir.is_dir():
        return f"{run_dir}: not a directory: give a result/run<timestamp> directory"
    if not (run_dir / "run.json").is_file() and not has_fallback:
        return (f"{run_dir}: not a run directory (no run.json): give a result/run<timestamp> "
                "directory that `chipperf run` wrote")
    return None


def refuse_unless_run_dir(run_dir: Path, flagperf: bool = True) -> None:
    """ConfigError (exit 2, nothing written) when ``run_dir`` is no result directory: no
    run.json, no fallback copy of it, and (``flagperf``) no FlagPerf result tree."""
    from chipperf.results.layout import fallback_record
    from chipperf.results.read.check_flagperf import is_flagperf_dir

    known = fallback_record(run_dir.name) is not None or \
        (flagperf and run_dir.is_dir() and is_flagperf_dir(run_dir))
    problem = run_dir_problem(run_dir, known)
    if problem:
        raise ConfigError([problem], kind="argument")


def check_report_args(run_dir: Path, measured_peaks: Path | None) -> None:
    """ConfigError (exit 2, nothing written) for `chipperf report`'s RUN_DIR and
    --measured-peaks."""
    refuse_unless_run_dir(run_dir)
    refuse_unless_base_run(measured_peaks)


def refuse_unless_base_run(run_dir: Path | None, option: str = "--measured-peaks") -> None:
    """ConfigError (exit 2, no report written) when ``run_dir`` (None: not given) is no base/
    run whose GEMM peaks can be read, as plan refuses MEASURED_PEAKS."""
    from chipperf.results.compute.measured import read_measured_peaks

    if run_dir is None:
        return
    peaks, problems = read_measured_peaks(run_dir)
    if peaks is None:
        raise ConfigError([f"{option} {run_dir}: {p}: give a base/ run directory of the same "
                           "vendor and chip" for p in problems], kind="argument")


def check_db_option(db_url: str | None, no_ingest: bool = False) -> None:
    """ConfigError (exit 2, before anything runs) for a --db the run or collect would find
    unusable only at its end: a URL whose database kind this install cannot open, or a file
    path in a folder that does not exist."""
    if not db_url or no_ingest:
        return
    if "://" not in db_url:
        folder = Path(db_url).absolute().parent
        if not folder.is_dir():
            raise ConfigError([f"--db {db_url}: the folder {folder} does not exist: create it, "
                               "or give another file or a database URL"], kind="argument")
        return
    import sqlalchemy as sa

    try:
        sa.make_url(db_url).get_dialect()
    except (sa.exc.ArgumentError, sa.exc.NoSuchModuleError, ImportError) as exc:
        raise ConfigError([f"--db {db_url}: not a database URL this install can open "
                           f"({str(exc).splitlines()[0]}): use sqlite:///FILE or "
                           "postgresql://..."], kind="argument") from None
