"""The CLI's `chipperf ingest | history | leaderboard | serve`: their options and the functions
they call (chipperf.store.entry, imported only when a command runs, so SQLAlchemy is needed only
then)."""

from __future__ import annotations

import argparse
from pathlib import Path

from chipperf.commands.arguments import number_at_least, port_number, whole_at_least
from chipperf.results.compute.headline import HEADLINE
from chipperf.suites import suite_names

DB_HELP = ("the results store: a SQLAlchemy URL (sqlite:///FILE, postgresql://...) or a file "
           "path; default $RESULTS_DB, else chipperf-results.sqlite under the result root")


def add_store_commands(sub: argparse._SubParsersAction) -> None:
    """ingest, history, leaderboard, serve (chipperf.store, docs/results-store.md)."""
    q = sub.add_parser("ingest", help="put result directories into the results store",
                       description="Check, collect and store result directories (chipperf's and "
                                   "FlagPerf's) in the results store; the same directory twice "
                                   "changes nothing; a directory check rejects is refused.")
    q.add_argument("run_dirs", nargs="+", metavar="RUN_DIR", help="result directories")
    q.add_argument("--db", metavar="URL", help=DB_HELP + " (here: beside the first RUN_DIR)")
    q.add_argument("--jobs", type=whole_at_least(0), default=0, metavar="N",
                   help="processes reading the directories (default: one per CPU, at most 8)")
    q.set_defaults(fn=cmd_ingest)
    q = sub.add_parser("history", help="a case's figures over time, regressions flagged",
                       description="List a case's figure per run (the mean over its counted "
                                   "rounds, as its report shows it), grouped by workload "
                                   "fingerprint, vendor, chip and topology, against the noise "
                                   "band of the earlier runs (median +- K x 1.4826 x MAD, at "
                                   "least FLOOR x median).")
    q.add_argument("case", help="a model name, case directory name or case key")
    q.add_argument("--vendor", help="only this vendor's runs (nvidia, cpu...)")
    q.add_argument("--chip", help="only this chip's runs (A100, xeon...)")
    q.add_argument("--figure", default=HEADLINE,
                   help="a figure name of summary.json's aggregate, or energy_per_unit_j "
                        "(default: each case's headline figure in its own unit: raw "
                        "throughput; base/'s and operation/'s measured value); each run's "
                        "value is the mean over its counted rounds")
    q.add_argument("--window", type=whole_at_least(1), default=5, help="earlier runs in the band (default 5)")
    q.add_argument("--min-runs", type=whole_at_least(1), default=3,
                   help="earlier runs needed to judge a run (default 3)")
    q.add_argument("--k", type=number_at_least(0, strictly=True), default=3.0,
                   help="band half-width in MADs (default 3)")
    q.add_argument("--floor", type=number_at_least(0), default=0.02,
                   help="least band half-width as a share of the median (default 0.02)")
    q.add_argument("--fail-on-regression", action="store_true",
                   help="exit 1 when the newest run of any series is a regression")
    _store_options(q)
    q.set_defaults(fn=cmd_history)
    q = sub.add_parser("leaderboard", help="write the leaderboard page of the results store",
                       description="Per workload fingerprint, the chips side by side; one "
                                   "static HTML page, or the same tables as text.")
    q.add_argument("--html", metavar="FILE", help="where to write the page")
    q.add_argument("--text", action="store_true", help="print the tables on the console")
    q.add_argument("--suite", choices=suite_names(), help="only this suite's cases (default: all)")
    _store_options(q)
    q.set_defaults(fn=cmd_leaderboard)
    q = sub.add_parser("serve", help="serve the leaderboard read-only over HTTP",
                       description="Serve the leaderboard and the runs' report.html pages, "
                                   "read-only, on 127.0.0.1 unless --host says otherwise.")
    q.add_argument("--host", default="127.0.0.1", help="address to bind (default %(default)s)")
    q.add_argument("--port", type=port_number, default=8765, help="port (default %(default)s)")
    _store_options(q)
    q.set_defaults(fn=cmd_serve)


def _store_options(q: argparse.ArgumentParser) -> None:
    q.add_argument("--db", metavar="URL", help=DB_HELP)
    q.add_argument("--result-root", default="result",
                   help="where the default SQLite store lies (default: %(default)s)")


def cmd_ingest(args: argparse.Namespace) -> int:
    from chipperf.store.entry import ingest_main

    return ingest_main([Path(d) for d in args.run_dirs], db_url=args.db, jobs=args.jobs)


def cmd_history(args: argparse.Namespace) -> int:
    from chipperf.store.entry import history_main
    from chipperf.store.history import BandConfig

    cfg = BandConfig(window=args.window, k=args.k, floor=args.floor, min_runs=args.min_runs)
    return history_main(args.case, db_url=args.db, result_root=Path(args.result_root),
                        vendor=args.vendor, chip=args.chip, figure=args.figure, cfg=cfg,
                        fail_on_regression=args.fail_on_regression)


def cmd_leaderboard(args: argparse.Namespace) -> int:
    from chipperf.store.entry import leaderboard_main

    return leaderboard_main(Path(args.html) if args.html else None, db_url=args.db,
                            result_root=Path(args.result_root), suite=args.suite, text=args.text)


def cmd_serve(args: argparse.Namespace) -> int:
    from chipperf.store.entry import serve_main

    return serve_main(db_url=args.db, result_root=Path(args.result_root), host=args.host,
                      port=args.port)
