"""A training case run with a smaller model than it is named after (a vendor config's or
--set's model_size) says so in FINISHED, from the run's own config and counts, and every
output labels it: "gpt2 (tiny preset: 1,234 params)". Every cpu CI config that picks a tiny
model is such a run."""

from __future__ import annotations

import io
import json
import re
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
sys.path[:0] = [p for p in (str(REPO), str(REPO / "training" / "benchmarks")) if p not in sys.path]

from chipperf.results.compute.preset import preset_label  # noqa: E402
from chipperf_runtime.perflog import parse_lines  # noqa: E402
from chipperf_runtime.training.driver import Driver, Metric  # noqa: E402
from chipperf_runtime.training.driver.config import read_python  # noqa: E402
from chipperf_runtime.training.driver.preset import full_size_params  # noqa: E402

CASE_YAML = """description: a model
work_unit: samples
full_size:
  # the named model, counted
  params: 354823168              # Hugging Face gpt2-medium
  flops_per_unit: 2422708224
"""


class Clock:
    t = 100.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture()
def case(tmp_path: Path) -> Path:
    (tmp_path / "case" / "config").mkdir(parents=True)
    (tmp_path / "case" / "config" / "_base.py").write_text('model_size = "medium"\nlr = 0.1\n')
    (tmp_path / "case" / "config" / "mutable_params.py").write_text(
        "mutable_params = ['model_size', 'lr']\n")
    (tmp_path / "case" / "case.yaml").write_text(CASE_YAML)
    return tmp_path


def _finished(case: Path, *sets: str) -> dict:
    clock, out = Clock(), io.StringIO()
    argv = ["--data_dir", str(case), "--output_dir", str(case / "out")]
    for item in sets:
        argv += ["--set", item]
    d = Driver.start("gpt2", case / "case", argv, environ={"RANK": "0", "WORLD_SIZE": "1"},
                     clock=clock, stream=out)
    d.init_end(parameters=1234)
    d.train_start()
    with d.compute():
        clock.t += 1.0
    d.train_end()
    d.finish(work_done=8, work_unit="samples", metric=Metric("acc", 0.5, 0.4),
             flops_per_unit=2.0, dtype="fp32", peak_memory_bytes=None)
    events = parse_lines(out.getvalue().splitlines())[0]
    return events[-1].value


def test_a_smaller_model_size_is_a_preset_with_both_counts(case: Path) -> None:
    preset = _finished(case, "model_size=tiny")["preset"]
    assert preset == {"name": "tiny", "changes": {"model_size": ["tiny", "medium"]},
                      "set_by": "--set", "params": 1234, "full_params": 354823168}
    short, detail = preset_label(preset)
    assert short == "tiny preset: 1,234 params"
    assert detail.startswith("the full model has 355 M params; model_size tiny (full medium)")


def test_the_named_model_has_no_preset(case: Path) -> None:
    assert "preset" not in _finished(case)
    assert "preset" not in _finished(case, "lr=0.2")


def _tiny_cases() -> list[tuple[str, Path]]:
    """(cpu case folder, its standard case dir) for every cpu config choosing a model_size."""
    found = []
    for common in sorted(REPO.glob("training/cpu/*/config/config_common.py")):
        if not re.search(r"^model_size\s*=", common.read_text(), re.MULTILINE):
            continue
        model, family = common.parents[1].name.rsplit("-", 1)
        found.append((common.parents[1].name, REPO / "training" / "benchmarks" / model / family))
    return found


@pytest.mark.parametrize(("folder", "case_dir"), _tiny_cases(), ids=lambda x: str(x)[-40:])
def test_every_cpu_ci_preset_is_labelled_with_the_full_models_size(folder: str,
                                                                    case_dir: Path) -> None:
    """The cpu config's model_size differs from the case's _base.py (so FINISHED carries a
    preset), and case.yaml's full_size.params, read without YAML, is the YAML value."""
    vendor = read_python(REPO / "training" / "cpu" / folder / "config" / "config_common.py")
    base = read_python(case_dir / "config" / "_base.py")
    assert vendor["model_size"] != base["model_size"], folder
    full = yaml.safe_load((case_dir / "case.yaml").read_text())["full_size"]["params"]
    assert full_size_params(case_dir) == full, folder


def test_the_preset_reaches_every_output(tmp_path, capsys) -> None:
    from synthetic_results import SynthCase, SynthRound, write_run

    from chipperf.results.entry import report_main
    from chipperf_runtime.perflog import MARKER

    run = write_run(tmp_path, [SynthCase(model="gpt2", vendor="cpu", chip="xeon",
                                         rounds=(SynthRound(),))])
    for log in run.glob("*/round*/*_noderank0/rank0.out.log"):
        lines = [MARKER + json.dumps({**(e := json.loads(line.split(MARKER, 1)[1])), "value": {
            **e["value"], "preset": {"name": "tiny", "params": 612_160,
                                     "changes": {"model_size": ["tiny", "medium"]}}}})
                 if '"FINISHED"' in line else line for line in log.read_text().splitlines()]
        log.write_text("\n".join(lines) + "\n")
    assert report_main(run) == 0
    assert "(tiny preset: 0.612 M params)" in capsys.readouterr().out
    for name in ("summary.md", "summary.csv", "summary.json", "report.html"):
        assert "tiny preset: 0.612 M params" in (run / name).read_text(), name
