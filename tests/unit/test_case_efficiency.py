"""selfbench/case_efficiency.py takes its cases from the catalogue: every training case with a
cpu 1x1 config, each with a data recipe that exists (pure: nothing is run)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from chipperf.suites.catalogue import Catalogue

REPO = Path(__file__).resolve().parents[2]


def load_benchmark():
    spec = importlib.util.spec_from_file_location("case_efficiency_bench",
                                                  REPO / "selfbench" / "case_efficiency.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module   # dataclasses look their module up while it loads
    spec.loader.exec_module(module)
    return module


bench = load_benchmark()


def test_every_training_case_with_a_cpu_1x1_config_is_measured() -> None:
    cases, left_out = bench.discover()
    catalogue = Catalogue.scan(REPO / "training")
    expected = {f"{m}-{f}" for (v, m, f), names in catalogue.vendor_configs.items()
                if v == "cpu" and "config_xeonx1x1.py" in names and (m, f) in catalogue.cases}
    assert left_out == []
    assert {c.name for c in cases} == expected
    assert {"resnet50-pytorch", "resnet50-tensorflow2", "bert-paddle", "llama2_7b-deepspeed",
            "vit-pytorch", "mixtral_8x7B-pytorch"} <= expected
    for case in cases:
        assert case.entry.is_file() and (case.config_dir / "config_xeonx1x1.py").is_file()
        assert (bench.BENCH / case.data.prepare[0]).is_file() and bench.OUT in case.data.prepare


def test_data_recipes_and_launch_details() -> None:
    cases = {c.name: c for c in bench.discover()[0]}
    assert cases["vit-pytorch"].data == cases["resnet50-tensorflow2"].data == bench.Dataset(
        "resnet50-pytorch-prepare_digits", ("resnet50/pytorch/prepare_digits.py", "{out}"))
    assert cases["distilbert-pytorch"].data == cases["bert-pytorch"].data
    assert cases["gpt2-pytorch"].data.prepare == ("gpt2/pytorch/prepare_data.py", "--output",
                                                  "{out}")
    assert cases["llama2_7b-deepspeed"].env == (("DS_ACCELERATOR", "cpu"),)
    assert cases["llama2_7b-deepspeed"].threads_param and cases["bert-paddle"].threads_param
    assert cases["resnet50-tensorflow2"].key == "resnet50:tensorflow2_2.21"


def test_a_case_without_a_recipe_is_left_out_with_the_reason(tmp_path: Path) -> None:
    case_dir = bench.BENCH / "bert" / "pytorch"
    assert bench.ci_data(case_dir) == bench.Dataset(
        "bert-pytorch-prepare_data", ("bert/pytorch/prepare_data.py", "--output", "{out}"))
    reason = bench.ci_data(bench.BENCH / "llmtrain")   # a folder with no prepare_data.py
    assert isinstance(reason, str) and "add ci_data" in reason


def test_a_failing_case_is_named_with_its_last_line_not_fatal(tmp_path, monkeypatch) -> None:
    """A case that exits non-zero raises CaseFailed (main names it and runs the others)."""
    import pytest

    case = bench.Case("resnet50-pytorch", "resnet50:pytorch_2.13", bench.Dataset("d", ("x",)))
    monkeypatch.setattr(bench, "case_argv", lambda *a: [
        sys.executable, "-c", "import sys; print('step 1'); sys.exit('no ops here')"])
    with pytest.raises(bench.CaseFailed, match=r"resnet50-pytorch: exit 1 after .* s: no ops here"):
        bench.run_case(case, tmp_path, 1, None)
