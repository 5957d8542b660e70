"""chipperf.store.leaderboard and serve: chips side by side per fingerprint (no cross-workload
row), everything escaped, the read-only server's refusals, and a link followed to a report."""

from __future__ import annotations

import re
import threading
import urllib.error
import urllib.request
from html.parser import HTMLParser
from pathlib import Path

import pytest
import sqlalchemy as sa
from store_runs import case, run

from chipperf import cli
from chipperf.store import db
from chipperf.store.ingest import ingest_dir
from chipperf.store.leaderboard import board, board_html
from chipperf.store.serve import MAX_QUERY, make_server, respond


class Tables(HTMLParser):
    """The leaderboard tables as {fingerprint: [[cell text, ...], ...]} and every href."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self.links: list[str] = []
        self._table: str | None = None
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "table":
            self._table = a["data-fingerprint"] or ""
            self.tables[self._table] = []
        elif tag == "tr" and self._table is not None:
            self.tables[self._table].append([])
        elif tag == "td":
            self._cell = []
        elif tag == "a":
            self.links.append(a["href"] or "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "td" and self._cell is not None and self._table is not None:
            self.tables[self._table][-1].append("".join(self._cell).strip())
            self._cell = None
        elif tag == "table":
            self._table = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def _parse(page: str) -> Tables:
    parser = Tables()
    parser.feed(page)
    return parser


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> tuple[sa.Engine, list[Path]]:
    root = tmp_path_factory.mktemp("board")
    dirs = [run(root, 1, [case(1000.0), case(400.0, chip="H100"), case(90.0, model="bert")]),
            run(root, 2, [case(1010.0), case(410.0, chip="H100")]),
            run(root, 3, [case(990.0), case(405.0, model="gpt2", config=(
                ("global_batch_size", 8), ("dataset", "<script>alert(1)</script>")))]),
            run(root, 4, [case(700.0, config=(("global_batch_size", 64),))])]
    assert cli.main(["report", str(dirs[2])]) == 0           # a real report.html to link to
    engine = db.open_store(f"sqlite:///{root / 'store.sqlite'}")
    for d in dirs:
        ingest_dir(engine, d)
    return engine, dirs


def test_one_table_per_fingerprint_chips_side_by_side(store: tuple) -> None:
    engine, _ = store
    groups = board(engine)
    tables = _parse(board_html(groups, lambda run: None)).tables
    by_batch = {g.fingerprint.get("global_batch"): tables[g.fingerprint_key] for g in groups
                if g.title == "chipperf:resnet50/pytorch"}
    assert len(tables) == len(groups) == 4            # resnet50 at 256 and at 64, bert, gpt2
    rows = [r for r in by_batch[256] if r]
    # A100 and H100 side by side in one table, fastest first, runs counted per chip
    assert [(r[0], r[1], r[2], r[9]) for r in rows] == [("nvidia", "A100", "1x2", "3"),
                                                        ("nvidia", "H100", "1x2", "2")]
    # each run's mean over its rounds (1.00, 1.01, 0.99 x), the median over runs; its kind
    assert rows[0][4] == "1000 samples/s rate" and rows[1][4] == "405 samples/s rate"
    assert rows[0][5] == "955.5 .. 1044"              # 1000 +- 3 x 1.4826 x MAD 10
    # MFU; no causal figure (the case does not say its attention part); energy; no share of spec
    assert rows[0][6].endswith("%") and rows[0][7] == "–" and float(rows[0][8]) > 0
    # the batch-64 run is another workload: its own table, its own single row
    assert [r[4] for r in by_batch[64] if r] == ["700 samples/s rate"]


def test_everything_is_escaped(store: tuple) -> None:
    engine, _ = store
    page = board_html(board(engine), lambda run: "/x?a=1&b='\"")
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "href='/x?a=1&amp;b=&#x27;&quot;'" in page


def test_leaderboard_html_links_to_the_report_of_the_newest_run(
        store: tuple, tmp_path: Path) -> None:
    engine, dirs = store
    url = engine.url.render_as_string()
    assert cli.main(["leaderboard", "--html", str(tmp_path / "board.html"), "--db", url]) == 0
    links = _parse((tmp_path / "board.html").read_text()).links
    assert (dirs[2] / "report.html").resolve().as_uri() in links


def test_respond_refuses_traversal_injection_and_long_queries(store: tuple) -> None:
    engine, dirs = store
    for target in ("/report/../../etc/passwd", "/report/1/../../../etc/passwd",
                   "/%2e%2e/%2e%2e/etc/passwd", "/report/%2e%2e", "/report/-1",
                   "/report/999999", "/store.sqlite", "/" + str(dirs[0] / "run.json")):
        assert respond(engine, target).status == 404, target
    injected = respond(engine, "/?suite=training'%20OR%201=1--")
    assert injected.status == 400 and b"suite must be one of" in injected.body
    assert respond(engine, "/?" + "a" * (MAX_QUERY + 1)).status == 414
    assert respond(engine, "/?suite=training").status == 200


def test_a_report_path_outside_its_run_is_not_served(store: tuple, tmp_path: Path) -> None:
    engine, dirs = store
    outside = tmp_path / "report.html"
    outside.write_text("secret")
    with engine.connect() as conn:
        pk, recorded = conn.execute(sa.select(db.runs.c.id, db.runs.c.report_html).where(
            db.runs.c.run_dir == str(dirs[2].resolve()))).one()
    good = respond(engine, f"/report/{pk}")
    assert good.status == 200 and good.body == (dirs[2] / "report.html").read_bytes()
    elsewhere = str(dirs[2] / ".." / dirs[0].name / "report.html")
    (dirs[0] / "report.html").write_text("another run's page")
    try:
        for tampered in (str(outside), elsewhere):     # a row someone edited by hand
            with engine.begin() as conn:
                conn.execute(db.runs.update().where(db.runs.c.id == pk)
                             .values(report_html=tampered))
            assert respond(engine, f"/report/{pk}").status == 404, tampered
    finally:
        (dirs[0] / "report.html").unlink()
        with engine.begin() as conn:
            conn.execute(db.runs.update().where(db.runs.c.id == pk).values(report_html=recorded))


def test_the_server_binds_localhost_serves_the_board_and_follows_a_link(store: tuple) -> None:
    engine, dirs = store
    server = make_server(engine, port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        assert server.server_address[0] == "127.0.0.1"
        base = f"http://127.0.0.1:{server.server_port}"
        with urllib.request.urlopen(base + "/", timeout=10) as reply:
            page = reply.read().decode()
            assert reply.headers["Content-Security-Policy"].startswith("default-src 'none'")
        links = [h for h in _parse(page).links if re.fullmatch(r"/report/\d+", h)]
        assert len(links) >= 1
        with urllib.request.urlopen(base + links[0], timeout=10) as reply:
            assert reply.read() == (dirs[2] / "report.html").read_bytes()
        with pytest.raises(urllib.error.HTTPError) as post:
            urllib.request.urlopen(urllib.request.Request(base + "/", data=b"x"), timeout=10)
        assert post.value.code == 501
    finally:
        server.shutdown()
        server.server_close()


def test_a_row_takes_its_figures_over_the_newest_runs_and_counts_them_all(store: tuple) -> None:
    engine, _ = store
    (group,) = [g for g in board(engine, recent=2) if g.title == "chipperf:resnet50/pytorch"
                and g.fingerprint.get("global_batch") == 256]
    a100 = next(r for r in group.rows if r.chip == "A100")
    assert a100.runs == 3 and a100.trend == (1010.0, 990.0)            # days 2 and 3
    assert a100.figures["throughput_raw"] == 1000.0 and a100.latest.run_id == "run20231103120000"
