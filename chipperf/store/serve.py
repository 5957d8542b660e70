"""``chipperf serve``: the leaderboard over HTTP, read-only, on 127.0.0.1 by default.

The standard library's ``http.server`` (ThreadingHTTPServer) is enough here and adds no
dependency to the master host: three GET routes, no forms, no sessions, nothing written.
``respond`` decides every answer from the path alone (tested without a socket):

    /                  the leaderboard (``?suite=training|inference|base|operation``)
    /report/<N>        run N's report.html, only the file the store recorded, only if it still
                       lies inside that run's directory
    anything else      404; a query string over MAX_QUERY characters 414; not GET/HEAD 501
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from chipperf.store import db
from chipperf.store.leaderboard import RunRef, board, board_html
from chipperf.suites import suite_names

MAX_QUERY = 200
MAX_PATH = 200
REPORT = re.compile(r"/report/([0-9]{1,12})")
HTML = "text/html; charset=utf-8"
TEXT = "text/plain; charset=utf-8"


@dataclass(frozen=True)
class Answer:
    status: int
    content_type: str
    body: bytes


def respond(engine: Engine, target: str) -> Answer:
    """The answer to a GET of ``target`` (path and query string as the request line has them)."""
    if len(target) > MAX_PATH + MAX_QUERY + 1:
        return _text(HTTPStatus.REQUEST_URI_TOO_LONG, "request target too long")
    parts = urlsplit(target)
    if len(parts.query) > MAX_QUERY:
        return _text(HTTPStatus.REQUEST_URI_TOO_LONG, f"query string over {MAX_QUERY} characters")
    if parts.path == "/":
        return _board(engine, parts.query)
    match = REPORT.fullmatch(parts.path)
    if match:
        return _report(engine, int(match.group(1)))
    return _text(HTTPStatus.NOT_FOUND, "not found: this server has / and /report/<run>")


def _board(engine: Engine, query: str) -> Answer:
    suite = parse_qs(query).get("suite", [None])[0]
    if suite is not None and suite not in suite_names():
        return _text(HTTPStatus.BAD_REQUEST, "suite must be one of " + ", ".join(suite_names()))
    page = board_html(board(engine, suite), _link)
    return Answer(HTTPStatus.OK, HTML, page.encode())


def _link(run: RunRef) -> str | None:
    return f"/report/{run.run_pk}" if run.report_html else None


def _report(engine: Engine, run_pk: int) -> Answer:
    with engine.connect() as conn:
        row = conn.execute(sa.select(db.runs.c.run_dir, db.runs.c.report_html)
                           .where(db.runs.c.id == run_pk)).first()
    if row is None or not row.report_html:
        return _text(HTTPStatus.NOT_FOUND, "no report for that run")
    run_dir = Path(row.run_dir).resolve()
    report = Path(row.report_html).resolve()
    if report.parent != run_dir or report.name != "report.html" or not report.is_file():
        return _text(HTTPStatus.NOT_FOUND, "that run's report.html is no longer there")
    return Answer(HTTPStatus.OK, HTML, report.read_bytes())


def _text(status: int, message: str) -> Answer:
    return Answer(status, TEXT, (message + "\n").encode())


def make_server(engine: Engine, host: str = "127.0.0.1", port: int = 8765) -> ThreadingHTTPServer:
    """A server answering with ``respond``; the caller runs serve_forever()."""

    class Handler(BaseHTTPRequestHandler):
        server_version = "chipperf-store"

        def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
            self._answer(respond(engine, self.path), body=True)

        def do_HEAD(self) -> None:  # noqa: N802
            self._answer(respond(engine, self.path), body=False)

        def _answer(self, answer: Answer, body: bool) -> None:
            self.send_response(answer.status)
            self.send_header("Content-Type", answer.content_type)
            self.send_header("Content-Length", str(len(answer.body)))
            self.send_header("X-Content-Type-Options", "nosniff")
            self.send_header("Content-Security-Policy", "default-src 'none'; style-src "
                             "'unsafe-inline'; img-src data:")
            self.end_headers()
            if body:
                self.wfile.write(answer.body)

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            pass

    return ThreadingHTTPServer((host, port), Handler)
