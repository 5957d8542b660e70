"""`chipperf run|plan|report|compare|check|ingest|history|leaderboard|serve|monitor|cases|clean|
collect`: parse, call one function,
map errors."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Sequence

from chipperf.commands.arguments import (
    check_db_option,
    check_monitor_args,
    check_report_args,
    number_at_least,
    refuse_unless_run_dir,
)
from chipperf.commands.configs import (
    add_case_root,
    add_config_options,
    load_all,
    load_for,
    load_inference_all,
    load_spec_suite_all,
    verdict,
)
from chipperf.commands.endscreen import final_screen, ingest_screen, shown_path
from chipperf.commands.process import setup_logging, sigterm_as_interrupt
from chipperf.config import load_cluster
from chipperf.errors import ChipperfError, ConfigError
from chipperf.plan import make_plan
from chipperf.results.layout import new_run_id
from chipperf.store.commands import DB_HELP, add_store_commands
from chipperf.suites import DEFAULT_SUITE, get_suite, suite_names
from chipperf_runtime.monitors.command import DEFAULT_INTERVAL_S

if TYPE_CHECKING:
    from chipperf.run.clusterlease import Wait

    Subparsers = argparse._SubParsersAction[argparse.ArgumentParser]

# load_* and verdict (commands/configs.py) and the end screen (commands/endscreen.py) are named
# here too: entry scripts, selfbench and tests call them as chipperf.cli's
__all__ = ["EXIT_BROKEN_PIPE", "EXIT_CONFIG", "EXIT_FAILED", "EXIT_INTERRUPTED", "EXIT_OK",
           "add_config_options", "entry_main", "entry_parser", "final_screen", "ingest_screen",
           "load_all", "load_for", "load_inference_all", "load_spec_suite_all", "main", "parser",
           "shown_path", "verdict"]
log = logging.getLogger("chipperf")

EXIT_OK, EXIT_FAILED, EXIT_CONFIG, EXIT_INTERRUPTED = 0, 1, 2, 130
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, what a shell reports for a writer whose reader left


def cmd_run(args: argparse.Namespace) -> int:
    from chipperf.run import controller

    cluster, test, catalogue = load_for(args)
    check_db_option(getattr(args, "db", None), getattr(args, "no_ingest", False))
    if cluster.executor == "slurm":
        from chipperf.slurm import executor

        outcome = executor.run(cluster, test, catalogue, suite=test.suite, debug=args.debug,
                               wait=wait_policy(args))
    else:
        outcome = controller.run(cluster, test, catalogue, suite=test.suite, debug=args.debug,
                                 wait=wait_policy(args))
    print(final_screen(outcome.run_dir, outcome.cases, test.skipped), end="")
    if not getattr(args, "no_ingest", False):
        print(ingest_screen(outcome.run_dir, getattr(args, "db", None)), end="")
    return EXIT_OK if outcome.ok else EXIT_FAILED


def wait_policy(args: argparse.Namespace) -> "Wait | None":
    """--wait / --wait-timeout: how a run meets hosts another run holds (None: refused)."""
    from chipperf.run.clusterlease import Wait

    timeout = getattr(args, "wait_timeout", None)
    if timeout is not None and not timeout >= 0:   # NaN too
        raise ConfigError([f"command line: --wait-timeout {timeout:g}: a number of seconds, 0 "
                           "or more"])
    return Wait(timeout) if getattr(args, "wait", False) or timeout is not None else None


def cmd_plan(args: argparse.Namespace) -> int:
    from chipperf.commands.render_plan import render_plan

    cluster, test, catalogue = load_for(args)
    check_db_option(getattr(args, "db", None), getattr(args, "no_ingest", False))
    if cluster.executor == "slurm":
        from chipperf.slurm.executor import checked_request

        checked_request(cluster, test)   # sinfo/scontrol: ConfigError, nothing queued
    plan = make_plan(cluster, test, catalogue, new_run_id(datetime.now()), Path(test.result_root))
    print(render_plan(plan, cluster, test, catalogue))
    return EXIT_OK


def cmd_cases(args: argparse.Namespace) -> int:
    from chipperf.commands.cases import print_cases

    root = args.case_root or get_suite(args.suite).default_root
    if not Path(root).is_dir():
        raise ConfigError([f"--case-root {root}: no such directory: give the root of a case "
                           "catalogue (the repo's training/, inference/, base/ or operation/)"])
    return print_cases(Path(root), as_json=args.json, suite=args.suite)


def cmd_report(args: argparse.Namespace) -> int:
    from chipperf.results.entry import report_main

    peaks = Path(args.measured_peaks) if args.measured_peaks else None
    check_report_args(Path(args.run_dir), peaks)
    return report_main(Path(args.run_dir), readme_table=args.readme_table,
                       into=Path(args.into) if args.into else None, case=args.case,
                       measured_peaks=peaks)


def cmd_compare(args: argparse.Namespace) -> int:
    from chipperf.results.entry import compare_main

    return compare_main([Path(d) for d in args.run_dirs], baseline=args.baseline,
                        html=Path(args.html) if args.html else None)


def cmd_check(args: argparse.Namespace) -> int:
    from chipperf.results.entry import check_main

    return check_main(Path(args.run_dir))


def cmd_selftest(args: argparse.Namespace) -> int:
    from chipperf.commands.selftest import run_selftest

    return run_selftest(args.vendor, args.chip, args.budget, Path(args.result_root),
                        Path(args.data_root) if args.data_root else None, main)


def cmd_monitor(args: argparse.Namespace) -> int:
    from chipperf_runtime.monitors import run_monitor

    check_monitor_args(Path(args.out), args.vendor)
    run_monitor(Path(args.out), args.interval, args.duration, args.vendor)
    return EXIT_OK


def cmd_clean(args: argparse.Namespace) -> int:
    from chipperf.run.leftovers import clean

    return _swept(*clean(load_cluster(args.cluster), args.in_container))


def cmd_collect(args: argparse.Namespace) -> int:
    from chipperf.run.leftovers import collect

    run_dir = Path(args.run_dir)
    refuse_unless_run_dir(run_dir, flagperf=False)
    check_db_option(args.db, args.no_ingest)
    code = _swept(*collect(run_dir))
    if not getattr(args, "no_ingest", False):   # the store gets the run as collected now
        print(ingest_screen(run_dir, getattr(args, "db", None)), end="")
    return code


def _swept(swept: list, unreachable: list[str]) -> int:
    """Print what each host had; exit 1 when a host could not be reached or something stayed."""
    from chipperf.run.leftovers import describe

    for one in swept:
        print("\n".join(describe(one)))
    for line in unreachable:
        print(f"{line} (not reached: run the command again when it is back)")
    stayed = [line for s in swept for line in s.left if "are removed with it" not in line]
    return EXIT_FAILED if unreachable or stayed else EXIT_OK


DESCRIPTION = """\
chipperf evaluates AI hardware: it runs benchmark cases (training or inference) on the hosts
of a cluster, each in its vendor's Docker container, samples CPU, memory, power and
accelerator telemetry, and writes a result directory with throughput, target metric, MFU and
energy per case (result/run<timestamp>/: run.json, summary.md, report.html)."""

EPILOG = """\
examples:
  chipperf plan --cluster cluster_conf.py --test test_conf.py   check configs, show what runs where
  chipperf run --cluster cluster_conf.py --test test_conf.py    run the training cases
  chipperf run --suite inference                                run inference/configs/host.yaml
  chipperf report result/run20250101120000                      the headline table of a run
  chipperf compare result/runA result/runB                      two runs side by side
  chipperf history resnet50 --fail-on-regression                a case's runs over time, regressions flagged

`chipperf COMMAND --help` describes each command. Exit status: 0 every case succeeded,
1 a case or the command failed, 2 bad configs or options, 130 interrupted."""


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="chipperf", description=DESCRIPTION, epilog=EPILOG,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--debug", action="store_true", help="show tracebacks and debug logs")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_run_commands(sub)
    _add_result_commands(sub)
    _add_selftest_command(sub)
    add_store_commands(sub)
    _add_host_commands(sub)
    return p


def _add_run_commands(sub: Subparsers) -> None:
    """run, plan and cases: what runs, from the configs and the case catalogue."""
    q = sub.add_parser("run", help="run the configured cases on the cluster",
                       description="Run every case of the configs on their hosts and write "
                                   "result/run<timestamp>/ (RESULT_ROOT).")
    add_config_options(q)
    q.add_argument("--no-ingest", action="store_true",
                   help="do not put the finished run into the results store")
    q.add_argument("--wait", action="store_true",
                   help="when another run holds one of the hosts, wait for it (asking every "
                        "3 s) instead of refusing to start")
    q.add_argument("--wait-timeout", type=number_at_least(0), metavar="SECONDS",
                   help="with --wait (implied): give up after this long (default: no limit)")
    q.add_argument("--db", metavar="URL", help=DB_HELP)
    q.set_defaults(fn=cmd_run)
    q = sub.add_parser("plan", help="validate the configs and print what would run where",
                       description="Validate both configs (every problem at once) and print "
                                   "hosts, ranks, images, containers, commands and result "
                                   "paths, without touching a host.")
    add_config_options(q)
    q.set_defaults(fn=cmd_plan)
    q = sub.add_parser("cases", help="list the case catalogue",
                       description="List the cases this checkout can run, with their vendors, "
                                   "frameworks and vendor configs.")
    q.add_argument("--suite", choices=suite_names(), default=DEFAULT_SUITE,
                   help="which suite's catalogue (default: %(default)s)")
    q.add_argument("--json", action="store_true", help="print JSON instead of a table")
    add_case_root(q)
    q.set_defaults(fn=cmd_cases)


def _add_result_commands(sub: Subparsers) -> None:
    """report, compare and check: what a result directory holds."""
    q = sub.add_parser("report", help="summarise a result directory (again)",
                       description="Rewrite summary.json/csv/md, report.html and each case's "
                                   "result.json of a result directory, and print its table.")
    q.add_argument("run_dir", help="a result directory (result/run<timestamp>, or FlagPerf's)")
    q.add_argument("--readme-table", action="store_true", help="print a case README's results table")
    q.add_argument("--into", metavar="README.md",
                   help="with --readme-table: replace the lines between the README's "
                        "'<!-- chipperf:results -->' and '<!-- /chipperf:results -->' lines "
                        "with the table instead of printing it")
    q.add_argument("--case", metavar="MODEL|GLOB",
                   help="with --readme-table: only the cases with this model name, or whose "
                        "key (bert:paddle*) or case directory matches this glob")
    q.add_argument("--measured-peaks", metavar="BASE_RUN_DIR",
                   help="a base/ suite run of the same vendor and chip: MFU is also divided by "
                        "its measured GEMM peak (mfu_measured), beside the spec-sheet peak")
    q.set_defaults(fn=cmd_report)
    q = sub.add_parser("compare", help="compare the same cases across result directories",
                       description="Put the same cases of several runs side by side, with "
                                   "ratios to the baseline run and noise flags.")
    q.add_argument("run_dirs", nargs="+", metavar="RUN_DIR", help="result directories")
    q.add_argument("--baseline", type=int, default=0, metavar="N",
                   help="index of the baseline among RUN_DIRs (default: %(default)s, the first)")
    q.add_argument("--html", metavar="FILE",
                   help="also write the comparison as one self-contained page (tables with "
                        "ratios and noise flags, a bar chart per figure) to FILE")
    q.set_defaults(fn=cmd_compare)
    q = sub.add_parser("check", help="validate a result directory and its PerfLog lines",
                       description="Check a result directory against the documented layout "
                                   "(docs/results.md); exit 1 with every problem found.")
    q.add_argument("run_dir", help="a result directory")
    q.set_defaults(fn=cmd_check)


def _add_selftest_command(sub: Subparsers) -> None:
    q = sub.add_parser("selftest", help="the first command on a new machine: device, base/, "
                       "training, inference, serving, one verdict table",
                       description="On this host only, in in-container mode (no SSH, no Docker), "
                                   "within a time budget: device facts, base/ GEMM per dtype and "
                                   "memory bandwidth beside a bare torch reference, one training "
                                   "and one inference case, one LLM serving point; one verdict "
                                   "table and ordinary run dirs under RESULT_ROOT/selftest<ts>/.")
    q.add_argument("--vendor", help="vendor module (default: nvidia where nvidia-smi names a GPU, else cpu)")
    q.add_argument("--chip", help="chip on the vendor's spec sheet (default: detected, or its first)")
    q.add_argument("--budget", type=number_at_least(0, strictly=True), default=600.0,
                   metavar="SECONDS",
                   help="the most the whole selftest may take (default: %(default)g)")
    q.add_argument("--result-root", default="result", metavar="DIR", help="where selftest<ts>/ goes")
    q.add_argument("--data-root", default=None, metavar="DIR",
                   help="where it makes its small synthetic data sets (default: a new temporary "
                        "folder); exit 0 all ran and none failed or suspect, 1 one failed or is "
                        "suspect, 2 bad arguments, 3 incomplete (a step the budget could not hold)")
    q.set_defaults(fn=cmd_selftest)


def _add_host_commands(sub: Subparsers) -> None:
    """clean, collect and monitor: what runs left on the hosts, and the sampler by hand."""
    q = sub.add_parser("clean", help="collect and remove what finished or crashed runs left on the hosts",
                       description="On every host of the cluster: bring home the files runs "
                                   "that are not running left (marked late in their run.json), "
                                   "then remove their containers, sidecars and work dirs. A run "
                                   "that is going on (its master holds its lease) is left alone.")
    q.add_argument("--cluster", required=True, metavar="FILE", help="cluster config (.py or .yaml)")
    q.add_argument("--in-container", metavar="NAME",
                   help="IN_CONTAINER_NAME runs: look inside the running container NAME on "
                        "each host (their work dirs and processes) instead of on the host")
    q.set_defaults(fn=cmd_clean)
    q = sub.add_parser("collect", help="bring home a run's files its hosts still have",
                       description="Copy the node dirs a run left on its hosts (a host that "
                                   "was lost and came back, a result root that was full) into "
                                   "RUN_DIR, mark them late in run.json, judge their rounds "
                                   "again (a late FINISHED counts), write the reports again, "
                                   "remove the run's containers and work dirs, and put the "
                                   "run as it now is into the results store.")
    q.add_argument("run_dir", help="the run's result directory")
    q.add_argument("--db", metavar="URL", help=DB_HELP)
    q.add_argument("--no-ingest", action="store_true",
                   help="do not refresh the run in the results store")
    q.set_defaults(fn=cmd_collect)
    q = sub.add_parser("monitor", help="run the telemetry sampler by hand",
                       description="Sample CPU, memory, power and the vendor's accelerators "
                                   "into JSONL files, as the sidecar does in a run.")
    q.add_argument("--out", required=True, metavar="DIR", help="directory for the *_monitor.log files")
    q.add_argument("--interval", type=number_at_least(0, strictly=True),
                   default=DEFAULT_INTERVAL_S, metavar="S",
                   help="seconds between samples (default: %(default)s)")
    q.add_argument("--duration", type=number_at_least(0), default=None, metavar="S",
                   help="stop after this many seconds (default: until Ctrl-C)")
    q.add_argument("--vendor", default="cpu", help="vendor whose accelerator sampler to use "
                                                   "(default: %(default)s)")
    q.set_defaults(fn=cmd_monitor)


def entry_parser(prog: str, description: str, suite: str, **defaults: str
                 ) -> argparse.ArgumentParser:
    """An entry script's parser: its own help, configs defaulting to the files beside it."""
    p = argparse.ArgumentParser(prog=prog, description=description, epilog=
                                f"Same as `chipperf run --suite {suite}` with these defaults; "
                                "`chipperf --help` lists the other commands.",
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--debug", action="store_true", help="show tracebacks and debug logs")
    p.add_argument("--strict", action="store_true",
                   help="refuse the whole run when any case key has a problem (default, as "
                        "FlagPerf's run.py does: skip such a case, run the rest, and list the "
                        "skipped ones with why; `chipperf run --keep-going`)")
    add_config_options(p, suite, **defaults)
    return p


def entry_main(prog: str, description: str, argv: Sequence[str], suite: str,
               **defaults: str) -> int:
    """An entry script (run_benchmarks/run.py, inference/run.py): `chipperf run` on its configs."""
    args = entry_parser(prog, description, suite, **defaults).parse_args(argv)
    forward = [f"--{name.replace('_', '-')}={value}" for name, value in vars(args).items()
               if name not in ("debug", "strict") and value is not None]
    return main((["--debug"] if args.debug else []) + ["run", f"--suite={suite}", *forward]
                + ([] if args.strict else ["--keep-going"]))


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    setup_logging(args.debug)
    sigterm_as_interrupt()
    fn: Callable[[argparse.Namespace], int] = args.fn
    try:
        code = fn(args)
        sys.stdout.flush()  # a reader that left shows here, not at exit (which would exit 120)
        return code
    except ConfigError as exc:
        print(f"chipperf: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    except ChipperfError as exc:
        if args.debug:
            raise
        print(f"chipperf: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print("chipperf: interrupted; everything the run started was stopped", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # `chipperf cases | head`: the reader left; say nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except Exception as exc:  # a bug: named in one line; --debug (and run.log) has the traceback
        if args.debug:
            raise
        print(f"chipperf: internal error: {type(exc).__name__}: {exc} (a bug: `chipperf --debug "
              f"{args.command} ...` shows the traceback; a run's run.log has it)", file=sys.stderr)
        return EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main())
