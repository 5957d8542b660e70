"""The accuracy pass: engine vs the fp32 reference on the same inputs, and the verdict."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "inference" / "benchmarks"))

from chipperf_runtime.device.torch import open_torch_device  # noqa: E402
from chipperf_runtime.inference import measure  # noqa: E402
from chipperf_runtime.inference.case import Batch  # noqa: E402
from chipperf_runtime.inference.checkpoint import load_into  # noqa: E402
from chipperf_runtime.inference.errors import CaseError  # noqa: E402

CPU = open_torch_device(0, {"CHIPPERF_VENDOR": "cpu", "CHIPPERF_DEVICE": "cpu"})


class Items:
    """10 items of 3 features; label = index of the largest feature."""

    def __init__(self) -> None:
        torch.manual_seed(0)
        self.x = torch.randn(10, 3)

    def __len__(self) -> int:
        return len(self.x)

    def batch(self, indices) -> Batch:
        rows = self.x[list(indices)]
        return Batch((rows,), rows.argmax(-1))

    def describe(self) -> dict:
        return {}


def scored(logits, labels):
    return logits, labels


def identity(x):
    return x.clone()


def test_identical_engine_agrees_and_is_within_bound() -> None:
    acc = measure.accuracy(identity, identity, Items(), 10, 4, scored, CPU)
    assert (acc.items, acc.scored, acc.correct, acc.agree) == (10, 10, 10, 10)
    report = acc.deviation.report(1e-3)
    assert report["max_abs_diff"] == 0.0 and report["within_bound"]


def test_last_partial_batch_is_padded_and_dropped() -> None:
    seen = []

    def engine(x):
        seen.append(x.shape[0])
        return x

    acc = measure.accuracy(engine, identity, Items(), 7, 4, scored, CPU)
    assert seen == [4, 4] and acc.scored == 7


def test_drifting_engine_is_out_of_bound_even_when_top1_agrees() -> None:
    acc = measure.accuracy(lambda x: x * 1.1, identity, Items(), 10, 4, scored, CPU)
    assert acc.agree == 10
    assert not acc.deviation.report(1e-3)["within_bound"]


def test_nan_output_fails_the_bound() -> None:
    def nan_engine(x):
        y = x.clone()
        y[0, 0] = float("nan")
        return y

    acc = measure.accuracy(nan_engine, identity, Items(), 4, 4, scored, CPU)
    report = acc.deviation.report(1.0)
    assert report["nonfinite_outputs"] == 1 and not report["within_bound"]


def test_latency_samples_are_single_items_on_the_device() -> None:
    samples = measure.latency_samples(Items(), 3, CPU)
    assert [s[0].shape for s in samples] == [(1, 3)] * 3


def test_forward_flops_counts_matmuls() -> None:
    linear = torch.nn.Linear(3, 5)
    assert measure.forward_flops(linear, [torch.randn(1, 3)]) == 2 * 3 * 5


def test_checkpoint_errors(tmp_path: Path) -> None:
    model = torch.nn.Linear(3, 5)
    with pytest.raises(CaseError, match="does not exist"):
        load_into(model, str(tmp_path / "none.pt"))
    torch.save({"weight": torch.zeros(5, 3)}, tmp_path / "partial.pt")
    with pytest.raises(CaseError, match="missing bias; unexpected none"):
        load_into(model, str(tmp_path / "partial.pt"))
    torch.save({"state_dict": {"module.weight": torch.ones(5, 3), "module.bias": torch.ones(5),
                               "extra.x": torch.ones(1)}}, tmp_path / "wrapped.pt")
    load_into(model, str(tmp_path / "wrapped.pt"), ignorable=("extra.",))
    assert model.weight.sum().item() == 15.0
    (tmp_path / "text.pt").write_text("hello")
    with pytest.raises(CaseError, match="cannot be read by torch.load"):
        load_into(model, str(tmp_path / "text.pt"))


class Tied(torch.nn.Module):
    """A decoder whose weight and bias are other modules' (BERT's MLM head)."""

    def __init__(self) -> None:
        super().__init__()
        self.embed = torch.nn.Embedding(5, 3)
        self.bias = torch.nn.Parameter(torch.zeros(5))
        self.decoder = torch.nn.Linear(3, 5)
        self.decoder.weight = self.embed.weight
        self.decoder.bias = self.bias


def test_checkpoint_may_give_a_tied_tensor_under_one_of_its_names(tmp_path: Path) -> None:
    model = Tied()
    torch.save({"embed.weight": torch.ones(5, 3), "bias": torch.full((5,), 2.0)},
               tmp_path / "one_name.pt")
    load_into(model, str(tmp_path / "one_name.pt"))
    assert model.decoder.weight.sum().item() == 15.0 and model.decoder.bias.sum().item() == 10.0
    torch.save({"embed.weight": torch.ones(5, 3)}, tmp_path / "no_bias.pt")
    with pytest.raises(CaseError, match="missing bias, decoder.bias; unexpected none"):
        load_into(model, str(tmp_path / "no_bias.pt"))
