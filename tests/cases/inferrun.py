"""Running an inference case's entry on this host as chipperf does (vendor cpu), for tests/cases/.

The entry in this process (``load_entry`` + ``argv``, then ``captured_events`` reads the PerfLog
it printed) or as a script (``run_entry`` with ``entry_env``), and the checks a finished run
passes (``finished_of``). ``cpu_vendor`` sets what chipperf puts in every launch environment
for vendor cpu (chipperf_runtime.device); ``engine_registry_kept`` undoes engines a test registers.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

REPO = Path(__file__).resolve().parents[2]
BENCH = REPO / "inference" / "benchmarks"
CONFIGS = REPO / "inference" / "configs"
ORDER = ["INIT_START", "SUBMIT_INFO", "INIT_END", "TRAIN_START", "TRAIN_END", "EVALUATE",
         "FINISHED"]

for _path in (str(BENCH), str(REPO)):   # common (as the case sees it); chipperf
    if _path not in sys.path:
        sys.path.insert(0, _path)

from chipperf_runtime.perflog import Event, finished_problems, parse_lines  # noqa: E402


def cpu_vendor(monkeypatch: Any, label: str | None = None) -> None:
    """CHIPPERF_VENDOR/DEVICE as the engine sets them for vendor cpu; CHIPPERF_CASE if given."""
    monkeypatch.setenv("CHIPPERF_VENDOR", "cpu")
    monkeypatch.setenv("CHIPPERF_DEVICE", "cpu")
    if label is not None:
        monkeypatch.setenv("CHIPPERF_CASE", label)


def load_entry(entry: Path, name: str) -> ModuleType:
    """The case's ``run_inference.py``, loaded afresh as module ``name``."""
    spec = importlib.util.spec_from_file_location(name, entry)
    assert spec is not None and spec.loader is not None, f"{entry} is not a module"
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def argv(config_dir: Path, data: Path, out: Path, *sets: str,
         vendor_file: str = "cpu_configuration.yaml") -> list[str]:
    """The arguments chipperf gives an inference entry; ``--set`` only where there are sets."""
    args = ["--data_dir", str(data), "--extern_config_dir", str(config_dir),
            "--extern_config_file", vendor_file, "--output_dir", str(out)]
    return args + (["--set", *sets] if sets else [])


def captured_events(capsys: Any) -> tuple[list[Event], str]:
    """The PerfLog events the entry printed (all of them well formed) and its stderr."""
    captured = capsys.readouterr()
    events, problems = parse_lines(captured.out.splitlines())
    assert problems == []
    return events, captured.err


def entry_env(**extra: str) -> dict[str, str]:
    """This environment with the launch contract's PYTHONPATH (chipperf, inference/benchmarks)."""
    return {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{BENCH}", **extra}


def run_entry(entry: Path, args: list[str], env: dict[str, str],
              timeout: int = 900) -> tuple[subprocess.CompletedProcess, list[Event]]:
    """``entry`` as a script, as one rank is launched; its PerfLog must be well formed."""
    proc = subprocess.run([sys.executable, "-u", str(entry), *args], env=env,
                          capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)
    events, problems = parse_lines(proc.stdout.splitlines())
    assert problems == []
    return proc, events


def finished_of(proc: subprocess.CompletedProcess, events: list[Event]) -> Mapping[str, Any]:
    """The FINISHED record of a run that exited 0 with every event in order."""
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert [e.name for e in events] == ORDER
    finished = events[-1].value
    assert finished_problems(finished, "inference") == []
    return finished


@contextmanager
def engine_registry_kept() -> Iterator[None]:
    """Engines registered inside do not leak into other tests (the registry is global)."""
    from chipperf_runtime.inference.engines import _ENGINES

    saved = dict(_ENGINES)
    try:
        yield
    finally:
        _ENGINES.clear()
        _ENGINES.update(saved)
