"""The protocol between a served sweep and its one load-generator process (``benchserve
--serve-points``): the lines each side writes and reads, bad lines refused saying what is
wrong, and the generator's loop (ready once, one reply per point, a failing point's code
without ending the loop), run here on in-memory streams with a stand-in for vLLM's bench."""

from __future__ import annotations

import io
import json
import time
from contextlib import contextmanager
from typing import Iterator

import pytest

from chipperf_runtime.inference.llm.served import benchserve
from chipperf_runtime.inference.llm.served.benchserve import ProtocolError


def test_a_request_carries_the_points_arguments_and_its_log() -> None:
    line = benchserve.request_line(["--num-prompts", "4"], "/out/chat_c1.bench.log")
    assert line.endswith("\n") and line.count("\n") == 1
    assert benchserve.read_request(line) == (["--num-prompts", "4"], "/out/chat_c1.bench.log")


@pytest.mark.parametrize("line, says", [
    ("not json", "generator request: not JSON"),
    ("[1, 2]", "generator request: not a JSON object"),
    ('{"args": "--num-prompts 4", "log": "/l"}', "'args' must be a list of strings"),
    ('{"args": ["--seed", 1], "log": "/l"}', "'args' must be a list of strings"),
    ('{"args": []}', "'log' must be a file path, got None"),
])
def test_a_bad_request_is_refused_saying_what_is_wrong(line: str, says: str) -> None:
    with pytest.raises(ProtocolError, match=says):
        benchserve.read_request(line)


def test_replies_ready_then_exit_codes() -> None:
    assert benchserve.read_reply(benchserve.ready_line(61.23456, 1.5)) == {
        "ready": True, "import_s": 61.235, "at_unix": 1.5}
    assert benchserve.read_reply(benchserve.done_line(0)) == {"exit_code": 0}
    assert benchserve.read_reply(benchserve.done_line(1, "ValueError: no server")) == {
        "exit_code": 1, "error": "ValueError: no server"}


@pytest.mark.parametrize("line", ['{"ready": true}', '{"exit_code": "0"}',
                                  '{"exit_code": true}', '{}', "Traceback (most recent"])
def test_a_reply_that_is_neither_is_refused(line: str) -> None:
    with pytest.raises(ProtocolError, match="generator reply: "):
        benchserve.read_reply(line)


def exits(code: object) -> None:
    raise SystemExit(code)


def test_a_points_exit_code_from_its_run() -> None:
    assert benchserve.run_point(lambda args: None, []) == (0, "")
    assert benchserve.run_point(lambda args: exits(None), []) == (0, "")
    assert benchserve.run_point(lambda args: exits(2), []) == (2, "exited 2")
    assert benchserve.run_point(lambda args: exits("usage: ..."), []) == (1, "exited usage: ...")
    code, error = benchserve.run_point(lambda args: int("x"), [])
    assert code == 1 and error.startswith("ValueError: invalid literal")


def test_the_loop_says_ready_once_and_answers_every_point_in_order() -> None:
    seen: list[tuple[list[str], str]] = []
    logs: list[str] = []

    def bench(args: list[str]) -> None:
        seen.append((args, logs[-1]))
        if args == ["--fail"]:
            raise ConnectionError("server gone")

    @contextmanager
    def redirect(path: str) -> Iterator[None]:
        logs.append(path)
        yield

    requests = io.StringIO("".join([benchserve.request_line(["--a"], "/l/1.log"), "\n",
                                    benchserve.request_line(["--fail"], "/l/2.log"),
                                    benchserve.request_line(["--b"], "/l/3.log")]))
    replies = io.StringIO()
    benchserve.serve_points(bench, requests, replies, 12.5, redirect)
    lines = [json.loads(line) for line in replies.getvalue().splitlines()]
    assert lines[0].pop("at_unix") == pytest.approx(time.time(), abs=60)
    assert lines == [{"ready": True, "import_s": 12.5}, {"exit_code": 0},
                     {"exit_code": 1, "error": "ConnectionError: server gone"},
                     {"exit_code": 0}]
    assert seen == [(["--a"], "/l/1.log"), (["--fail"], "/l/2.log"), (["--b"], "/l/3.log")]


def test_a_bad_request_ends_the_loop_with_the_reason() -> None:
    replies = io.StringIO()
    with pytest.raises(ProtocolError, match="'log' must be a file path"):
        benchserve.serve_points(lambda args: None, io.StringIO('{"args": []}\n'), replies, 0.0)
    assert json.loads(replies.getvalue())["ready"] is True
