"""base/'s TOOLKIT method (issue 39, item 4): the output contract's parser, the config forms,
the folder rule and what a plan says and uploads. The cpu toolkits run for real in
tests/cases/test_base_specs.py and through the engine in tests/e2e/test_spec_suites_e2e.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_spec_suites_config import FLAGPERF_BASE

from chipperf.cli import load_spec_suite_all, main
from chipperf.config.specsuites import load_spec_suite
from chipperf.errors import ConfigError
from chipperf.plan import make_plan
from chipperf.suites.catalogue import Catalogue, default_suite_dir
from chipperf_runtime.base.methods import find, parse_output, spec_of

CPU_BASE = FLAGPERF_BASE.replace('VENDOR: "nvidia"', 'VENDOR: "cpu"').replace(
    "NPROC_PER_NODE: 8", "NPROC_PER_NODE: 1").replace('"pytorch_2.3"', '"pytorch_2.13"')


def _write(tmp_path: Path, text: str, mode: str) -> Path:
    path = tmp_path / "host.yaml"
    path.write_text(text.replace('"BENCHMARK"', mode))
    return path


def test_flagperf_result_line_is_read_in_the_benchmarks_unit() -> None:
    printed, problems = parse_output(["building ...", "[FlagPerf Result]computation-FP16=312.5TFLOPS"],
                                     "computation-FP16")
    assert problems == [] and printed is not None
    assert (printed.value, printed.unit, printed.stated) == (312.5, "TFLOP/s", {})
    printed, _ = parse_output(["[FlagPerf Result] main_memory-bandwidth = 1.5 TB/s"],
                              "main_memory-bandwidth")
    assert printed is not None and (printed.value, printed.unit) == (1500.0, "GB/s")
    printed, _ = parse_output(["[FlagPerf Result]main_memory-capacity=80GB"], "main_memory-capacity")
    assert printed is not None and printed.value == pytest.approx(80e9 / 2**30)


def test_stated_window_and_every_problem_are_kept() -> None:
    lines = ['[chipperf toolkit] {"window_s": 2.0, "work_done": 4e12, "work_unit": "FLOP"}',
             "[FlagPerf Result]computation-FP32=1.0TFLOPS",
             "[FlagPerf Result]computation-FP64=9TFLOPS",
             "[FlagPerf Result]computation-FP32=2.0TFLOPS"]
    printed, problems = parse_output(lines, "computation-FP32")
    assert printed is not None and printed.value == 2.0 and printed.stated["window_s"] == 2.0
    assert problems == ["line 3: a result for 'computation-FP64', not 'computation-FP32': ignored",
                        "2 result lines for computation-FP32: line 4's is taken"]


@pytest.mark.parametrize("lines, problem", [
    (["nothing here"], "no line '[FlagPerf Result]computation-FP32=<number><unit>'"),
    (["[FlagPerf Result]computation-FP32=5GB/s"],
     "line 1: unit 'GB/s' is not one for computation-FP32 (use one of GFLOP/s, GFLOPS"),
    (["[FlagPerf Result]computation-FP32=0TFLOPS"], "line 1: the figure 0 is not above 0"),
])
def test_unreadable_output_is_no_figure_with_the_reason(lines: list[str], problem: str) -> None:
    printed, problems = parse_output(lines, "computation-FP32")
    assert printed is None and problems[-1].startswith(problem)


def test_a_bad_stated_line_is_ignored_with_its_reason() -> None:
    printed, problems = parse_output(['[chipperf toolkit] {"window_s": 0}',
                                      "[FlagPerf Result]computation-FP32=1TFLOPS"], "computation-FP32")
    assert printed is not None and printed.stated == {}
    assert problems == ["line 1: [chipperf toolkit] needs window_s and work_done, both numbers "
                        "above 0: ignored"]


def test_the_chips_own_folder_comes_before_the_vendors(tmp_path: Path) -> None:
    for folder in ("computation-FP32/acme", "computation-FP32/acme/X1"):
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
        (tmp_path / folder / "main.sh").write_text("echo\n")
    assert find(tmp_path, "computation-FP32", "acme", "X1")[0] == tmp_path / "computation-FP32/acme/X1"
    assert find(tmp_path, "computation-FP32", "acme", "X2")[0] == tmp_path / "computation-FP32/acme"
    found, looked = find(tmp_path, "computation-FP16", "acme", "X1")
    assert found is None and looked == [tmp_path / "computation-FP16/acme/X1/main.sh",
                                        tmp_path / "computation-FP16/acme/main.sh"]


@pytest.mark.parametrize("mode, models", [
    ('"TOOLKIT"', ["computation-FP32-toolkit"]),
    ('"BENCHMARK,TOOLKIT"', ["computation-FP32", "computation-FP32-toolkit"]),
    ('["TOOLKIT", "BENCHMARK"]', ["computation-FP32", "computation-FP32-toolkit"]),
])
def test_each_method_asked_is_a_case_of_its_own(tmp_path: Path, mode: str, models: list[str]) -> None:
    _, test, problems = load_spec_suite(_write(tmp_path, CPU_BASE, mode), "base")
    assert problems == [] and [c.key.model for c in test.cases] == models
    assert {spec_of(m) for m in models} == {"computation-FP32"}


def test_an_unknown_method_is_one_problem(tmp_path: Path) -> None:
    path = _write(tmp_path, CPU_BASE, '"TOOLKITS"')
    with pytest.raises(ConfigError) as err:
        load_spec_suite_all("base", path, None)
    assert str(err.value).count("BENCHMARKS_OR_TOOLKITS") == 1
    assert "'TOOLKITS' is not a method this suite runs" in str(err.value)


def test_a_spec_without_a_toolkit_is_one_plan_line_naming_the_paths(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    text = CPU_BASE.replace('"computation-FP32": "pytorch_2.13"',
                            '"computation-FP32": "pytorch_2.13"\n    "computation-FP16": "pytorch_2.13"')
    path = _write(tmp_path, text, '"TOOLKIT"')
    assert main(["plan", "--suite", "base", "--host-config", str(path)]) == 2
    err = capsys.readouterr().err
    root = default_suite_dir("base") / "toolkits"
    assert err.count("has no toolkit") == 1
    assert (f"vendor 'cpu' has no toolkit for computation-FP16 on chip 'cpu': looked for "
            f"{root}/computation-FP16/cpu/cpu/main.sh and {root}/computation-FP16/cpu/main.sh") in err


def test_the_plan_uploads_the_toolkit_and_points_the_entry_at_it(tmp_path: Path) -> None:
    cluster, test, catalogue = load_spec_suite_all(
        "base", _write(tmp_path, CPU_BASE, '"BENCHMARK,TOOLKIT"'), None)
    plan = make_plan(cluster, test, catalogue, "run1", tmp_path)
    assert [u.target for u in plan.uploads if "toolkits" in u.target] == \
        ["code/toolkits/computation-FP32/cpu"]
    bench, tool = (c.rounds[0].nodes[0].command for c in plan.cases)
    assert "--toolkit_dir" not in bench
    assert tool[tool.index("--toolkit_dir") + 1].endswith("/code/toolkits/computation-FP32/cpu")
    assert [c.dir_name for c in plan.cases] == ["computation-FP32-pytorch_2.13-cpu-1x1",
                                               "computation-FP32-toolkit-pytorch_2.13-cpu-1x1"]


def test_nvidia_toolkits_share_their_sources_and_say_they_never_ran(tmp_path: Path) -> None:
    catalogue = Catalogue.scan(default_suite_dir("base"), "base")
    nvidia = sorted(s for s, v in catalogue.toolkits if v == "nvidia")
    assert nvidia == ["computation-BF16", "computation-FP16", "computation-FP32", "computation-FP64",
                      "computation-FP8", "computation-INT8", "computation-TF32",
                      "main_memory-bandwidth"]
    text = FLAGPERF_BASE.replace('"BENCHMARK"', '"TOOLKIT"')
    cluster, test, catalogue = load_spec_suite_all("base", _write(tmp_path, text, '"TOOLKIT"'), None)
    plan = make_plan(cluster, test, catalogue, "run1", tmp_path)
    assert [u.target for u in plan.uploads if "toolkits" in u.target] == \
        ["code/toolkits/computation-FP32/nvidia", "code/toolkits/_common/nvidia"]
    assert any("not run here" in n for n in plan.cases[0].notes)
