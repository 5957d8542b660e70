"""Time the results store: ingest N result directories, then render the leaderboard over M runs.

The directories are chipperf's synthetic runs (synthetic_results), one case each, 1 node
x 2 processes, 3 rounds of a 20-second timed window, monitors at 1 Hz, spread over 4 chips and 5
models (20 fingerprint x chip rows). Ingest is timed over the whole of ``ingest_dir`` (check,
collect, case details, one transaction each) from a warm disk (the tree was just written) into a
fresh SQLite file: the first half by one process (``ingest_dir``), the second half with
``--jobs`` reader processes (``ingest_many``, what ``chipperf ingest`` does). For the page, the
store is then grown to M runs by copying the ingested rows in SQL (new run ids and dates, the
same figures): reading 10,000 real directories would time the readers again, not the page. Usage::

    python3 selfbench/store_ingest_and_page.py [--dirs 1000] [--runs 10000] [--jobs N]
        [--keep DIR]

Prints dirs/s for ingest and ms per page (board() + board_html(), and a GET of / through
serve.respond) as the median of 5 renders, with the machine's load average.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import sqlalchemy as sa  # noqa: E402
from synthetic_results import SynthCase, SynthRound, write_run  # noqa: E402

from chipperf.store import db  # noqa: E402
from chipperf.store.ingest import Ingested, ingest_dir, ingest_many  # noqa: E402
from chipperf.store.leaderboard import board, board_html  # noqa: E402
from chipperf.store.serve import respond  # noqa: E402

CHIPS = ("A100", "H100", "H800", "A800")
MODELS = ("resnet50", "bert", "gpt2", "vit", "llama2_7b")


def write_dirs(root: Path, count: int) -> list[Path]:
    dirs = []
    for i in range(count):
        t = 1000.0 * (1 + (i % 7) / 100)
        case = SynthCase(model=MODELS[i % len(MODELS)], chip=CHIPS[(i // 5) % len(CHIPS)],
                         nnodes=1, nproc=2, seconds=20,
                         rounds=(SynthRound(t), SynthRound(t * 1.01), SynthRound(t * 0.99)))
        dirs.append(write_run(root, [case], run_id=f"run{20230000000000 + i:014d}"))
    return dirs


def grow(engine: sa.Engine, runs: int) -> None:
    """Copy the store's runs (with their cases and figures) until it holds ``runs`` runs."""
    with engine.begin() as conn:
        base = list(conn.execute(sa.select(db.runs)))
        cases = {c.run_pk: c for c in conn.execute(sa.select(db.cases))}
        figs: dict[int, list] = {}
        for f in conn.execute(sa.select(db.figures)):
            figs.setdefault(f.case_pk, []).append(f)
        for n in range(runs - len(base)):
            src = base[n % len(base)]
            copy = {k: v for k, v in src._mapping.items() if k != "id"}
            copy.update(run_dir=f"{src.run_dir}-copy{n}", run_id=f"{src.run_id}c{n}",
                        started_at=f"2024-{1 + n % 12:02d}-{1 + n % 28:02d}T00:00:{n % 60:02d}Z")
            run_pk = conn.execute(db.runs.insert().values(copy)).inserted_primary_key[0]
            case = cases[src.id]
            case_row = {k: v for k, v in case._mapping.items() if k != "id"} | {"run_pk": run_pk}
            case_pk = conn.execute(db.cases.insert().values(case_row)).inserted_primary_key[0]
            conn.execute(db.figures.insert(), [
                {k: v for k, v in f._mapping.items() if k != "id"} | {"case_pk": case_pk}
                for f in figs[case.id]])


def timed_ms(fn: object, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--dirs", type=int, default=1000)
    p.add_argument("--runs", type=int, default=10000)
    p.add_argument("--jobs", type=int, default=min(os.cpu_count() or 1, 8),
                   help="reader processes for the second half of the dirs")
    p.add_argument("--keep", help="write the tree and the store here and keep them")
    args = p.parse_args()
    root = Path(args.keep or tempfile.mkdtemp(prefix="chipperf-store-bench-"))
    try:
        started = time.perf_counter()
        dirs = write_dirs(root, args.dirs)
        print(f"wrote {len(dirs)} result dirs in {time.perf_counter() - started:.1f} s")
        half = len(dirs) // 2
        engine = db.open_store(f"sqlite:///{root / db.DEFAULT_FILE}")
        started, cpu = time.perf_counter(), time.process_time()
        for d in dirs[:half]:
            ingest_dir(engine, d)
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
        print(f"ingest, 1 process: {half} dirs in {wall:.1f} s = {half / wall:.1f} dirs/s "
              f"(CPU {cpu:.1f} s = {half / cpu:.1f} dirs per CPU second)")
        started = time.perf_counter()
        added = sum(isinstance(r, Ingested) for r in ingest_many(engine, dirs[half:], args.jobs))
        wall = time.perf_counter() - started
        print(f"ingest, {args.jobs} reader processes: {added} dirs in {wall:.1f} s = "
              f"{added / wall:.1f} dirs/s ({os.cpu_count()} CPUs)")
        started = time.perf_counter()
        sample = dirs[:100]
        again = sum(ingest_dir(engine, d).outcome == "unchanged" for d in sample)
        print(f"re-ingest (unchanged): {again} of {len(sample)} dirs at "
              f"{len(sample) / (time.perf_counter() - started):.1f} dirs/s")
        grow(engine, args.runs)
        groups = board(engine)
        rows = sum(len(g.rows) for g in groups)
        runs = sum(r.runs for g in groups for r in g.rows)
        page = timed_ms(lambda: board_html(board(engine), lambda run: None))
        http = timed_ms(lambda: respond(engine, "/"))
        print(f"page over {runs} runs ({len(groups)} fingerprints, {rows} rows): "
              f"{page:.0f} ms (board + html), {http:.0f} ms (GET / via serve.respond), "
              "median of 5")
        print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
