"""The intel_gaudi path of the transformers cases (hftext.optimum_habana): without
optimum-habana in the image, or with lazy mode off, the case stops with one message saying
what is wrong and how to fix it (this machine has neither a Gaudi nor optimum-habana); the
HPU-graph knobs call what GaudiTrainer calls at the same points of chipperf's loop, checked
with recording stand-ins (nothing here says how a Gaudi runs them)."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest
import torch

from chipperf_runtime.training.driver.errors import ConfigError, DeviceUnavailable
from chipperf_runtime.training.hftext.optimum_habana import IMAGE, gaudi_path, refuse_off_gaudi
from chipperf_runtime.training.hftext.train import Loop, evaluate, train_step


@pytest.mark.skipif(importlib.util.find_spec("optimum") is not None
                    and importlib.util.find_spec("optimum.habana") is not None,
                    reason="optimum-habana is installed here")
def test_optimum_habana_absent_from_the_image_is_one_clear_message(monkeypatch) -> None:
    monkeypatch.delenv("PT_HPU_LAZY_MODE", raising=False)
    with pytest.raises(DeviceUnavailable) as caught:
        gaudi_path()
    message = str(caught.value)
    assert message.startswith("intel_gaudi: optimum-habana is not installed in this image")
    assert "framework pytorch_optimum_habana" in message and IMAGE in message


def test_lazy_mode_off_is_refused_naming_the_variable(monkeypatch) -> None:
    monkeypatch.setenv("PT_HPU_LAZY_MODE", "0")
    with pytest.raises(DeviceUnavailable, match="PT_HPU_LAZY_MODE=0: the Optimum Habana path "
                                                "runs in lazy mode"):
        gaudi_path()


# ---- the HPU-graph wiring, with recording stand-ins for optimum.habana and habana_frameworks
# (no Gaudi here): what GaudiTrainer calls, called at the same points of chipperf's loop


class Net(torch.nn.Module):
    """A one-layer 'language model': logits over 5 tokens from 4 features."""

    def __init__(self) -> None:
        super().__init__()
        self.proj = torch.nn.Linear(4, 5)

    def forward(self, x: torch.Tensor) -> SimpleNamespace:
        return SimpleNamespace(logits=self.proj(x))


def stand_ins(calls: list) -> dict[str, ModuleType]:
    """optimum.habana (its version, adapt_transformers_to_gaudi) and habana_frameworks.torch's
    core (mark_step) and hpu (ModuleCacher, wrap_in_hpu_graph): each records its call; the
    graph wrappers record each forward they serve and run the module's own on the CPU."""

    def adapt() -> None:
        calls.append("adapt_transformers_to_gaudi")

    class ModuleCacher:
        def __call__(self, model: torch.nn.Module, inplace: bool = False) -> torch.nn.Module:
            calls.append(("ModuleCacher", inplace))
            model.orig_forward = model.forward

            def forward(*args: Any, **kwargs: Any) -> Any:
                calls.append("cached forward" if torch.is_grad_enabled() else "uncached forward")
                return model.orig_forward(*args, **kwargs)
            model.forward = forward
            return model

    def wrap_in_hpu_graph(module: torch.nn.Module) -> torch.nn.Module:
        calls.append("wrap_in_hpu_graph")
        orig = module.forward

        def forward(*args: Any, **kwargs: Any) -> Any:
            calls.append("graphed forward")
            return orig(*args, **kwargs)
        module.forward = forward
        return module

    modules = {name: ModuleType(name) for name in (
        "optimum", "optimum.habana", "optimum.habana.transformers",
        "optimum.habana.transformers.modeling_utils", "habana_frameworks",
        "habana_frameworks.torch", "habana_frameworks.torch.core", "habana_frameworks.torch.hpu")}
    modules["optimum.habana"].__version__ = "stand-in"   # type: ignore[attr-defined]
    modules["optimum.habana.transformers.modeling_utils"].adapt_transformers_to_gaudi = adapt  # type: ignore[attr-defined]
    modules["habana_frameworks.torch.core"].mark_step = lambda: calls.append("mark_step")  # type: ignore[attr-defined]
    modules["habana_frameworks.torch.hpu"].ModuleCacher = ModuleCacher  # type: ignore[attr-defined]
    modules["habana_frameworks.torch.hpu"].wrap_in_hpu_graph = wrap_in_hpu_graph  # type: ignore[attr-defined]
    return modules


@pytest.fixture
def calls(monkeypatch) -> list:
    recorded: list = []
    for name, module in stand_ins(recorded).items():
        monkeypatch.setitem(sys.modules, name, module)
    monkeypatch.delenv("PT_HPU_LAZY_MODE", raising=False)
    return recorded


def loop_of(net: Net) -> Loop:
    torch.manual_seed(0)
    optimizer = torch.optim.SGD(net.parameters(), lr=0.5)
    batch = SimpleNamespace(inputs={"x": torch.randn(8, 4)}, labels=torch.randint(0, 5, (8,)))
    task = SimpleNamespace(tensors=lambda raw, device: raw)
    return Loop(model=net, optimizer=optimizer,
                scheduler=torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 1.0),
                device=torch.device("cpu"), dtype="fp32", grad_clip_norm=0.0, task=task,  # type: ignore[arg-type]
                train_epoch=lambda epoch: iter([batch]), eval_set=[batch],
                scorer=lambda model, b: ((model(**b.inputs).logits.argmax(-1) == b.labels).sum(), 8))


@pytest.mark.parametrize("training,inference", [(True, True), (False, False)])
def test_hpu_graphs_as_gaudi_trainer_uses_them(calls, training, inference) -> None:
    cfg = {"hpu_graphs_for_training": training, "hpu_graphs_for_inference": inference}
    gaudi = gaudi_path(cfg)
    assert gaudi.facts["hpu_graphs_for_training"] is training
    assert gaudi.facts["hpu_graphs_for_inference"] is inference
    assert gaudi.facts["optimum_habana"] == "stand-in" and gaudi.facts["lazy_mode"] is True
    net = Net()
    gaudi.prepare(net)              # before DDP would wrap it
    loop = loop_of(net)
    gaudi.attach(loop, net)
    zeroed = []
    zero_grad = loop.optimizer.zero_grad
    loop.optimizer.zero_grad = lambda set_to_none=True: (zeroed.append(set_to_none),  # type: ignore[method-assign]
                                                         zero_grad(set_to_none))
    batch = next(loop.batches(1))
    first = float(train_step(loop, batch))
    accuracy = evaluate(loop)
    second = float(train_step(loop, batch))
    assert second < first and 0.0 <= accuracy <= 1.0      # it trains, after an evaluation too
    assert zeroed == [not training] * 2                     # graphs replay into fixed tensors
    forward = "cached forward" if training else None
    expected = ["adapt_transformers_to_gaudi", *(["ModuleCacher"] if training else [])]
    assert [c[0] if isinstance(c, tuple) else c for c in calls] == [
        *expected, *(["wrap_in_hpu_graph"] if inference else []),
        *([forward] if forward else []), "mark_step", "mark_step",     # after backward, step
        *(["graphed forward"] if inference else []), *(["uncached forward"] if training else []),
        *([forward] if forward else []), "mark_step", "mark_step"]
    assert ("ModuleCacher", True) in calls or not training        # inplace=True, as GaudiTrainer
    # after the evaluation the trained forward is back: ModuleCacher's, or the class's
    assert ("forward" in net.__dict__) is training


def test_an_hpu_graph_knob_that_is_not_a_bool_is_refused(calls) -> None:
    with pytest.raises(ConfigError, match="hpu_graphs_for_training = 'yes' must be True or False"):
        gaudi_path({"hpu_graphs_for_training": "yes"})


def test_an_hpu_graph_knob_on_another_device_is_refused() -> None:
    refuse_off_gaudi({"hpu_graphs_for_training": False}, "cpu")     # GaudiTrainer's default
    with pytest.raises(ConfigError, match="hpu_graphs_for_inference = True: HPU graphs exist on "
                                          "an Intel Gaudi \\(device hpu\\) only, and this run's "
                                          "device is cuda: set it False"):
        refuse_off_gaudi({"hpu_graphs_for_inference": True}, "cuda")
