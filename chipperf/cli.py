"""`chipperf run|plan|report|compare|check|monitor|cases|clean`: parse, call one function, map errors."""

from __future__ import annotations

import argparse
import logging
import signal
import sys
from datetime import datetime
from pathlib import Path
from typing import Callable, Sequence

from chipperf.catalogue import Catalogue, default_suite_dir, default_training_dir
from chipperf.config import ClusterConfig, TestConfig, load_cluster
from chipperf.config.load import parse_cluster, parse_test
from chipperf.errors import ChipperfError, ConfigError
from chipperf.plan import check, make_plan
from chipperf.results.layout import new_run_id

log = logging.getLogger("chipperf")

EXIT_OK, EXIT_FAILED, EXIT_CONFIG, EXIT_INTERRUPTED = 0, 1, 2, 130


def load_all(cluster_path: str, test_path: str, training_dir: str | None
             ) -> tuple[ClusterConfig, TestConfig, Catalogue]:
    """Both configs plus the catalogue checks; every problem at once, before any host is touched."""
    cluster, cluster_problems = parse_cluster(cluster_path)
    test, test_problems = parse_test(test_path)
    root = Path(training_dir or test.training_dir or default_training_dir())
    catalogue = Catalogue.scan(root, suite="training")
    _raise_all(cluster_problems + test_problems + check(cluster, test, catalogue, where=test_path))
    return cluster, test, catalogue


def _raise_all(problems: list[str]) -> None:
    if problems:
        raise ConfigError(problems)


def load_inference_all(host_config: str, suite_dir: str | None
                       ) -> tuple[ClusterConfig, TestConfig, Catalogue]:
    from chipperf.config.inference import load_inference

    root = Path(suite_dir or default_suite_dir("inference"))
    cluster, test, problems = load_inference(host_config, root)
    catalogue = Catalogue.scan(root, suite="inference")
    _raise_all(problems + check(cluster, test, catalogue, where=host_config))
    return cluster, test, catalogue


def load_spec_suite_all(suite: str, host_config: str, suite_dir: str | None
                        ) -> tuple[ClusterConfig, TestConfig, Catalogue]:
    """base/ or operation/: FlagPerf's <suite>/configs/host.yaml."""
    from chipperf.config.specsuites import load_spec_suite

    root = Path(suite_dir or default_suite_dir(suite))
    cluster, test, problems = load_spec_suite(host_config, suite)
    catalogue = Catalogue.scan(root, suite=suite)
    _raise_all(problems + check(cluster, test, catalogue, where=host_config))
    return cluster, test, catalogue


def load_for(args: argparse.Namespace) -> tuple[ClusterConfig, TestConfig, Catalogue]:
    if args.suite in ("base", "operation"):
        return load_spec_suite_all(args.suite, args.host_config or str(
            default_suite_dir(args.suite) / "configs" / "host.yaml"), args.training_dir)
    if args.suite == "inference":
        return load_inference_all(args.host_config or str(default_suite_dir("inference") / "configs"
                                                          / "host.yaml"), args.training_dir)
    if not (args.cluster and args.test):
        raise ConfigError(["command line: --cluster and --test are required for the training suite"])
    return load_all(args.cluster, args.test, args.training_dir)


def cmd_run(args: argparse.Namespace) -> int:
    from chipperf import controller

    cluster, test, catalogue = load_for(args)
    outcome = controller.run(cluster, test, catalogue, suite=test.suite, debug=args.debug)
    print(f"\nResults: {outcome.run_dir}")
    for key, (status, reason) in outcome.cases.items():
        print(f"  {status:<10} {key}" + (f"\n             {reason}" if reason else ""))
    return EXIT_OK if outcome.ok else EXIT_FAILED


def cmd_plan(args: argparse.Namespace) -> int:
    from chipperf.render_plan import render_plan

    cluster, test, catalogue = load_for(args)
    plan = make_plan(cluster, test, catalogue, new_run_id(datetime.now()), Path(test.result_root))
    print(render_plan(plan, cluster, test))
    return EXIT_OK


def cmd_cases(args: argparse.Namespace) -> int:
    from chipperf.cases import print_cases

    return print_cases(Path(args.training_dir or default_training_dir()), as_json=args.json)


def cmd_report(args: argparse.Namespace) -> int:
    from chipperf.results.entry import report_main

    return report_main(Path(args.run_dir), readme_table=args.readme_table,
                       into=Path(args.into) if args.into else None, case=args.case,
                       measured_peaks=Path(args.measured_peaks) if args.measured_peaks else None)


def cmd_compare(args: argparse.Namespace) -> int:
    from chipperf.results.entry import compare_main

    return compare_main([Path(d) for d in args.run_dirs], baseline=args.baseline)


def cmd_check(args: argparse.Namespace) -> int:
    from chipperf.results.entry import check_main

    return check_main(Path(args.run_dir))


def cmd_monitor(args: argparse.Namespace) -> int:
    from chipperf.monitors import run_monitor

    run_monitor(Path(args.out), args.interval, args.duration, args.vendor)
    return EXIT_OK


def cmd_clean(args: argparse.Namespace) -> int:
    from chipperf import controller

    removed = controller.clean(load_cluster(args.cluster))
    for host, names in removed.items():
        print(f"{host}: removed {len(names)} container(s)" + (f": {', '.join(names)}" if names else ""))
    return EXIT_OK


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="chipperf", description=__doc__)
    p.add_argument("--debug", action="store_true", help="show tracebacks and debug logs")
    sub = p.add_subparsers(dest="command", required=True)

    def configs(q: argparse.ArgumentParser) -> None:
        q.add_argument("--suite", choices=("training", "inference", "base", "operation"),
                       default="training")
        q.add_argument("--cluster", help="training: cluster config (.py or .yaml)")
        q.add_argument("--test", help="training: test config (.py or .yaml)")
        q.add_argument("--host-config", help="inference, base, operation: host.yaml "
                                             "(default <suite>/configs/host.yaml)")
        q.add_argument("--training-dir", help="case catalogue root (default: the repo's <suite>/)")

    q = sub.add_parser("run", help="run the configured cases on the cluster")
    configs(q)
    q.set_defaults(fn=cmd_run)
    q = sub.add_parser("plan", help="validate the configs and print what would run where")
    configs(q)
    q.set_defaults(fn=cmd_plan)
    q = sub.add_parser("cases", help="list the case catalogue")
    q.add_argument("--json", action="store_true")
    q.add_argument("--training-dir")
    q.set_defaults(fn=cmd_cases)
    q = sub.add_parser("report", help="summarise a result directory (again)")
    q.add_argument("run_dir")
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
    q = sub.add_parser("compare", help="compare the same cases across result directories")
    q.add_argument("run_dirs", nargs="+")
    q.add_argument("--baseline", type=int, default=0, help="index of the baseline directory")
    q.set_defaults(fn=cmd_compare)
    q = sub.add_parser("check", help="validate a result directory and its PerfLog lines")
    q.add_argument("run_dir")
    q.set_defaults(fn=cmd_check)
    q = sub.add_parser("clean", help="remove every chipperf container and work dir from the hosts")
    q.add_argument("--cluster", required=True)
    q.set_defaults(fn=cmd_clean)
    q = sub.add_parser("monitor", help="run the telemetry sampler by hand")
    q.add_argument("--out", required=True)
    q.add_argument("--interval", type=float, default=1.0)
    q.add_argument("--duration", type=float, default=None)
    q.add_argument("--vendor", default="cpu")
    q.set_defaults(fn=cmd_monitor)
    return p


def _setup_logging(debug: bool) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(message)s", "%H:%M:%S"))
    root = logging.getLogger("chipperf")
    root.handlers[:] = [handler]
    root.setLevel(logging.DEBUG if debug else logging.INFO)
    if not debug:
        logging.getLogger("paramiko").setLevel(logging.CRITICAL)


def _sigterm_as_interrupt() -> None:
    """SIGTERM, and SIGINT even where the parent left it ignored (a background job of a shell
    script starts with SIGINT ignored, and Python then installs no Ctrl-C handler), unwind
    through the teardown like Ctrl-C."""
    def handler(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, handler)
    signal.signal(signal.SIGINT, signal.default_int_handler)


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    _setup_logging(args.debug)
    _sigterm_as_interrupt()
    fn: Callable[[argparse.Namespace], int] = args.fn
    try:
        return fn(args)
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


if __name__ == "__main__":
    sys.exit(main())
