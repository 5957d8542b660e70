"""FlagPerf's 52 operators: each folder exists, and each of the 32 that flagperf_ops.py adds
computes the right result in every dtype it takes, checked in this one process (the same
inputs and float64 CPU reference as the programs; one subprocess per operator costs ~3 s
of torch import here, so test_operation_ops.py runs only a sample of them as programs)."""

from __future__ import annotations

import sys
import zlib

import pytest
from benchrun import REPO

torch = pytest.importorskip("torch")
sys.path.insert(0, str(REPO / "operation" / "benchmarks"))
from chipperf.config.flagperf_aliases import chipperf_case_name  # noqa: E402
from chipperf.config.specsuites import INTEGER_DTYPES, INTEGER_OPERATORS  # noqa: E402
from chipperf_runtime.operation.check import compare  # noqa: E402
from chipperf_runtime.operation.flagperf_ops import DROP_P, FLAGPERF_OPS  # noqa: E402
from chipperf_runtime.operation.measure import TORCH_DTYPES  # noqa: E402
from chipperf_runtime.operation.table import OPS  # noqa: E402

# FlagOpen/FlagPerf@1b5a030 `git ls-tree --name-only HEAD operation/benchmarks/` (less
# its shared `drivers` folder): FlagPerf's operators, by folder name
FLAGPERF_OPERATORS = (
    "abs add addmm all amax argmax bitwise_and bitwise_not bitwise_or bmm cos "
    "cross_entropy_loss div dropout eq exp ge gelu group_norm gt isinf isnan layer_norm le "
    "linear log_softmax lt max mean min mm mul mv native_dropout native_group_norm ne neg "
    "outer pow prod reciprocal relu rsqrt rsub sigmoid silu sin softmax sub sum tanh triu"
).split()
TINY = 4096    # elements per shape here: the check, not the speed, is under test


def test_every_flagperf_operator_runs_here() -> None:
    assert len(FLAGPERF_OPERATORS) == 52
    for name in FLAGPERF_OPERATORS:
        op = chipperf_case_name("operation", name)
        assert op in OPS, name
        assert (REPO / "operation" / "benchmarks" / op / "pytorch" / "main.py").is_file(), op
    assert len(OPS) == 62 and set(FLAGPERF_OPS) <= set(FLAGPERF_OPERATORS)


def test_the_plan_knows_which_operators_take_integers() -> None:
    """The engine's plan-time dtype check (no torch there) agrees with the operators."""
    takes_ints = {name for name, op in OPS.items() if set(op.dtypes) & set(INTEGER_DTYPES)}
    assert takes_ints == INTEGER_OPERATORS
    assert all(OPS[name].dtypes == INTEGER_DTYPES for name in INTEGER_OPERATORS)


def _tiny(shape: tuple[int, ...]) -> tuple[int, ...]:
    """The op's smaller default shape with its first number cut so it holds ~TINY elements."""
    rest = 1
    for n in shape[1:]:
        rest *= n
    return (max(2, TINY // rest), *shape[1:]) if len(shape) > 1 else (TINY,)


@pytest.mark.parametrize("name", sorted(FLAGPERF_OPS))
def test_flagperf_operator_matches_float64_reference(name: str) -> None:
    op = FLAGPERF_OPS[name]
    for dtype_name in op.dtypes:
        dtype = TORCH_DTYPES[dtype_name]
        for shape in (_tiny(op.shapes[0]), op.shapes[0]):
            g = torch.Generator().manual_seed(zlib.crc32(f"{name}{shape}".encode()))
            inputs = op.make(shape, dtype, torch.device("cpu"), g)
            result = compare(op, inputs, op.call(*inputs), dtype)
            assert result["passed"], (dtype_name, shape, result)


def test_the_check_catches_wrong_results() -> None:
    """A wrong call fails the same check (so a pass above means something)."""
    g = torch.Generator().manual_seed(0)
    cases = [("sub", torch.add), ("eq", torch.ne), ("bitwise_and", torch.bitwise_or),
             ("triu", torch.tril), ("dropout", lambda x: x),
             ("dropout", lambda x: torch.nn.functional.dropout(x, 0.5, training=True))]
    for name, wrong in cases:
        op = FLAGPERF_OPS[name]
        dtype = TORCH_DTYPES[op.dtypes[1]]
        inputs = op.make((256, 64) if len(op.shapes[0]) == 2 else (TINY,), dtype,
                         torch.device("cpu"), g)
        assert not compare(op, inputs, wrong(*inputs), dtype)["passed"], name
    assert DROP_P == 0.2
