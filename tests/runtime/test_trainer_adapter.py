"""The vendor's trainer adapter as the case loads and calls it (chipperf_runtime.training.
driver.adapter): FlagPerf's argument lists, extern/layers on the path, and the errors that stop
a case before training, each naming the file."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import torch

from chipperf_runtime.training.driver.adapter import Adapter, load_adapter, vendor_env
from chipperf_runtime.training.driver.errors import ConfigError


def vendor_case(tmp_path: Path, adapter: str, layer: str = "") -> Path:
    """A vendor case folder with ``adapter`` as extern/trainer_adapter.py; returns config/."""
    (tmp_path / "config").mkdir()
    (tmp_path / "extern" / "layers").mkdir(parents=True)
    (tmp_path / "extern" / "trainer_adapter.py").write_text(adapter)
    (tmp_path / "extern" / "layers" / "__init__.py").write_text(layer)
    return tmp_path / "config"


@pytest.fixture(autouse=True)
def fresh_modules():
    """Each test imports its own adapter and layers."""
    before = set(sys.modules)
    yield
    for name in set(sys.modules) - before:
        if name in ("trainer_adapter", "layers") or name.startswith("layers."):
            del sys.modules[name]


def test_hooks_take_the_arguments_they_name_and_are_recorded(tmp_path) -> None:
    config = vendor_case(tmp_path, (
        "from layers import SCALE\n\n"
        "def convert_model(model):\n    return model * SCALE\n\n"
        "def create_optimizer(model, args):\n    return ('opt', model, args)\n\n"
        "def backward(step, loss, *rest):\n    return (step, loss, rest)\n"), "SCALE = 10\n")
    adapter = load_adapter(config)
    assert adapter.describe() == {"file": str(tmp_path / "extern" / "trainer_adapter.py"),
                                  "hooks": ["backward", "convert_model", "create_optimizer"]}
    assert adapter.converted("convert_model", 2, "cfg") == 20    # FlagPerf's convert_model(model)
    assert adapter.converted("model_to_fp16", 2, "cfg") == 2     # no hook: the model as it is
    assert adapter.step("create_optimizer", lambda: "own", "m", "cfg") == ("opt", "m", "cfg")
    assert adapter.step("create_grad_scaler", lambda: "own scaler", "cfg") == "own scaler"
    assert adapter.call("backward", 3, "loss", "opt", None) == (3, "loss", ("opt", None))
    assert adapter.used == ["convert_model", "create_optimizer", "backward"]


def test_no_adapter_is_an_empty_one(tmp_path) -> None:
    (tmp_path / "config").mkdir()
    adapter = load_adapter(tmp_path / "config")
    assert adapter == Adapter() and adapter.describe() is None
    assert load_adapter(None).step("create_optimizer", lambda: "own") == "own"


def test_an_adapter_that_raises_on_import_names_the_file(tmp_path) -> None:
    config = vendor_case(tmp_path, "import torch_xmlir\n")
    with pytest.raises(ConfigError) as err:
        load_adapter(config)
    assert str(err.value) == (
        f"{tmp_path / 'extern' / 'trainer_adapter.py'}: importing the vendor's trainer adapter "
        "failed: ModuleNotFoundError: No module named 'torch_xmlir': fix the adapter, or install "
        "what it imports (config/requirements.txt beside it)")


def test_a_declared_hook_it_lacks_names_the_file(tmp_path) -> None:
    config = vendor_case(tmp_path, "HOOKS = ['backward', 'create_optimizer']\n\n"
                                   "def create_optimizer(model):\n    return None\n")
    with pytest.raises(ConfigError, match=r"trainer_adapter.py: declares hook\(s\) backward in "
                                          "HOOKS but does not define them"):
        load_adapter(config)


def test_a_hook_beside_one_that_replaces_its_step_is_refused_at_import(tmp_path) -> None:
    config = vendor_case(tmp_path, "def train_step(model, batch, optimizer):\n    return 0\n\n"
                                   "def backward(step, loss):\n    pass\n")
    with pytest.raises(ConfigError) as err:
        load_adapter(config)
    assert str(err.value) == (
        f"{tmp_path / 'extern' / 'trainer_adapter.py'}: defines train_step and backward: "
        "train_step replaces the whole step backward is part of, so the loop never calls "
        "backward: rename it (e.g. _backward) as a helper that train_step calls, or remove "
        "train_step")


def test_bound_and_prepared_hooks(tmp_path) -> None:
    """``bound``: a hook as a function of the loop's arguments with the config after them;
    ``prepared``: convert_model, then model_to_fp16 for a reduced dtype only."""
    config = vendor_case(tmp_path, (
        "def convert_model(model):\n    return model + ['converted']\n\n"
        "def model_to_fp16(model, config):\n    return model + [config.dtype]\n\n"
        "def train_one_step(model, batch, optimizer, step, scaler, config):\n"
        "    return (model, batch, optimizer, step, scaler, config.dtype)\n"))
    adapter = load_adapter(config)

    class Cfg:
        def __init__(self, dtype: str) -> None:
            self.dtype = dtype
    assert adapter.prepared([], Cfg("fp32")) == ["converted"]
    assert adapter.prepared([], Cfg("bf16")) == ["converted", "bf16"]
    step = adapter.bound("train_one_step", Cfg("bf16"))
    assert step is not None and step("m", "b", "o", 3, None) == ("m", "b", "o", 3, None, "bf16")
    assert adapter.bound("backward") is None
    assert adapter.used == ["convert_model", "model_to_fp16", "train_one_step"]


def test_steps_zero_runs_itself_are_refused_under_zero(tmp_path) -> None:
    """With zero_stage > 0 DeepSpeed's engine runs DDP, scaling, backward and the step: an
    adapter replacing them would not run, so the text case stops naming them."""
    from chipperf_runtime.training.hftext.case import refuse_under_zero

    config = vendor_case(tmp_path, "def create_optimizer(model):\n    return None\n\n"
                                   "def backward(step, loss):\n    pass\n")
    refuse_under_zero(Adapter())
    with pytest.raises(ConfigError) as err:
        refuse_under_zero(load_adapter(config))
    assert str(err.value) == (
        f"{tmp_path / 'extern' / 'trainer_adapter.py'}: defines backward, which DeepSpeed's ZeRO "
        "engine runs itself when zero_stage > 0 (they would not run): set zero_stage = 0 for the "
        "vendor's steps, or remove them")


def test_the_text_loop_scales_fp16_losses_and_zero_refuses_fp16() -> None:
    """fp16 in the text loop: torch.amp's GradScaler (the default create_grad_scaler), none for
    fp32 and bf16; with zero_stage > 0 fp16 is a config problem (ZeRO's engine would not use
    the loop's scaler)."""
    from chipperf_runtime.training.hftext.case import grad_scaler
    from chipperf_runtime.training.hftext.zero import zero_problems

    cpu = SimpleNamespace(autocast_type="cpu")
    assert isinstance(grad_scaler(SimpleNamespace(dtype="fp16"), cpu), torch.amp.GradScaler)
    assert [grad_scaler(SimpleNamespace(dtype=d), cpu) for d in ("fp32", "bf16")] == [None, None]
    assert zero_problems({"zero_stage": 0, "dtype": "fp16"}) == []
    assert zero_problems({"zero_stage": 2, "dtype": "fp16"}) == [
        "dtype 'fp16' with zero_stage = 2: the ZeRO path runs fp32 or bf16 (its engine's fp16 "
        "loss scaling is not wired to the case's loop): use bf16, or zero_stage = 0 for fp16 "
        "with the loop's GradScaler"]


def test_vendor_env_reports_the_named_variables() -> None:
    environ = {"CHIPPERF_VENDOR_ENV": "BKCL_PCIE_RING,XDNN_CONV_GEMM_DTYPE",
               "BKCL_PCIE_RING": "1", "XDNN_CONV_GEMM_DTYPE": "int16", "OTHER": "x"}
    assert vendor_env(environ) == {"BKCL_PCIE_RING": "1", "XDNN_CONV_GEMM_DTYPE": "int16"}
    assert vendor_env({}) == {}


class _Logits(torch.nn.Module):
    """A one-layer 'language model': token ids -> logits over 5 tokens."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.embed = torch.nn.Embedding(5, 5)

    def forward(self, input_ids: torch.Tensor) -> Any:
        return SimpleNamespace(logits=self.embed(input_ids))


def _text_loop(**hooks: Any) -> Any:
    from chipperf_runtime.training.hftext.train import Loop

    model = _Logits()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    return Loop(model=model, optimizer=optimizer,
                scheduler=torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 1.0),
                device=torch.device("cpu"), dtype="fp32", grad_clip_norm=1.0, task=None,  # type: ignore[arg-type]
                train_epoch=lambda epoch: iter(()), eval_set=[], scorer=None,  # type: ignore[arg-type]
                **hooks)


def _batch() -> Any:
    from chipperf_runtime.training.hftext.tasks import Tensors

    ids = torch.tensor([[1, 2, 3, 4]])
    return Tensors({"input_ids": ids}, torch.tensor([[2, 3, 4, -100]]))


def test_the_text_loop_calls_each_step_hook_at_its_point() -> None:
    """update_model_params after the loop's backward (the gradients are there); backward in
    place of backward and step; train_one_step in place of the whole step; the loop's own step
    through a grad scaler from create_grad_scaler; each followed by the lr schedule's step."""
    from chipperf_runtime.training.hftext.train import train_step

    seen: list[Any] = []

    def update(loss: Any, optimizer: Any, scaler: Any) -> None:
        seen.append(("update", all(p.grad is not None for g in optimizer.param_groups
                                   for p in g["params"]), scaler))
        optimizer.step()
    loop = _text_loop(update=update)
    before = loop.model.embed.weight.detach().clone()
    train_step(loop, _batch())
    assert seen == [("update", True, None)] and not torch.equal(before, loop.model.embed.weight)
    assert loop.scheduler.last_epoch == 1

    loop = _text_loop(backward=lambda step, loss, opt, scaler: (seen.append(("backward", step)),
                                                                 opt.step()))
    train_step(loop, _batch())
    train_step(loop, _batch())
    assert seen[1:] == [("backward", 1), ("backward", 2)] and loop.scheduler.last_epoch == 2

    def whole(model: Any, batch: Any, optimizer: Any, step: int, scaler: Any) -> Any:
        seen.append(("train_one_step", step))
        return model(**batch.inputs).logits.sum()
    loss = train_step(_text_loop(whole_step=whole), _batch())
    assert seen[-1] == ("train_one_step", 1) and not loss.requires_grad

    scaled = _text_loop(scaler=torch.amp.GradScaler("cpu", init_scale=4.0))
    before = scaled.model.embed.weight.detach().clone()
    train_step(scaled, _batch())
    assert not torch.equal(before, scaled.model.embed.weight)


def test_a_whole_step_hook_must_return_the_loss() -> None:
    from chipperf_runtime.training.hftext.train import train_step

    loop = _text_loop(whole_step=lambda model, batch, optimizer, step, scaler: 0.5)
    with pytest.raises(ConfigError, match="the vendor's trainer adapter's train_one_step returned "
                                          "float, not the step's loss: return the loss tensor"):
        train_step(loop, _batch())


def test_the_loss_loop_takes_the_vendor_s_loss_and_scaler() -> None:
    """calculate_loss(model, batch) gives the loss of training and of the default evaluation;
    create_grad_scaler's scaler scales the backward."""
    from chipperf_runtime.training.lossloop.train import Loop, mean_loss, train_step

    model = torch.nn.Linear(3, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    calls: list[int] = []

    def vendor_loss(net: Any, batch: Any) -> Any:
        calls.append(int(batch[0].shape[0]))
        return ((net(batch[0]) - batch[1]) ** 2).mean()
    loop = Loop(model=model, optimizer=optimizer,
                scheduler=torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 1.0),
                device=torch.device("cpu"), dtype="fp32", grad_clip_norm=1.0,
                train_epoch=lambda epoch: (), eval_set=(), evaluator=mean_loss,
                scaler=torch.amp.GradScaler("cpu", init_scale=8.0), calculate_loss=vendor_loss)
    batch = (torch.ones(4, 3), torch.zeros(4, 1))
    first = float(train_step(loop, batch))
    assert float(train_step(loop, batch)) < first and calls == [4, 4]
    assert loop.scaler.get_scale() == 8.0 and loop.scheduler.last_epoch == 2
    assert mean_loss(model, [batch], loop) >= 0 and calls == [4, 4, 4]
