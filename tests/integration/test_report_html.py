"""report.html and `chipperf compare --html` loaded in headless Chromium: the plots, tables,
labels and links render, nothing is fetched or run.

Needs Debian's ``chromium`` (``apt-get install -y chromium``; .ci/run installs it). The
test fails, never skips, when it is missing.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from synthetic_results import SynthCase, SynthRound, write_run

from chipperf.results.entry import compare_main
from chipperf.results.report import write_reports

pytestmark = pytest.mark.integration

CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--no-first-run", "--enable-logging=stderr",
                  "--v=0")
BLUE = (0x1F, 0x77, 0xB4)        # the first series / bar colour of chipperf.results.render.svg
SMOKE = (0xFF, 0xF4, 0xD6)       # the smoke-test banner's background (render/html.py CSS)


def chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        pytest.fail("chromium not found: apt-get install -y chromium", pytrace=False)
    return path


def run_chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    profile = tmp_path / "profile"
    return subprocess.run([chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args],
                          capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL)


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("html")
    workload = (("image_size", 224), ("global_batch_size", 256), ("dtype", "bf16"),
                ("max_epochs", 90))
    cases = [SynthCase(seconds=30, evaluations=4, config=workload,
                       rounds=(SynthRound(), SynthRound(1020.0), SynthRound(980.0, converged=False))),
             SynthCase(model="bert", vendor="cpu", chip="xeon", nnodes=1, seconds=20,
                       smoke_test="digits at 32x32 check the harness only",
                       rounds=(SynthRound(300.0),))]
    run = write_run(root, cases)
    write_reports(run)
    return run / "report.html"


def test_report_is_self_contained(report):
    html = report.read_text()
    assert "<script" not in html.lower()
    assert not re.search(r"""\bsrc\s*=""", html)
    links = re.findall(r'href="([^"]*)"', html)
    assert links and all((report.parent / link).is_file() for link in links)   # its own logs
    assert not re.search(r"@import|url\(", html)
    urls = set(re.findall(r"https?://[^\s\"'<>]+", html))
    assert urls == {"http://www.w3.org/2000/svg"}                 # the SVG namespace only
    assert "Content-Security-Policy" in html


def test_plots_render_in_chromium(report, tmp_path):
    done = run_chromium(tmp_path, "--dump-dom", report.as_uri())
    assert done.returncode == 0, done.stderr[-2000:]
    dom = done.stdout
    svgs = re.findall(r"<svg\b[^>]*>", dom)
    # case 1: throughput bars + 3 rounds x (loss, metric + 6 telemetry charts: node power,
    # accelerator power, util and memory, CPU, host memory; no RAPL); case 2 (cpu, no
    # EVALUATE): bars + loss + 3 (node power, CPU, host memory)
    assert len(svgs) == (1 + 3 * (2 + 6)) + (1 + 1 + 3), len(svgs)
    assert len(re.findall(r'<rect class="bar"', dom)) == 4
    assert len(re.findall(r'<rect class="window"', dom)) == 3 * 6 + 3
    # loss 1 + metric and target 2 + one line per node per telemetry chart
    assert len(re.findall(r"<polyline\b", dom)) == 3 * (1 + 2 + 6 * 2) + (1 + 3 * 1)
    assert "Training loss (STEP_END, rank 0)" in dom
    assert "Target metric: top1 (EVALUATE, rank 0)" in dom and ">target 0.75<" in dom
    assert "Accelerator utilisation, mean over chips (%)" in dom
    assert "vendor cpu has no accelerator telemetry" in dom          # the gap, explained
    problems = [line for line in done.stderr.splitlines()
                if "CONSOLE" in line or "Uncaught" in line or "Content Security Policy" in line
                or "Refused" in line]
    assert problems == []


def test_screenshot_shows_the_charts(report, tmp_path):
    from PIL import Image

    shot = tmp_path / "shot.png"
    done = run_chromium(tmp_path, "--window-size=1360,2400", f"--screenshot={shot}",
                        report.as_uri())
    assert done.returncode == 0 and shot.is_file(), done.stderr[-2000:]
    colours = Image.open(shot).convert("RGB").getcolors(maxcolors=1 << 24)
    blue = sum(count for count, colour in colours if colour == BLUE)
    assert blue > 2000, blue                          # bars and lines drawn in the series colour
    assert len(colours) > 50                          # not a blank page


def test_cases_say_their_workload_hardware_software_and_what_is_missing_once(report, tmp_path):
    done = run_chromium(tmp_path, "--dump-dom", report.as_uri())
    assert done.returncode == 0, done.stderr[-2000:]
    dom = done.stdout
    assert dom.count("<caption>Workload</caption>") == 2
    for text in ("224x224", "bf16", "/data/resnet50", "2 x A100", "535.104.05 CUDA 12.2",
                 "torch 2.13.0", "Intel(R) Xeon(R) Platinum 8358", "1024.0 GiB",
                 "chipperf/nvidia-pytorch_2.13:abc123", "30, 30, 30 (limits: max_epochs 90)"):
        assert text in dom, text
    for section in dom.split("<section ")[1:]:
        absent = re.findall(r"<li><b>([^<]*)</b> \(([^)]*)\)", section)
        assert len(absent) == len({why for why, _ in absent}) >= 2, absent   # each reason once
    assert re.findall(r"<li><b>vendor cpu has no accelerator telemetry</b> \(every round\): "
                      r"([^<]*)</li>", dom) == [
        "avg power/chip (W), peak power/chip (W), accelerator energy (J), work/J "
        "(accelerators), peak accel memory, avg accel util (%), chart: Accelerator power, all "
        "chips of a node, chart: Accelerator utilisation, mean over chips, chart: Accelerator "
        "memory used, fullest chip"]
    # every node of every round links its files: 3 rounds x 2 nodes + 1 round x 1 node
    nodes = re.findall(r"<li><code>[^<]*_noderank\d+</code>: ((?:<a [^>]*>[^<]*</a> ?)+)", dom)
    assert len(nodes) == 3 * 2 + 1
    assert all("launcher.log" in n and "cpu_monitor.log" in n and "status" in n for n in nodes)


def test_smoke_case_is_labelled_on_the_rendered_page(report, tmp_path):
    from PIL import Image

    done = run_chromium(tmp_path, "--dump-dom", report.as_uri())
    dom = done.stdout
    assert "bert:pytorch_2.13:xeon:1:2:1 (smoke test)</h2>" in dom
    assert "digits at 32x32 check the harness only" in dom
    assert "resnet50:pytorch_2.13:A100:2:2:3 (smoke test)" not in dom
    shot = tmp_path / "top.png"
    done = run_chromium(tmp_path, "--window-size=1360,1000", f"--screenshot={shot}",
                        report.as_uri())
    assert done.returncode == 0 and shot.is_file(), done.stderr[-2000:]
    colours = Image.open(shot).convert("RGB").getcolors(maxcolors=1 << 24)
    assert sum(n for n, colour in colours if colour == SMOKE) > 5000   # the banner, on screen


@pytest.fixture(scope="module")
def comparison(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("compare")
    a = write_run(root, [SynthCase(seconds=20), SynthCase(model="bert", vendor="cpu", chip="xeon",
                                                           nnodes=1, seconds=20,
                                                           rounds=(SynthRound(300.0),))])
    b = write_run(root, [SynthCase(chip="H100", seconds=20,
                                   rounds=(SynthRound(2000.0), SynthRound(2100.0),
                                           SynthRound(1900.0)))], run_id="run20231115000000")
    page = root / "compare.html"
    assert compare_main([a, b], html=page) == 0
    return page


def test_compare_page_lays_runs_side_by_side_with_ratios_noise_and_bars(comparison, tmp_path):
    html = comparison.read_text()
    assert "<script" not in html.lower() and not re.search(r"\b(src|href)\s*=", html)
    done = run_chromium(tmp_path, "--dump-dom", comparison.as_uri())
    assert done.returncode == 0, done.stderr[-2000:]
    dom = done.stdout
    assert "<th>#1 nvidia/A100 [baseline]</th><th>#2 nvidia/H100</th>" in dom
    assert re.search(r'<td class="diff">2,000\.0 ±5\.0% \(n=3\) ×2\.000</td>', dom)  # throughput
    assert re.search(r'<td class="noise">[^<]*×1\.000 ~ noise</td>', dom)           # train time
    assert "bert:pytorch 1x2" in dom and "fewer than 2 counted rounds" in dom
    # resnet50: 7 figures x 2 runs; bert (in run 1 only): 4 figures x (1 bar + 1 n/a)
    assert len(re.findall(r'<rect class="bar"', dom)) == 7 * 2 + 4 * 1
    assert len(re.findall(r'<svg\b[^>]*class="chart bars"', dom)) == 7 + 4


def test_compare_page_screenshot_shows_the_bars(comparison, tmp_path):
    from PIL import Image

    shot = tmp_path / "compare.png"
    done = run_chromium(tmp_path, "--window-size=1360,1400", f"--screenshot={shot}",
                        comparison.as_uri())
    assert done.returncode == 0 and shot.is_file(), done.stderr[-2000:]
    colours = Image.open(shot).convert("RGB").getcolors(maxcolors=1 << 24)
    assert sum(count for count, colour in colours if colour == BLUE) > 20000


# ---------------------------------------------------------------- a page per suite, no overflow

SUITE_CASES = {
    "training": [SynthCase(seconds=20, nnodes=2)],
    "inference": [SynthCase(nnodes=1, nproc=1, seconds=20),
                  SynthCase(model="bert_large", nnodes=1, nproc=1, seconds=20)],
    "base": [SynthCase(model="computation-BF16", bench=True, chip="H100", nnodes=1, nproc=1, seconds=5,
                       rounds=(SynthRound(600.0),))],
    "operation": [SynthCase(model="scaled_dot_product_attention-BF16-nativetorch", bench=True, chip="H100",
                            nnodes=1,
                            nproc=1, seconds=5, rounds=(SynthRound(500.0, latency_ms=0.5),))],
}
WIDTH = 1280


@pytest.mark.parametrize("suite", sorted(SUITE_CASES))
def test_each_suite_page_fits_1280_px_without_horizontal_overflow(suite, tmp_path_factory):
    """Every table fits or wraps: no page is wider than a 1280 px window (the inference
    Rounds table ran past 1,400 px and cut its last column)."""
    root = tmp_path_factory.mktemp(f"fit-{suite}")
    run = write_run(root, SUITE_CASES[suite], suite=suite)
    write_reports(run)
    page = run / "report.html"
    # the page's own widths, as a title the DOM dump carries (the report has no script: add
    # one to a copy, for the measurement only)
    probe = root / "probe.html"
    probe.write_text(page.read_text().replace(
        "Content-Security-Policy", "X-none").replace(
        "</body>", "<script>document.title = 'W=' + document.documentElement.scrollWidth + "
        "' T=' + Math.max(...[...document.querySelectorAll('table')].map(t => t.scrollWidth"
        " - t.parentElement.clientWidth));</script></body>"))
    done = run_chromium(root, f"--window-size={WIDTH},900", "--dump-dom", probe.as_uri())
    assert done.returncode == 0, done.stderr[-2000:]
    widths = re.search(r"<title>W=(\d+) T=(-?\d+)</title>", done.stdout)
    assert widths, done.stdout[:500]
    assert int(widths[1]) <= WIDTH, f"{suite}: page {widths[1]} px wide"
    assert int(widths[2]) <= 0, f"{suite}: a table overflows its container by {widths[2]} px"
    shot = root / f"{suite}.png"
    done = run_chromium(root, f"--window-size={WIDTH},1800", f"--screenshot={shot}",
                        page.as_uri())
    assert done.returncode == 0 and shot.is_file(), done.stderr[-2000:]
