"""Honest status: plan, the cases catalogue and the report say, per vendor and chip, whether
chipperf's path has run on real hardware here (today: cpu yes, every other vendor no)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from synthetic_results import SynthCase, write_run

from chipperf.commands.cases import catalogue_rows
from chipperf.commands.render_plan import render_plan
from chipperf.config.model import CaseEntry, CaseKey, ClusterConfig, TestConfig
from chipperf.plan import check, make_plan
from chipperf.results import summarize, write_reports
from chipperf.suites.catalogue import Catalogue, default_training_dir
from chipperf_runtime.vendors import HardwareValidation, get_vendor, hardware_status, vendor_names

REPO = Path(__file__).resolve().parents[2]


def test_only_the_cpu_path_has_run_on_real_hardware():
    ran = {v: hardware_status(v)[0] for v in vendor_names()}
    assert ran.pop("cpu") is True
    assert ran and set(ran.values()) == {False}, ran
    for vendor in vendor_names():
        note = get_vendor(vendor).validated_on_hardware.note
        assert note, f"{vendor}: validated_on_hardware needs a note saying where or why not"


def test_status_lines_name_vendor_chip_and_verdict():
    ran, line = hardware_status("cpu", "xeon")
    assert ran is True and line.startswith("cpu/xeon: ran on real hardware here (")
    ran, line = hardware_status("kunlunxin", "R300")
    assert ran is False and line.startswith("kunlunxin/R300: NOT validated on real hardware here (")
    assert hardware_status("nosuch") == (None, "vendor 'nosuch' is not one of chipperf's: "
                                               "no hardware status")


def test_a_validation_names_the_chips_it_ran_on():
    some = HardwareValidation(ran=True, note="lab run 2031-01-01", chips=("H100",))
    assert some.covers("h100") and some.covers(None) and not some.covers("A100")
    assert HardwareValidation(ran=True, note="any").covers("whatever")
    assert not HardwareValidation().covers("H100")


@pytest.fixture
def catalogue(tmp_path: Path) -> Catalogue:
    root = tmp_path / "training"
    for rel in ("benchmarks/resnet50/pytorch/run_pretraining.py",
                "kunlunxin/resnet50-pytorch/config/config_common.py",
                "kunlunxin/resnet50-pytorch/config/config_R300x1x8.py",
                "kunlunxin/docker_image/pytorch_2.13/Dockerfile"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("")
    return Catalogue.scan(root)


def test_plan_prints_the_status_of_the_vendor_and_of_each_case_chip(catalogue):
    key = CaseKey.parse("resnet50:pytorch_2.13:R300:1:8:1")
    cluster = ClusterConfig(hosts=("10.1.2.2",))
    test = TestConfig(vendor="kunlunxin", cases=(CaseEntry(key, "/data/imagenet"),))
    assert check(cluster, test, catalogue) == []
    text = render_plan(make_plan(cluster, test, catalogue, "run1", Path("r")), cluster, test)
    assert "\nhardware    kunlunxin: NOT validated on real hardware here (" in text
    assert "\n  hardware  kunlunxin/R300: NOT validated on real hardware here (" in text


def test_config_common_is_not_a_topology(catalogue):
    assert catalogue.vendor_configs[("kunlunxin", "resnet50", "pytorch")] == \
        frozenset({"config_R300x1x8.py"})


def test_cases_catalogue_gives_the_status_per_vendor_and_chip():
    row = {(r["model"], r["framework"]): r for r in catalogue_rows(default_training_dir())}
    hardware = row[("resnet50", "pytorch")]["hardware"]
    assert hardware["cpu/xeon"]["ran"] is True
    assert hardware["nvidia/A100"]["ran"] is False
    assert {k for k, v in hardware.items() if v["ran"]} == \
        {k for k in hardware if k.startswith("cpu/")}
    out = subprocess.run([sys.executable, "-m", "chipperf.cli", "cases"], cwd=REPO,
                         capture_output=True, text=True, check=True).stdout
    assert "has chipperf run it on real hardware here? (per vendor and chip)" in out
    assert "  cpu/xeon: ran on real hardware here (" in out
    assert "  nvidia/H100: NOT validated on real hardware here (" in out


def test_report_and_summary_carry_the_status(tmp_path):
    run = write_run(tmp_path, [SynthCase(), SynthCase(vendor="cpu", chip="xeon", nnodes=1)])
    write_reports(run)
    by_vendor = {c.vendor: c for c in summarize(run).cases}
    assert by_vendor["cpu"].hardware_validated is True
    assert by_vendor["nvidia"].hardware_validated is False
    assert by_vendor["nvidia"].hardware_note.startswith("nvidia/A100: NOT validated on real hardware")
    saved = json.loads((run / "summary.json").read_text())
    assert {c["vendor"]: c["hardware_validated"] for c in saved["cases"]} == \
        {"cpu": True, "nvidia": False}
    markdown = (run / "summary.md").read_text()
    assert "- nvidia/A100: NOT validated on real hardware here (" in markdown
    assert "Hardware status: cpu/xeon: ran on real hardware here (" in markdown
    html = (run / "report.html").read_text()
    assert '<p class="bad">Hardware status: nvidia/A100: NOT validated on real hardware' in html


@pytest.mark.parametrize("suite,name,count", [("base", "computation-FP32", 14),
                                              ("operation", "softmax", 25),
                                              ("inference", "resnet50", 1)])
def test_cases_of_the_other_suites_give_the_status_per_vendor(suite, name, count):
    rows = {r["model"]: r for r in catalogue_rows(REPO / suite, suite)}
    assert len(rows) >= count
    hardware = rows[name]["hardware"]
    assert {v for v, h in hardware.items() if h["ran"]} == {"cpu"}
    assert hardware["nvidia"]["note"].startswith("nvidia: NOT validated on real hardware here (")
    out = subprocess.run([sys.executable, "-m", "chipperf.cli", "cases", "--suite", suite],
                         cwd=REPO, capture_output=True, text=True, check=True).stdout
    assert f"\n{name} " in out and "  cpu: ran on real hardware here (" in out
    assert "  nvidia: NOT validated on real hardware here (" in out
