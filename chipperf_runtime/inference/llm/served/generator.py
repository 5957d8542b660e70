"""One load-generator process for a whole sweep: vLLM imported once, every point sent to it.

    with LoadGenerator(argv, log_path, ready_timeout_s) as generator:   # started at once
        outcome = generator.run_point(bench_args, point_log, timeout_s)  # waits for its import
    generator.timings        # each start: launch -> ready, vLLM's import; kills and why

Importing vLLM takes a minute or more on a loaded CPU; a process per point paid it at every
point. The generator (``benchserve --serve-points``) is its own process group, started beside
the server so the two imports overlap. A point past its timeout kills the generator (a failed
point, with its log) and the next point starts a fresh one; a generator that exits during a
point fails that point the same way; one that cannot start (it exits or is not ready within
its timeout) fails the point with its own log, ``start_failed`` set, and the sweep ends.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Optional

from chipperf_runtime.inference.errors import CaseError
from chipperf_runtime.inference.llm.served import benchserve
from chipperf_runtime.inference.llm.served.loadgen import bench_env, log_tail
from chipperf_runtime.inference.llm.served.server import signal_group

MODULE = "chipperf_runtime.inference.llm.served.benchserve"
# the python of vLLM's load generator where it is not the server's: the SGLang and TensorRT-LLM
# images keep vLLM in a venv of its own (its torch pin is not theirs) and name it here
ENV_PYTHON = "CHIPPERF_LOADGEN_PYTHON"


def generator_argv(python: Optional[str] = None) -> list[str]:
    python = python or os.environ.get(ENV_PYTHON) or sys.executable
    return [python, "-m", MODULE, benchserve.SERVE_POINTS]


class GeneratorFailed(CaseError):
    """The generator hung past a timeout or exited; it is gone, the next point starts anew.
    ``start_failed``: it never became ready (a fresh one would fail the same way)."""

    def __init__(self, message: str, start_failed: bool = False) -> None:
        super().__init__(message)
        self.start_failed = start_failed


@dataclass(frozen=True)
class PointOutcome:
    exit_code: int
    error: str = ""


@dataclass
class LoadGenerator:
    argv: list[str]
    log_path: Path
    ready_timeout_s: float
    process: Optional[subprocess.Popen] = None
    timings: dict = field(default_factory=lambda: {"starts": []})
    _launched: float = 0.0
    _launched_unix: float = 0.0
    _ready: bool = False
    _buffer: bytes = b""

    def __enter__(self) -> "LoadGenerator":
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log_path, "ab") as log:
            log.write(f"--- load generator start {len(self.timings['starts']) + 1}: "
                      f"{' '.join(self.argv)}\n".encode())
            log.flush()
            self._launched, self._launched_unix = time.monotonic(), time.time()
            self.process = subprocess.Popen(self.argv, stdin=subprocess.PIPE,
                                            stdout=subprocess.PIPE, stderr=log,
                                            start_new_session=True, env=bench_env())
        self._ready, self._buffer = False, b""
        self.timings["starts"].append({"why": "sweep start" if not self.timings["starts"]
                                       else "the previous generator was stopped"})

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def wait_ready(self) -> None:
        """Until the generator has imported vLLM; its start's ``ready_s`` (launch to ready,
        by its reply's clock, however late it is read) and ``import_s``."""
        if self._ready:
            return
        left = self._launched + self.ready_timeout_s - time.monotonic()
        reply = self._reply(left, self.log_path, f"{self.ready_timeout_s:g} s to import vLLM "
                            "and start (raise serve_ready_timeout_s)", True)
        self._ready = True
        at = reply.get("at_unix")
        ready_s = at - self._launched_unix if isinstance(at, (int, float)) else None
        self.timings["starts"][-1].update(ready_s=None if ready_s is None else round(ready_s, 3),
                                          import_s=reply.get("import_s"))

    def run_point(self, args: list[str], log: Path, timeout_s: float) -> PointOutcome:
        """One point, its output in ``log``; a GeneratorFailed when it hangs past
        ``timeout_s`` (counted from the request: the import is not in it) or exits."""
        if not self.alive():
            self.start()
        self.wait_ready()
        self._send(benchserve.request_line(args, str(log)))
        reply = self._reply(timeout_s, log, f"{timeout_s:g} s to run the point (raise "
                            "serve_point_timeout_s or send fewer prompts per point)", False)
        return PointOutcome(int(reply["exit_code"]), str(reply.get("error", "")))

    def _send(self, line: str) -> None:
        stdin: IO[bytes] = self.process.stdin  # type: ignore[union-attr, assignment]
        try:
            stdin.write(line.encode())
            stdin.flush()
        except BrokenPipeError:
            pass   # it exited: the reply's end of file says how

    def _reply(self, timeout_s: float, log: Path, doing: str, starting: bool) -> dict[str, Any]:
        """The next reply line within ``timeout_s``; a GeneratorFailed (the generator gone)
        when none comes in time, it exits first, or the line is not the protocol's."""
        deadline = time.monotonic() + timeout_s
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                self.kill(f"took longer than {doing}")
                raise GeneratorFailed(f"the load generator (vllm bench serve) took longer than "
                                      f"{doing}; it was killed (the next point starts a fresh "
                                      f"one); {log} ends:\n{log_tail(log)}", starting)
            if not self._read(left):
                raise self._exited(log, starting)
        line, _, self._buffer = self._buffer.partition(b"\n")
        try:
            return benchserve.read_reply(line.decode(errors="replace"))
        except benchserve.ProtocolError as exc:
            self.kill(str(exc))
            raise GeneratorFailed(f"{exc}; {log} ends:\n{log_tail(log)}", starting) from exc

    def _read(self, wait_s: float) -> bool:
        """Waits up to ``wait_s`` (at most a second) for reply bytes; False at end of file."""
        stdout: IO[bytes] = self.process.stdout  # type: ignore[union-attr, assignment]
        ready, _, _ = select.select([stdout], [], [], min(wait_s, 1.0))
        if not ready:
            return True
        chunk = os.read(stdout.fileno(), 65536)
        self._buffer += chunk
        return bool(chunk)

    def _exited(self, log: Path, starting: bool) -> GeneratorFailed:
        process, self.process = self.process, None
        code = process.wait() if process else None
        self.timings["starts"][-1]["exit_code"] = code
        when = "before it was ready" if starting else "during the point"
        own = "" if log == self.log_path else (f"\nits own log {self.log_path} ends:\n"
                                               f"{log_tail(self.log_path)}")
        return GeneratorFailed(f"the load generator (vllm bench serve) exited (code {code}) "
                               f"{when}; {log} ends:\n{log_tail(log)}{own}", starting)

    def kill(self, why: str) -> None:
        """The generator's whole process group killed at once (a hung point)."""
        if self.process is None:
            return
        process, self.process = self.process, None
        signal_group(process, signal.SIGKILL)
        process.wait()
        self.timings["starts"][-1].update(killed=why, exit_code=process.returncode)

    def stop(self, grace_s: float = 10.0) -> None:
        """Its input closed (it ends by itself between points); killed if it does not."""
        if self.process is None:
            return
        try:
            self.process.stdin.close()  # type: ignore[union-attr]
            self.process.wait(grace_s)
        except (OSError, subprocess.TimeoutExpired):
            self.kill(f"still running {grace_s:g} s after its input was closed")
            return
        process, self.process = self.process, None
        signal_group(process, signal.SIGKILL)   # anything it left in its group
        self.timings["starts"][-1]["exit_code"] = process.returncode
