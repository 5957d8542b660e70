"""`chipperf serve` driven in headless Chromium: the leaderboard's tables render with the chips
side by side, and the link of a row opens that run's report.html through the server.

Needs Debian's ``chromium`` (.ci/run installs it); fails, never skips, when it is missing.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from synthetic_results import SynthCase, SynthRound, write_run
from test_report_html import run_chromium

from chipperf.results.entry import report_main
from chipperf.store import db
from chipperf.store.ingest import ingest_dir
from chipperf.store.serve import make_server

pytestmark = pytest.mark.integration


def _case(chip: str, throughput: float) -> SynthCase:
    return SynthCase(chip=chip, nnodes=1, nproc=2, seconds=20,
                     rounds=(SynthRound(throughput), SynthRound(throughput * 1.01),
                             SynthRound(throughput * 0.99)))


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, list[Path]]]:
    root = tmp_path_factory.mktemp("store")
    dirs = [write_run(root, [_case("A100", 1000.0 + day), _case("H100", 2000.0 + day)],
                      run_id=f"run2023110{day}120000") for day in (1, 2)]
    for d in dirs:
        assert report_main(d) == 0
    engine = db.open_store(f"sqlite:///{root / db.DEFAULT_FILE}")
    for d in dirs:
        ingest_dir(engine, d)
    server = make_server(engine, port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", dirs
    finally:
        server.shutdown()
        server.server_close()


def test_the_page_shows_chips_side_by_side_and_a_link_opens_the_report(
        served: tuple[str, list[Path]], tmp_path: Path) -> None:
    base, dirs = served
    done = run_chromium(tmp_path, "--dump-dom", base + "/")
    assert done.returncode == 0, done.stderr[-2000:]
    dom = done.stdout
    (table,) = re.findall(r"<table class=\"board\".*?</table>", dom, re.S)
    rows = re.findall(r"<tr>(.*?)</tr>", table, re.S)[1:]
    chips = [re.findall(r"<td[^>]*>(.*?)</td>", r, re.S)[1] for r in rows]
    assert chips == ["H100", "A100"]                       # fastest first, one workload
    assert all("<svg" in r and ">2</td>" in r for r in rows)   # trend chart, 2 runs each
    links = re.findall(r"href=\"(/report/\d+)\"", table)
    assert links
    report = run_chromium(tmp_path, "--dump-dom", base + links[0])
    assert report.returncode == 0, report.stderr[-2000:]
    assert dirs[-1].name in report.stdout and "resnet50" in report.stdout
