"""Suites are objects found by module (chipperf/suites/<name>.py defining SUITE), and the engine
asks the suite instead of testing its name."""

import ast
import re
from pathlib import Path

import pytest

from chipperf.suites import DEFAULT_SUITE, Suite, get_suite, suite_names, suite_of
from chipperf.suites.catalogue import Catalogue

REPO = Path(__file__).resolve().parents[2]
ENGINE = REPO / "chipperf"
SUITES_DIR = ENGINE / "suites"


def _modules_defining_suite() -> set[str]:
    """The modules of chipperf/suites/ that assign SUITE at their top level, read as source."""
    found = set()
    for path in SUITES_DIR.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if any(isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "SUITE" for t in node.targets)
               for node in tree.body):
            found.add(path.stem)
    return found


def test_the_registry_finds_exactly_the_four_suites_from_their_modules():
    assert suite_names() == ["training", "inference", "base", "operation"]
    assert set(suite_names()) == _modules_defining_suite()
    for name in suite_names():
        suite = get_suite(name)
        assert isinstance(suite, Suite) and suite.name == name
        assert suite.default_root == REPO / name and suite.default_root.is_dir()
        assert Catalogue.scan(suite.default_root, suite=name).suite is suite
    with pytest.raises(KeyError):
        get_suite("catalogue")     # a module of the package, not a suite


def test_a_result_without_a_known_suite_reads_as_training():
    """A FlagPerf run directory has no suite in run.json: its figures are training's."""
    assert DEFAULT_SUITE == "training"
    for name in (None, "", "serving", ["training"], 3):
        assert suite_of(name) is get_suite("training")
    assert suite_of("operation") is get_suite("operation")


def test_each_suite_says_how_it_is_configured_and_what_it_measures():
    training, inference, base, operation = (get_suite(n) for n in suite_names())
    assert not training.reads_host_yaml and inference.reads_host_yaml and base.reads_host_yaml
    assert [s.result_kind for s in (training, inference, base, operation)] == \
        ["training", "inference", "spec", "spec"]
    assert [s.case_noun for s in (base, operation)] == ["spec", "operator"]
    assert operation.case_of_model("mm-FP16-nativetorch") == "mm" and \
        training.case_of_model("llama3_8B") == "llama3_8B"
    assert base.measures_peak and not operation.measures_peak and operation.spec_in_case_key


# A suite-ish expression (suite, args.suite, run.get("suite"), summary.suite, ...) compared with
# a suite's name or a literal tuple of them, a suite name compared the other way round, and a
# hand-written tuple of suite names: each is a question the Suite object answers by name.
NAMES = "training|inference|base|operation"
LITERAL_TESTS = (
    re.compile(rf"""suite\w*["'\])]*\s*(==|!=|\bnot in\b|\bin\b)\s*[(\[{{]?\s*["']({NAMES})["']"""),
    re.compile(rf"""["']({NAMES})["']\s*(==|!=)\s*[\w.()"']*suite"""),
    re.compile(rf"""[(\[{{]\s*["']({NAMES})["']\s*,\s*["']({NAMES})["']"""),
)
# The count (`grep 'suite ==\|suite in (\|suite !=\|suite not in'`), with the places
# that compare a suite without testing its name.
COUNTED = re.compile(r"suite ==|suite in \(|suite !=|suite not in")
ALLOWED = sorted([
    # SQL: the leaderboard's rows of the suite the user asked for (a column filter)
    ("store/leaderboard.py", "return query if suite is None else query.where(c.c.suite == suite)"),
    ("store/leaderboard.py", "inner = inner.where(c.c.suite == suite)"),
    # the user's ?suite= checked against the registry's names
    ("store/serve.py", "if suite is not None and suite not in suite_names():"),
])


def _lines() -> list[tuple[str, str]]:
    return [(str(path.relative_to(ENGINE)), line.strip())
            for path in sorted(ENGINE.rglob("*.py"))
            for line in path.read_text(encoding="utf-8").splitlines()]


def test_no_engine_module_tests_a_suite_name_as_a_string():
    found = [f"chipperf/{where}: {line}" for where, line in _lines()
             if any(p.search(line) for p in LITERAL_TESTS)]
    assert found == [], "ask the suite (chipperf/suites/suite.py) instead:\n" + "\n".join(found)


def test_the_only_suite_comparisons_left_are_not_name_tests():
    left = sorted((where, line) for where, line in _lines() if COUNTED.search(line))
    assert left == ALLOWED, "ask the suite (chipperf/suites/suite.py) instead"
