"""FlagPerf's case names that differ from chipperf's plan under chipperf's case (issue 28,
item 2), and base/'s BENCHMARKS_OR_TOOLKITS: "TOOLKIT" plans the vendor's toolkit (issue 39, item 4).
The host.yaml files are FlagPerf's (tests/unit/data/flagperf/inference/configs/host.yaml,
and test_spec_suites_config's copies of its base/ and operation/ host.yaml)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from test_spec_suites_config import FLAGPERF_BASE, FLAGPERF_OPERATION

from chipperf.cli import load_inference_all, load_spec_suite_all, main
from chipperf.config.flagperf_aliases import (
    FLAGPERF_ALIASES,
    FLAGPERF_CASE_NAMES,
    chipperf_case_name,
)
from chipperf.config.flagperf_knobs import CASE_NO_EFFECT, DERIVED, NO_EFFECT
from chipperf.errors import ConfigError
from chipperf.plan import make_plan

REPO = Path(__file__).resolve().parents[2]
FLAGPERF_HOST = REPO / "tests" / "unit" / "data" / "flagperf" / "inference" / "configs" / "host.yaml"


def _write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "host.yaml"
    path.write_text(text)
    return str(path)


def test_every_alias_names_a_case_chipperf_has() -> None:
    for suite, names in FLAGPERF_CASE_NAMES.items():
        for flagperf, ours in names.items():
            assert flagperf != ours and chipperf_case_name(suite, flagperf) == ours
            assert (REPO / suite / "benchmarks" / ours / "pytorch").is_dir(), (suite, ours)
            assert not (REPO / suite / "benchmarks" / flagperf).exists()
    assert chipperf_case_name("inference", "resnet50") == "resnet50"
    assert chipperf_case_name("training", "bertLarge") == "bertLarge"   # per suite


def test_flagperf_bertlarge_plans_as_bert_large(tmp_path: Path, caplog) -> None:
    text = FLAGPERF_HOST.read_text().replace('"vit_l_16:pytorch_2.1"', '"bertLarge:pytorch_2.1"')
    with caplog.at_level(logging.WARNING):
        cluster, test, catalogue = load_inference_all(_write(tmp_path, text), None)
    (entry,) = test.cases
    assert str(entry.key) == "bert_large:pytorch_2.1:A100:1:1:1"
    assert "case bertLarge is FlagPerf's name of chipperf's bert_large" in caplog.text
    plan = make_plan(cluster, test, catalogue, "run1", Path("result"))
    assert "benchmarks/bert_large/pytorch/run_inference.py" in " ".join(
        plan.cases[0].rounds[0].nodes[0].command)
    full = text.replace('"bertLarge:pytorch_2.1"', '"bertLarge:pytorch_2.1:H100:1:1:2"')
    _, test, _ = load_inference_all(_write(tmp_path, full), None)
    assert str(test.cases[0].key) == "bert_large:pytorch_2.1:H100:1:1:2"


def test_unknown_inference_case_is_one_message_naming_both_vendor_file_forms(
        tmp_path: Path) -> None:
    text = FLAGPERF_HOST.read_text().replace('"vit_l_16:pytorch_2.1"', '"bertHuge:pytorch_2.1"')
    with pytest.raises(ConfigError) as err:
        load_inference_all(_write(tmp_path, text), None)
    message = str(err.value)
    assert "no case code" in message and "bertHuge" in message and "bert_large:pytorch" in message
    assert "has no case folder" not in message and "nvidia_configuration.yaml" not in message


def test_flagperf_cross_entropy_loss_plans_as_cross_entropy(tmp_path: Path, caplog) -> None:
    text = FLAGPERF_OPERATION.replace('"mm:FP16:312:', '"cross_entropy_loss:FP16:312:')
    with caplog.at_level(logging.WARNING):
        cluster, test, catalogue = load_spec_suite_all("operation", _write(tmp_path, text), None)
    (entry,) = test.cases
    assert entry.key.model == "cross_entropy-FP16-nativetorch"
    assert "operator cross_entropy_loss is FlagPerf's name of chipperf's cross_entropy" in caplog.text
    plan = make_plan(cluster, test, catalogue, "run1", Path("result"))
    assert "benchmarks/cross_entropy/pytorch/main.py" in " ".join(
        plan.cases[0].rounds[0].nodes[0].command)


def test_integer_dtypes_of_the_bitwise_operators_plan(tmp_path: Path) -> None:
    text = FLAGPERF_OPERATION.replace('"mm:FP16:312:', '"bitwise_and:INT32:312:')
    _, test, _ = load_spec_suite_all("operation", _write(tmp_path, text), None)
    assert test.cases[0].case_args[:2] == ("--dtype", "INT32")


def test_base_toolkit_mode_plans_the_vendors_toolkit(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture) -> None:
    """FlagPerf's TOOLKIT form plans nvidia's own program, saying it never ran here
    (tests/unit/test_base_toolkits.py has the rest)."""
    path = _write(tmp_path, FLAGPERF_BASE.replace('"BENCHMARK"', '"TOOLKIT"'))
    assert main(["plan", "--suite", "base", "--host-config", path]) == 0
    out = capsys.readouterr().out
    assert "case computation-FP32-toolkit:pytorch_2.3:nvidia:1:8:1" in out
    assert "--toolkit_dir /tmp/chipperf/" in out and "/code/toolkits/computation-FP32/nvidia" in out
    assert "not run here: CUDA C++ built with nvcc" in out


def test_base_benchmark_mode_and_no_mode_plan(tmp_path: Path) -> None:
    for text in (FLAGPERF_BASE, FLAGPERF_BASE.replace('BENCHMARKS_OR_TOOLKITS: "BENCHMARK"\n', "")):
        _, test, _ = load_spec_suite_all("base", _write(tmp_path, text), None)
        assert [c.key.model for c in test.cases] == ["computation-FP32"]


def _table_rows() -> list[list[str]]:
    text = (REPO / "docs" / "flagperf-names.md").read_text()
    rows = [[c.strip().strip("`") for c in line.strip("|").split("|")]
            for line in text.splitlines() if line.startswith("| ")]
    return rows[1:]     # less the header


def test_the_docs_table_lists_every_mapping_and_no_other() -> None:
    rows = _table_rows()
    cases = {(r[0], r[2], r[3]) for r in rows if r[1] == "case"}
    assert cases == {(suite, flagperf, ours) for suite, names in FLAGPERF_CASE_NAMES.items()
                     for flagperf, ours in names.items()}
    documented = {(r[2], r[3]) for r in rows if r[1] == "parameter"}
    assert documented == {pair for names in FLAGPERF_ALIASES.values() for pair in names.items()}


def test_the_docs_list_every_derivation_and_every_name_of_no_effect() -> None:
    rows = _table_rows()
    derived = {(r[0], r[1]) for r in rows if len(r) == 4 and r[0] not in ("FlagPerf", "---")}
    assert derived == {(", ".join(d.uses).replace(", ", "`, `"), d.knob)
                       for rules in DERIVED.values() for d in rules}
    listed = {(name.strip("` "), r[1], r[2]) for r in rows
              if len(r) == 3 and (r[1] == "any case" or ":" in r[1]) for name in r[0].split(",")}
    assert listed == {(n, "any case", why) for n, why in NO_EFFECT.items()} | {
        (n, case, why) for case, table in CASE_NO_EFFECT.items() for n, why in table.items()}


def test_missing_vendor_file_names_both_of_its_forms(tmp_path: Path) -> None:
    text = FLAGPERF_HOST.read_text().replace('"vit_l_16:pytorch_2.1"', '"bertLarge:pytorch_2.1"') \
        .replace('VENDOR: "nvidia"', 'VENDOR: "ascend"')
    with pytest.raises(ConfigError) as err:
        load_inference_all(_write(tmp_path, text), None)
    assert "configs/bert_large/vendor_config/ascend_configuration.yaml (or FlagPerf's " \
        "ascend_configurations.yaml): add it" in str(err.value)


@pytest.mark.parametrize("key,message", [
    ("bitwise_or:FP32:0", "bitwise_or runs on integers: use dtype INT32 or INT16"),
    ("abs:INT16:0", "dtype INT16 is for the bitwise operators only (bitwise_and, bitwise_not, "
                    "bitwise_or): use FP64, FP32, FP16 or BF16")])
def test_a_dtype_the_operator_does_not_take_is_refused_at_plan_time(
        tmp_path: Path, key: str, message: str) -> None:
    text = FLAGPERF_OPERATION.replace('"mm:FP16:312', f'"{key}')
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_spec_suite_all("operation", _write(tmp_path, text), None)
