"""What report.html shows of a case besides its figures, read from the run directory:

- the workload: the data dir (run.json) and its dataset card, image size or sequence length,
  global batch, precision (the workload fingerprint; a swept axis: its values, from run.json's
  rounds' points) and steps (the last STEP_END);
- the hardware and software of every node (``sys_info.json``: CPU, memory, accelerators and
  their driver, OS, Docker, framework versions) and the case's image;
- the smoke-test label, when the dataset card says why its figures do not compare;
- per round, the loss (STEP_END) and target-metric (EVALUATE) curves of global rank 0;
- per round and node, every log file, as paths relative to the run directory.

Missing files leave a field empty or say why; nothing here raises on a bad run directory.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chipperf.config.sweep import BATCH, PRECISION, SEQUENCE, axis_role
from chipperf.results.compute.schema import CaseResult, RunSummary, suite_kind
from chipperf.results.read.samples import read_lines
from chipperf.results.read.tolerant import as_list
from chipperf_runtime.perflog import Event, iter_records

Points = tuple[tuple[float, float], ...]

LOGS = ("*.log", "status", "sys_info.json")


@dataclass(frozen=True)
class RoundCurves:
    number: int
    loss: Points = ()                  # (seconds since TRAIN_START, loss), STEP_END
    metric: Points = ()                # (seconds since TRAIN_START, value), EVALUATE
    metric_name: str = ""
    target: float | None = None


@dataclass(frozen=True)
class NodeLogs:
    round: int
    node: str
    files: tuple[str, ...]             # relative to the run directory


@dataclass(frozen=True)
class CaseDetails:
    workload: tuple[tuple[str, str], ...] = ()
    hardware: tuple[tuple[str, str], ...] = ()
    software: tuple[tuple[str, str], ...] = ()
    smoke: str = ""                    # why this case's figures are a smoke test's ("" if not)
    curves: tuple[RoundCurves, ...] = ()
    logs: tuple[NodeLogs, ...] = ()


def read_details(run_dir: Path, summary: RunSummary) -> dict[str, CaseDetails]:
    """CaseDetails per case dir name."""
    run = read_json(run_dir / "run.json")
    listed = as_dict(run.get("cases"))
    engines = _distinct(as_dict(h).get("docker_version") for h in as_dict(run.get("hosts")).values())
    return {case.dir_name: case_details(run_dir, case, as_dict(listed.get(case.dir_name)), engines)
            for case in summary.cases}


def case_details(run_dir: Path, case: CaseResult, entry: Mapping[str, Any],
                 engines: str = "") -> CaseDetails:
    """``engines``: the hosts' Docker engine versions as run.json recorded them."""
    rounds = [(r.number, run_dir / case.dir_name / f"round{r.number}") for r in case.rounds]
    events = {n: _rank0_events(d) for n, d in rounds}
    submit = next((e for n, _ in rounds for e in events[n] if e.name == "SUBMIT_INFO"), None)
    info = submit.value if submit is not None else {}
    card = as_dict(info.get("dataset"))
    infos = [read_json(p) for _, d in rounds[:1] for p in sorted(d.glob("*/sys_info.json"))]
    return CaseDetails(
        workload=_workload(case, entry, as_dict(info.get("config")), card, events),
        hardware=_hardware(case, infos), software=_software(case, infos, engines),
        smoke=str(card.get("smoke_test") or ""),
        curves=tuple(_curves(n, events[n]) for n, _ in rounds),
        logs=tuple(log for n, d in rounds for log in _node_logs(run_dir, n, d)))


# ---------------------------------------------------------------- events


def _rank0_events(round_dir: Path) -> list[Event]:
    """Global rank 0's events: rank0.out.log of the lowest node rank's dir."""
    nodes = sorted(round_dir.glob("*_noderank*/rank0.out.log"), key=lambda p: _rank(p.parent.name))
    if not nodes:
        return []
    try:
        lines = (text for _, text, _ in read_lines(nodes[0]))
        return [event for event, _ in iter_records(lines) if event is not None]
    except OSError:
        return []


def _rank(name: str) -> int:
    tail = name.rsplit("_noderank", 1)[-1]
    return int(tail) if tail.isdigit() else 1 << 30


def _curves(number: int, events: Sequence[Event]) -> RoundCurves:
    start = next((e.time_ms for e in events if e.name == "TRAIN_START"), None)
    if start is None:
        start = next((e.time_ms for e in events if e.time_ms is not None), 0)

    def points(name: str, key: str) -> Points:
        return tuple(((e.time_ms - start) / 1000, float(e.value[key])) for e in events
                     if e.name == name and e.time_ms is not None and _number(e.value.get(key)))

    evaluated = [e for e in events if e.name == "EVALUATE"]
    last = evaluated[-1].value if evaluated else {}
    target = last.get("target")
    return RoundCurves(number, loss=points("STEP_END", "loss"), metric=points("EVALUATE", "value"),
                       metric_name=str(last.get("name") or ""),
                       target=float(target) if isinstance(target, (int, float)) else None)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


# ---------------------------------------------------------------- workload


def _workload(case: CaseResult, entry: Mapping[str, Any], config: Mapping[str, Any],
              card: Mapping[str, Any], events: Mapping[int, Sequence[Event]]) -> tuple:
    """The case's workload fingerprint (compute/fingerprint.py: the case's typed workload),
    with the data dir, the dataset card's name and the steps each round logged."""
    if suite_kind(case.suite) == "spec":
        return _measured(case, config)
    fp = case.fingerprint
    data = str(entry.get("data_dir") or "")
    named = str(card.get("name") or (fp.dataset if fp is not None else "") or "")
    rows = [("dataset", f"{named} ({data})" if named and data else named or data)]
    size = fp.image_size if fp is not None else None
    if size is not None:
        rows.append(("image size", f"{size}x{size}"))
    swept = _swept(entry)
    seq = fp.seq_len if fp is not None else None
    if seq is not None or SEQUENCE in swept:
        rows.append(("sequence length", swept.get(SEQUENCE) or str(seq)))
    batch = fp.global_batch if fp is not None else None
    rows.append(("global batch", swept.get(BATCH) or ("" if batch is None else str(batch))))
    dtypes = sorted({r.dtype for r in case.rounds if r.dtype}) or \
        [str(x) for x in ((fp.precision if fp is not None else None), config.get("dtype")) if x][:1]
    rows.append(("precision", swept.get(PRECISION) or ", ".join(dtypes)))
    if case.inference:                  # no steps: its work is items and queries
        return tuple((k, v or "not in the logs") for k, v in rows)
    steps = [max((int(e.value["step"]) for e in evs if e.name == "STEP_END"
                  and _number(e.value.get("step"))), default=None) for evs in events.values()]
    shown = [str(s) for s in steps if s is not None]
    limits = ", ".join(f"{k} {config[k]}" for k in ("max_steps", "max_epochs") if config.get(k))
    rows.append(("steps (per round, last logged)", ", ".join(shown)
                 + (f" (limits: {limits})" if limits else "")))
    return tuple((k, v or "not in the logs") for k, v in rows)


def _swept(entry: Mapping[str, Any]) -> dict[str, str]:
    """Role -> 'swept (seq_len): 16, 32, 128' for each axis of the case's sweep (its rounds'
    points, run.json): the fingerprint holds one point's value, not the case's."""
    values: dict[str, list[Any]] = {}
    for rnd in as_list(entry.get("rounds")):
        for param, value in as_dict(as_dict(rnd).get("point")).items():
            seen = values.setdefault(str(param), [])
            seen += [] if value in seen else [value]
    return {role: f"swept ({param}): {', '.join(map(str, seen))}; see the Sweep part"
            for param, seen in values.items() if (role := axis_role(param)) is not None}


def _measured(case: CaseResult, config: Mapping[str, Any]) -> tuple:
    """base/ and operation/: what was measured and in which dtype (the method table has the
    sizes, iterations and timing)."""
    dtypes = sorted({r.dtype for r in case.rounds if r.dtype})
    what = next((str(r.method["what"]) for r in case.rounds if r.method and r.method.get("what")),
                "")
    rows = [("benchmark", case.model or case.dir_name), ("measures", what),
            ("precision", ", ".join(dtypes)),
            ("settings", ", ".join(f"{k} {v}" for k, v in config.items()))]
    return tuple((k, v or "not in the logs") for k, v in rows)


# ---------------------------------------------------------------- hardware and software


def _hardware(case: CaseResult, infos: Sequence[Mapping[str, Any]]) -> tuple:
    chips = f"{case.nnodes or '?'} node(s) x {case.nproc or '?'} process(es)"
    accel = [as_dict(i.get("accelerators")) for i in infos]
    per_node = _distinct(f"{a['count']} x {a['model']}" if a.get("count") and a.get("model")
                         else a.get("note") or a.get("unavailable") for a in accel)
    cpus = _distinct(f"{as_dict(i.get('cpu')).get('model')} ({as_dict(i.get('cpu')).get('logical_cpus')}"
                     " logical CPUs)" for i in infos if as_dict(i.get("cpu")).get("model"))
    memory = _distinct(_gib(as_dict(i.get("memory")).get("total_bytes")) for i in infos)
    missing = "not in sys_info.json" if infos else "no sys_info.json"
    return tuple((k, v or missing) for k, v in (
        ("chip", f"{case.vendor or '?'} {case.chip_label or '?'}, {chips}"),
        ("accelerators per node", per_node),
        ("CPU per node", cpus), ("memory per node", memory)))


def _software(case: CaseResult, infos: Sequence[Mapping[str, Any]], engines: str) -> tuple:
    frameworks = _distinct(
        ", ".join(f"{name} {v['version']}" for name, v in as_dict(i.get("frameworks")).items()
                  if isinstance(v, dict) and v.get("version")) for i in infos)
    drivers = _distinct(" ".join(str(a[k]) for k in ("driver_version", "runtime_version")
                                 if a.get(k)) for a in (as_dict(i.get("accelerators"))
                                                        for i in infos))
    docker = engines or _distinct(as_dict(i.get("docker")).get("server_version") for i in infos)
    missing = "not in sys_info.json" if infos else "no sys_info.json"
    os_ = _distinct(f"{as_dict(i.get('os')).get('name')}, kernel "
                    f"{as_dict(i.get('kernel')).get('release')}" for i in infos if i.get("os"))
    return tuple((k, v or why) for k, v, why in (
        ("image", case.image or "", "not recorded"),
        ("frameworks", frameworks, missing),
        ("accelerator driver", drivers, "none reported (a CPU vendor has none)"),
        ("Docker engine", docker, missing),
        ("OS", os_, missing)))


def _distinct(values: Any) -> str:
    return " / ".join(dict.fromkeys(str(v) for v in values if v))


def _gib(value: Any) -> str:
    return f"{value / 2**30:.1f} GiB" if _number(value) else ""


# ---------------------------------------------------------------- logs


def _node_logs(run_dir: Path, number: int, round_dir: Path) -> list[NodeLogs]:
    out = []
    for node in sorted((p for p in round_dir.glob("*_noderank*") if p.is_dir()),
                       key=lambda p: _rank(p.name)):
        files = sorted({str(f.relative_to(run_dir)) for pattern in LOGS
                        for f in node.glob(pattern) if f.is_file()})
        out.append(NodeLogs(number, node.name, tuple(files)))
    return out


# ---------------------------------------------------------------- tolerant readers


def read_json(path: Path) -> dict[str, Any]:
    """A JSON object file, or {} where it is missing, unreadable or not an object."""
    try:
        value = json.loads(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
