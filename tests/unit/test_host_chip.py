"""The cpu chip key ("xeon") is a config key: every output names the CPU the nodes reported
(sys_info.json, from /proc/cpuinfo) beside it, so an AMD EPYC host is not called a Xeon."""

from __future__ import annotations

import json

from synthetic_results import SynthCase, SynthRound, write_run

from chipperf.results.entry import report_main
from chipperf.results.read.check import check
from chipperf.results.read.collect import collect
from chipperf.results.read.hostchip import chip_model

EPYC = "AMD EPYC 7B13 64-Core Processor"


def test_an_epyc_host_keyed_xeon_is_shown_as_its_epyc_with_the_key(tmp_path, capsys) -> None:
    case = SynthCase(vendor="cpu", chip="xeon", nnodes=1, nproc=2, rounds=(SynthRound(),))
    run = write_run(tmp_path, [case])
    for path in run.glob("*/round*/*/sys_info.json"):
        info = json.loads(path.read_text())
        info["cpu"]["model"] = EPYC
        path.write_text(json.dumps(info))
    result = collect(run).summary.cases[0]
    assert (result.chip, result.chip_model) == ("xeon", EPYC)
    assert result.chip_label == f"{EPYC} (xeon)"
    assert report_main(run) == 0
    assert f"{EPYC} (xeon)" in capsys.readouterr().out
    for name in ("summary.md", "report.html"):
        assert f"{EPYC} (xeon)" in (run / name).read_text(), name
    header, row = (run / "summary.csv").read_text().splitlines()[:2]
    assert "chip,chip_model" in header and f"xeon,{EPYC}" in row
    assert not [p for p in check(run).problems if "chip" in p]


def test_the_model_is_the_accelerator_where_there_is_one_else_the_cpu_tidied() -> None:
    cpu = {"model": "Intel(R) Xeon(R) Platinum 8358 CPU @ 2.60GHz"}
    assert chip_model({"cpu": cpu, "accelerators": {"count": 0}}) == "Intel Xeon Platinum 8358"
    assert chip_model({"cpu": cpu, "accelerators": {"count": 8, "model": "NVIDIA H100"}}) \
        == "NVIDIA H100"
    assert chip_model({}) == ""


def test_an_accelerator_model_that_is_the_key_is_shown_once(tmp_path) -> None:
    result = collect(write_run(tmp_path, [SynthCase(rounds=(SynthRound(),))])).summary.cases[0]
    assert result.chip_model == "A100" and result.chip_label == "A100"
