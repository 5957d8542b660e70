"""The base/ and operation/ suites' config: FlagPerf's ``<suite>/configs/host.yaml``.

One file holds the cluster part (HOSTS, SSH_PORT, MASTER_PORT, ...) and the test part
(VENDOR, NPROC_PER_NODE, CASES, image settings). Case keys, as FlagPerf writes them:

    base        "computation-FP32[:CHIP]": "<framework image folder>"      e.g. pytorch_2.13
    operation   "mm:FP16:312:nativetorch:A100_40_SXM": "<framework image folder>"
                (op:dtype:spec TFLOP/s:provider:chip; the spec number may be left out)

Each maps onto the engine's ``CaseKey`` (model:framework:chip:nnodes:nproc:repeat): a base
spec's model is its name and its topology follows from what it measures (SPEC_NODES);
an operator's model is ``<op>-<DTYPE>-<provider>`` (one case folder per op, see
``Catalogue.case_name``), its dtype, provider and spec peak reach the program as arguments.
A chip left out of the key is CHIP's, else the vendor's name (no spec sheet: shares of peak
are then absent with that reason). BENCHMARKS_OR_TOOLKITS (base/ only) picks the method: a
TOOLKIT spec's key model is ``<spec>-toolkit`` (docs/base-and-operation.md, "Toolkits").
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from chipperf.config.flagperf_aliases import chipperf_case_name
from chipperf.config.load import IGNORED, Fields, cluster_fields, finish, read_config, test_fields
from chipperf.config.model import CaseEntry, CaseKey, ClusterConfig, TestConfig
from chipperf.errors import ConfigError
from chipperf_runtime.base.methods import BENCHMARK, METHODS, TOOLKIT
from chipperf_runtime.base.methods import SUFFIX as TOOLKIT_SUFFIX

log = logging.getLogger(__name__)
SUITE_KEYS = {"chip", "nproc_per_node", "repeat", "benchmarks_or_toolkits", "hosts_ports",
              "device", "log_call_information"}
BASE_FORM = "spec[:chip] (e.g. computation-FP32 or computation-FP32:A100)"
OPERATION_FORM = "op:dtype:spec_tflops:provider:chip (e.g. mm:FP16:312:nativetorch:A100)"
# What chipperf_runtime/operation runs (its DTYPES and providers).
OPERATOR_DTYPES = ("FP64", "FP32", "FP16", "BF16", "INT32", "INT16")
OPERATOR_PROVIDERS = ("nativetorch", "flaggems")
# The operators that take only integer dtypes, and the only ones that take them (FlagPerf's
# bitwise operators; chipperf_runtime/operation/flagperf_ops.py INTS)
INTEGER_OPERATORS = frozenset({"bitwise_and", "bitwise_or", "bitwise_not"})
INTEGER_DTYPES = ("INT32", "INT16")
NO_DATA = "/tmp"   # specs and operators read no dataset; the contract still passes --data_dir


def load_spec_suite(path: str | Path, suite: str) -> tuple[ClusterConfig, TestConfig, list[str]]:
    """Both configs (defaults where a value was bad) and every problem found."""
    path = Path(path)
    read = read_config(path)
    if read.problems:
        raise ConfigError(read.problems)
    f = Fields.of(path, read)
    cluster = cluster_fields(f)
    nproc = f.get("nproc_per_node", int, 1, "use a whole number >= 1")
    repeat = f.get("repeat", int, 1, "use a whole number >= 1")
    chip = f.get("chip", str, "") or f.get("vendor", str, "")
    form = CASE_FORMS[suite]
    methods = _methods(f, form)
    raw = f.get("cases", lambda v: v, {})
    if not isinstance(raw, dict) or not raw:
        f.fail("cases", "no cases listed", f"set CASES to {{'{form.text}': 'pytorch_2.13'}}")
        raw = {}
    cases = []
    for text, framework in raw.items():
        try:
            cases.append(form.parse(str(text), str(framework), chip, nproc, repeat, cluster.hosts))
        except ValueError as exc:
            f.fail("cases", f"case {text!r}: {exc}")
    test = test_fields(f, tuple(_with_toolkits(cases, methods)), suite=suite)
    return cluster, test, finish(f, IGNORED | SUITE_KEYS)


def _methods(f: Fields, form: "CaseForm") -> tuple[str, ...]:
    """FlagPerf's BENCHMARKS_OR_TOOLKITS: BENCHMARK (the PyTorch program, the same on every
    vendor), TOOLKIT (each vendor's native program, base/toolkits/<spec>/<vendor>/main.sh),
    or both ("BENCHMARK,TOOLKIT", or a list): each spec then runs once per method."""
    raw = f.get("benchmarks_or_toolkits", lambda v: v, BENCHMARK.upper())
    words = raw if isinstance(raw, list) else str(raw).replace("+", ",").split(",")
    methods = tuple(dict.fromkeys(str(w).strip().lower() for w in words if str(w).strip()))
    allowed = METHODS if form.toolkits else (BENCHMARK,)
    wrong = [m for m in methods if m not in allowed]
    if wrong or not methods:
        f.fail("benchmarks_or_toolkits",
               f"{raw!r} is not a method this suite runs: use "
               + (' "BENCHMARK", "TOOLKIT" or "BENCHMARK,TOOLKIT"' if form.toolkits else
                  '"BENCHMARK" (or leave it out): operators have no vendor toolkits'))
        return (BENCHMARK,)
    return methods


def _with_toolkits(entries: list[CaseEntry], methods: tuple[str, ...]) -> list[CaseEntry]:
    """Each spec's entry per method: a toolkit's model is ``<spec>-toolkit`` (a case of its
    own: its own directory, key and workload fingerprint), its program the vendor's main.sh."""
    out = []
    for entry in entries:
        if BENCHMARK in methods:
            out.append(entry)
        if TOOLKIT in methods:
            key = dataclasses.replace(entry.key, model=entry.key.model + TOOLKIT_SUFFIX)
            out.append(dataclasses.replace(entry, key=key))
    return out


def spec_topology(spec: str, nproc: int, hosts: tuple[str, ...]) -> tuple[int, int]:
    """(nnodes, nproc per node) of a base spec; ValueError when the cluster cannot hold it."""
    if spec == "interconnect-P2P_intraserver":
        return 1, 2
    if spec == "interconnect-P2P_interserver":
        _two_hosts(spec, hosts)
        return 2, 1
    if spec == "interconnect-MPI_intraserver":
        if nproc < 2:
            raise ValueError(f"{spec} all-reduces across the ranks of one server and "
                             f"NPROC_PER_NODE is {nproc}: set NPROC_PER_NODE >= 2")
        return 1, nproc
    if spec == "interconnect-MPI_interserver":
        _two_hosts(spec, hosts)
        return len(hosts), nproc
    return 1, nproc


def _two_hosts(spec: str, hosts: tuple[str, ...]) -> None:
    if len(hosts) < 2:
        raise ValueError(f"{spec} measures between servers and HOSTS lists {len(hosts)} host: "
                         "list at least 2 hosts")


def _base_entry(text: str, framework: str, chip: str, nproc: int, repeat: int,
                hosts: tuple[str, ...]) -> CaseEntry:
    parts = text.split(":")
    if len(parts) > 2:
        raise ValueError(f"has {len(parts)} ':'-separated parts: write it as {BASE_FORM}")
    spec = parts[0]
    nnodes, per_node = spec_topology(spec, nproc, hosts)
    key = _key(spec, framework, parts[1] if len(parts) == 2 else chip, nnodes, per_node, repeat)
    return CaseEntry(key, NO_DATA)


def _operation_entry(text: str, framework: str, chip: str, nproc: int, repeat: int,
                     hosts: tuple[str, ...]) -> CaseEntry:
    parts = text.split(":")
    if len(parts) == 4:                       # op:dtype:provider:chip (no spec number)
        parts = [parts[0], parts[1], "0", parts[2], parts[3]]
    if len(parts) != 5:
        raise ValueError(f"has {len(parts)} ':'-separated parts: write it as {OPERATION_FORM}")
    op, dtype, peak, provider, key_chip = parts
    if chipperf_case_name("operation", op) != op:
        log.warning("operator %s is FlagPerf's name of chipperf's %s: running %s "
                    "(docs/flagperf-names.md)", op, *[chipperf_case_name("operation", op)] * 2)
        op = chipperf_case_name("operation", op)
    if dtype.upper() not in OPERATOR_DTYPES:
        raise ValueError(f"dtype {dtype!r} is not one the operators run in: use one of "
                         f"{', '.join(OPERATOR_DTYPES)}")
    _operator_takes(op, dtype.upper())
    if provider.lower() not in OPERATOR_PROVIDERS:
        raise ValueError(f"provider {provider!r} is unknown: use one of "
                         f"{', '.join(OPERATOR_PROVIDERS)}")
    try:
        tflops = float(peak)
    except ValueError:
        raise ValueError(f"spec peak {peak!r} is not a number of TFLOP/s") from None
    key = _key(f"{op}-{dtype.upper()}-{provider.lower()}", framework, key_chip or chip, 1, 1,
               repeat)
    args = ("--dtype", dtype.upper(), "--provider", provider.lower(), "--spec_tflops", f"{tflops:g}")
    return CaseEntry(key, NO_DATA, case_args=args)


def _operator_takes(op: str, dtype: str) -> None:
    """ValueError when ``op`` does not run in ``dtype`` (integers: the bitwise operators only)."""
    if op in INTEGER_OPERATORS and dtype not in INTEGER_DTYPES:
        raise ValueError(f"{op} runs on integers: use dtype {' or '.join(INTEGER_DTYPES)}")
    if op not in INTEGER_OPERATORS and dtype in INTEGER_DTYPES:
        raise ValueError(f"dtype {dtype} is for the bitwise operators only "
                         f"({', '.join(sorted(INTEGER_OPERATORS))}): use FP64, FP32, FP16 or BF16")


def _key(model: str, framework: str, chip: str, nnodes: int, nproc: int, repeat: int) -> CaseKey:
    return CaseKey.parse(f"{model}:{framework}:{chip}:{nnodes}:{nproc}:{repeat}")


@dataclass(frozen=True)
class CaseForm:
    """How a spec suite's host.yaml writes a case key, and what reads it."""

    text: str                    # the form, for messages
    parse: Callable[[str, str, str, int, int, tuple[str, ...]], CaseEntry]
    toolkits: bool               # FlagPerf's BENCHMARKS_OR_TOOLKITS may name TOOLKIT (base/ only)


CASE_FORMS = {"base": CaseForm(BASE_FORM, _base_entry, toolkits=True),
              "operation": CaseForm(OPERATION_FORM, _operation_entry, toolkits=False)}
