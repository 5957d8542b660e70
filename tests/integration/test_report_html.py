"""report.html loaded in headless Chromium: the plots render, nothing is fetched or run.

Needs Debian's ``chromium`` (``apt-get install -y chromium``; .ci/run installs it). The
test fails, never skips, when it is missing.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from chipperf.results.report import write_reports
from chipperf.results.synthetic import SynthCase, SynthRound, write_run

pytestmark = pytest.mark.integration

CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--no-first-run", "--enable-logging=stderr",
                  "--v=0")
BLUE = (0x1F, 0x77, 0xB4)        # the first series / bar colour of chipperf.results.render.svg


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
    cases = [SynthCase(seconds=30, rounds=(SynthRound(), SynthRound(1020.0),
                                           SynthRound(980.0, converged=False))),
             SynthCase(model="bert", vendor="cpu", chip="xeon", nnodes=1, seconds=20,
                       rounds=(SynthRound(300.0),))]
    run = write_run(root, cases)
    write_reports(run)
    return run / "report.html"


def test_report_is_self_contained(report):
    html = report.read_text()
    assert "<script" not in html.lower()
    assert not re.search(r"""\b(src|href)\s*=""", html)
    assert not re.search(r"@import|url\(", html)
    urls = set(re.findall(r"https?://[^\s\"'<>]+", html))
    assert urls == {"http://www.w3.org/2000/svg"}                 # the SVG namespace only
    assert "Content-Security-Policy" in html


def test_plots_render_in_chromium(report, tmp_path):
    done = run_chromium(tmp_path, "--dump-dom", report.as_uri())
    assert done.returncode == 0, done.stderr[-2000:]
    dom = done.stdout
    svgs = re.findall(r"<svg\b[^>]*>", dom)
    # case 1: throughput bars + 3 rounds x 6 charts (node power, accelerator power, util and
    # memory, CPU, host memory; no RAPL); case 2 (cpu): bars + 3 (node power, CPU, host memory)
    assert len(svgs) == (1 + 3 * 6) + (1 + 3), len(svgs)
    assert len(re.findall(r'<rect class="bar"', dom)) == 4
    assert len(re.findall(r'<rect class="window"', dom)) == 3 * 6 + 3
    assert len(re.findall(r"<polyline\b", dom)) == 3 * 6 * 2 + 3 * 1   # one line per node
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
