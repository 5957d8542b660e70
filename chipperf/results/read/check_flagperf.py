"""``chipperf check`` on a FlagPerf result directory: what FlagPerf promises, nothing more.

Chosen by ``is_flagperf_dir`` (no run.json, and a case dir holding ``round<N>/`` or, for
inference, ``<host>_noderank<K>/`` dirs). FlagPerf writes no run.json, status files,
launcher.log or sys_info.json and its monitors write text lines, so none of those is asked
for. What is checked, every problem listed as ``path[:line]: what``:

- case dirs: training ``model:framework:chip:nnodes:nproc:repeat`` with round1..round<repeat>;
  inference ``model:framework`` holding the node dir directly;
- per round: node dirs ``<host>_noderank<K>``, K = 0..nnodes-1, each once;
- per node: ``cpu_monitor.log``, ``mem_monitor.log``, ``pwr_monitor.log``; rank logs named by
  global rank (``rank<R>.out.log``, R in node K's ranks), or one per node
  (``noderank<K>.out.log`` tensorflow2, ``rank0.log.txt`` deepspeed/megatron);
- every PerfLog line: JSON, an event of FlagPerf's set, ``metadata.time_ms`` never going
  back, ``metadata.rank`` the process's LOCAL rank (FlagPerf's loggers number ranks per
  node; the global rank is accepted too);
- global rank 0's log: PerfLog INIT_START and a FINISHED with a throughput or end-to-end time,
  or an LLM case's summary lines (``System tokens per second``, ``MFU``); inference: a
  ``Finish Info {...}`` line in ``container.out.log``. A log cut short is one problem naming
  its last line;
- every monitor line in FlagPerf's text format, timestamps never going back per device.
"""

from __future__ import annotations

import re
from pathlib import Path

from chipperf.results.read.check import ROUND_DIR, Report, subdirs
from chipperf.results.read.flagperf import RANK_ZERO_LOGS, case_identity, text_records
from chipperf.results.read.flagperf_text import parse_finish_info, parse_llm_log
from chipperf.results.read.samples import read_lines
from chipperf_runtime.perflog import EVENTS, MARKER, normalize_finished, parse_record

# FlagPerf's chipperf_runtime/training/driver/event.py events beyond chipperf's own.
FLAGPERF_EVENTS = frozenset(EVENTS) | {
    "STEP_BEGIN", "BACKWARD", "INIT_EVALUATION", "LAUNCH_TRAINING", "CONVERT_MODEL",
    "CREATE_OPTIMIZER", "MODEL_TO_FP16", "MODEL_TO_DDP"}
MONITORS = ("cpu_monitor.log", "mem_monitor.log", "pwr_monitor.log")
NODE_DIR = re.compile(r"^.+_noderank(\d+)$")
RANK_LOG = re.compile(r"^rank(\d+)\.out\.log$")
NODE_LOGS = ("noderank{k}.out.log", "rank0.log.txt")


def is_flagperf_dir(run_dir: Path) -> bool:
    """No run.json, and at least one case dir in FlagPerf's layout."""
    if (run_dir / "run.json").exists():
        return False
    return any(ROUND_DIR.match(r.name) or NODE_DIR.match(r.name)
               for case in subdirs(run_dir) for r in subdirs(case))


def check_flagperf(run_dir: Path) -> Report:
    report = Report()
    for case_dir in subdirs(run_dir):
        rounds = sorted((int(m[1]), p) for p in subdirs(case_dir) if (m := ROUND_DIR.match(p.name)))
        if rounds:
            _training_case(case_dir, rounds, report)
        elif any(NODE_DIR.match(p.name) for p in subdirs(case_dir)):
            _inference_case(case_dir, report)
    return report


def _training_case(case_dir: Path, rounds: list[tuple[int, Path]], report: Report) -> None:
    report.cases += 1
    name = case_dir.name
    ident = case_identity(name)
    if not ident:
        report.add(f"{name}/", "not FlagPerf's case key model:framework:chip:nnodes:nproc:repeat")
    repeat = ident.get("repeat")
    if isinstance(repeat, int):
        for number in sorted(set(range(1, repeat + 1)) - {n for n, _ in rounds}):
            report.add(f"{name}/round{number}/", f"missing (the case key says {repeat} rounds)")
    nnodes, nproc = ident.get("nnodes"), ident.get("nproc")
    for number, round_dir in rounds:
        report.rounds += 1
        _round(round_dir, f"{name}/round{number}", nnodes if isinstance(nnodes, int) else None,
               nproc if isinstance(nproc, int) else None, report)


def _round(round_dir: Path, rel: str, nnodes: int | None, nproc: int | None,
           report: Report) -> None:
    nodes: dict[int, Path] = {}
    for path in subdirs(round_dir):
        match = NODE_DIR.match(path.name)
        if not match:
            report.add(f"{rel}/{path.name}/", "not a <host>_noderank<K> dir")
        elif int(match[1]) in nodes:
            report.add(f"{rel}/{path.name}/", f"node rank {match[1]} twice (also "
                                               f"{nodes[int(match[1])].name})")
        else:
            nodes[int(match[1])] = path
    expected = range(nnodes) if nnodes else range(max(nodes, default=-1) + 1)
    for k in expected:
        if k not in nodes:
            report.add(f"{rel}/", f"no <host>_noderank{k} dir" + (
                f" (the case key says {nnodes} nodes)" if nnodes else ""))
    for k, path in sorted(nodes.items()):
        if nnodes and k >= nnodes:
            report.add(f"{rel}/{path.name}/", f"node rank {k} in a case of {nnodes} nodes")
        _training_node(path, f"{rel}/{path.name}", k, nproc, report)


def _training_node(node_dir: Path, rel: str, k: int, nproc: int | None, report: Report) -> None:
    report.nodes += 1
    _monitors(node_dir, rel, report)
    for path in sorted(node_dir.iterdir()):
        match = RANK_LOG.match(path.name)
        if match:
            rank = int(match[1])
            if nproc and not k * nproc <= rank < (k + 1) * nproc:
                report.add(f"{rel}/{path.name}", f"global rank {rank} is not one of node {k}'s "
                                                 f"ranks {k * nproc}..{(k + 1) * nproc - 1}")
            local = rank - k * nproc if nproc else None
            _rank_log(path, f"{rel}/{path.name}", (local, rank), rank == 0, report)
        elif path.name in (NODE_LOGS[0].format(k=k), NODE_LOGS[1]):
            _rank_log(path, f"{rel}/{path.name}", None, k == 0, report)
    if k == 0 and not any((node_dir / n).is_file() for n in RANK_ZERO_LOGS):
        report.add(f"{rel}/", "no log of global rank 0 (" + ", ".join(RANK_ZERO_LOGS) + ")")


def _inference_case(case_dir: Path, report: Report) -> None:
    report.cases += 1
    report.rounds += 1
    name = case_dir.name
    if len(name.split(":")) < 2:
        report.add(f"{name}/", "not FlagPerf's inference case key model:framework")
    nodes = [p for p in subdirs(case_dir) if NODE_DIR.match(p.name)]
    for path in nodes:
        report.nodes += 1
        rel = f"{name}/{path.name}"
        _monitors(path, rel, report)
        log = path / "container.out.log"
        if not log.is_file():
            report.add(f"{rel}/container.out.log", "missing (the case's log with its Finish Info)")
            continue
        _, problems = parse_finish_info(text for _, text, _ in read_lines(log))
        for problem in problems:
            _line_problem(f"{rel}/container.out.log", problem, report)


# ---------------------------------------------------------------- logs


def _rank_log(path: Path, rel: str, ranks: tuple[int | None, int] | None, rank_zero: bool,
              report: Report) -> None:
    """PerfLog grammar of one log; ``ranks``: (local, global) ranks its metadata may name."""
    seen: dict[str, int] = {}
    finished: dict | None = None
    last_ms: int | None = None
    last_line = 0
    for number, text, clean in read_lines(path):
        last_line = number
        if not clean:
            report.add(f"{rel}:{number}", "not valid UTF-8")
        at = text.find(MARKER)
        if at < 0:
            continue
        report.perflog_lines += 1
        event, problem = parse_record(text[at + len(MARKER):].strip(), number)
        if problem is not None and not (event is not None and event.name in FLAGPERF_EVENTS):
            report.add(f"{rel}:{number}", problem.message)
        if event is None:
            continue
        where = f"{rel}:{number}"
        if event.time_ms is None:
            report.add(where, f"{event.name}: metadata.time_ms missing or not a number")
        elif last_ms is not None and event.time_ms < last_ms:
            report.add(where, f"{event.name}: time_ms {event.time_ms} is before the previous "
                              f"event's {last_ms}")
        else:
            last_ms = event.time_ms
        if ranks is not None and event.rank not in ranks:
            report.add(where, f"{event.name}: metadata.rank {event.rank} is neither this "
                              f"process's local rank {ranks[0]} nor its global rank {ranks[1]}")
        seen.setdefault(event.name, number)
        if event.name == "FINISHED":
            finished = dict(event.value)
    if rank_zero:
        _rank_zero(path, rel, seen, finished, last_line, report)


def _rank_zero(path: Path, rel: str, seen: dict[str, int], finished: dict | None,
               last_line: int, report: Report) -> None:
    if not seen:      # no PerfLog at all: an LLM case's summary lines stand for FINISHED
        _, problems = parse_llm_log(text for _, text, _ in read_lines(path))
        for problem in problems:
            _line_problem(rel, problem, report)
        return
    if "INIT_START" not in seen:
        report.add(rel, "no INIT_START event (global rank 0)")
    if finished is None:
        report.add(f"{rel}:{last_line}", "the log ends without a FINISHED event: the case did "
                                         "not finish (or the log is truncated)")
        return
    value = normalize_finished(finished)
    if not value.get("throughput") and value.get("e2e_time_s") is None:
        report.add(f"{rel}:{seen['FINISHED']}", "FINISHED has neither a throughput nor "
                                                "e2e_time (FlagPerf's keys)")


def _line_problem(rel: str, problem: str, report: Report) -> None:
    """A parser's 'line N: what' as 'rel:N: what'."""
    line, _, message = problem.removeprefix("line ").partition(": ")
    if line.isdigit():
        report.add(f"{rel}:{line}", message)
    else:
        report.add(rel, problem)


def _monitors(node_dir: Path, rel: str, report: Report) -> None:
    for name in MONITORS:
        if not (node_dir / name).is_file():
            report.add(f"{rel}/{name}", "missing (FlagPerf's sys_monitor writes it)")
    for path in sorted(node_dir.glob("*_monitor.log")):
        _monitor(path, f"{rel}/{path.name}", report)


class _Lines:
    """Takes a monitor reader's problems straight into the report (all of them)."""

    def __init__(self, rel: str, report: Report):
        self.rel, self.report = rel, report

    def problem(self, line: int, message: str) -> None:
        self.report.add(f"{self.rel}:{line}", message)


def _monitor(path: Path, rel: str, report: Report) -> None:
    last: dict[object, int] = {}
    for number, ts, device, _ in text_records(path, read_lines(path), _Lines(rel, report)):
        report.monitor_lines += 1
        if ts < last.get(device, ts):
            report.add(f"{rel}:{number}", "timestamp earlier than the previous sample's")
        last[device] = max(ts, last.get(device, ts))

