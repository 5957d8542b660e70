"""The intel_gaudi path of the transformers text cases through Optimum Habana.

On an ``hpu`` device the case runs in lazy mode (``PT_HPU_LAZY_MODE=1``: ops are collected into
a graph that runs at each ``mark_step``), with transformers' models patched for Gaudi by
optimum-habana (``adapt_transformers_to_gaudi``: the fused kernels and static shapes
GaudiTrainer runs), a graph break after backward and after the optimizer step (what
GaudiTrainer does in lazy mode). HPU graphs where GaudiTrainer (optimum-habana 1.15.0) uses
them, each a case knob with GaudiTrainer's default (off; hftext/hpugraphs_base.py):

- ``hpu_graphs_for_training`` (its ``use_hpu_graphs_for_training``): the model's forward and
  backward cached as HPU graphs by ``habana_frameworks.torch.hpu.ModuleCacher()(model=...,
  inplace=True)`` before DistributedDataParallel wraps it, and gradients zeroed in place, not
  set to None (graphs replay into fixed tensors), as its ``_wrap_model`` and
  ``_zero_model_grad`` do;
- ``hpu_graphs_for_inference`` (its ``use_hpu_graphs_for_inference``): the evaluation forward
  (and a seq2seq task's generation) through ``wrap_in_hpu_graph``. GaudiTrainer wraps the model
  itself, and only for an evaluation outside training ("it detaches gradients"); chipperf
  evaluates during training, so the graphed forward is swapped in for the evaluation pass only
  and the trained forward is put back after it (the graphs are kept for the next evaluation).

GaudiTrainer itself is not run: the loop, its timing and FINISHED stay chipperf's, so the
figure is measured as on every other vendor. FINISHED's ``execution`` records the
optimum-habana version, lazy mode and both knobs. Nothing here runs on another device;
optimum-habana absent from the image is one DeviceUnavailable naming the image folder that
installs it.

Not run by chipperf: no Gaudi here (training/intel_gaudi/README.md);
tests/runtime/test_optimum_habana.py runs the wiring with recording stand-ins.
"""

from __future__ import annotations

import contextlib
import importlib
import os
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Mapping

from torch import nn

from chipperf_runtime.training.driver.errors import ConfigError, DeviceUnavailable
from chipperf_runtime.vendors.intel_gaudi import optimum_habana_missing

IMAGE = "training/intel_gaudi/docker_image/pytorch_optimum_habana/"
LAZY_MODE = "PT_HPU_LAZY_MODE"
GRAPH_KNOBS = ("hpu_graphs_for_training", "hpu_graphs_for_inference")


def missing_message(error: ImportError) -> str:
    """Where, what, how to fix, when ``optimum.habana`` does not import."""
    return optimum_habana_missing(error, IMAGE)


def import_optimum_habana() -> Any:
    try:
        return importlib.import_module("optimum.habana")
    except ImportError as error:
        raise DeviceUnavailable(missing_message(error)) from error


def graph_knobs(cfg: Mapping[str, Any] | None) -> dict[str, bool]:
    """The HPU-graph knobs' values (GaudiTrainer's default, off, where the case has none);
    ConfigError when one is not true or false."""
    values = {k: (cfg or {}).get(k, False) for k in GRAPH_KNOBS}
    wrong = [f"{k} = {v!r} must be True or False" for k, v in values.items()
             if not isinstance(v, bool)]
    if wrong:
        raise ConfigError("; ".join(wrong))
    return values


def refuse_off_gaudi(cfg: Mapping[str, Any] | None, device_type: str) -> None:
    """ConfigError when an HPU-graph knob is on and the device is not an hpu (it would be
    dropped without a word)."""
    on = [k for k, v in graph_knobs(cfg).items() if v]
    if on:
        raise ConfigError(f"{', '.join(on)} = True: HPU graphs exist on an Intel Gaudi (device "
                          f"hpu) only, and this run's device is {device_type}: set it False")


class EvalGraph:
    """``wrap_in_hpu_graph``'s forward of ``net``, in place only while ``during`` runs."""

    def __init__(self, net: nn.Module, hpu: Any) -> None:
        own = net.__dict__.get("forward")          # ModuleCacher's forward, or the class's
        self.graphed = hpu.wrap_in_hpu_graph(net).forward
        self.own = own
        self._restore(net)

    def _restore(self, net: nn.Module) -> None:
        if self.own is None:
            del net.forward
        else:
            net.forward = self.own

    @contextlib.contextmanager
    def during(self, net: nn.Module) -> Iterator[None]:
        net.forward = self.graphed
        try:
            yield
        finally:
            self._restore(net)


@dataclass(frozen=True)
class GaudiPath:
    """What the loop calls on an hpu: ``mark_step`` (the lazy-mode graph break), the HPU-graph
    knobs' values; ``facts`` for FINISHED's ``execution``."""

    mark_step: Callable[[], None]
    facts: dict[str, Any]
    graphs: Mapping[str, bool]

    def prepare(self, net: nn.Module) -> None:
        """Before DistributedDataParallel: the training graphs' ModuleCacher, where asked."""
        if self.graphs["hpu_graphs_for_training"]:
            hpu_module().ModuleCacher()(model=net, inplace=True)

    def attach(self, loop: Any, net: nn.Module) -> None:
        """The loop's graph breaks, in-place gradient zeroing under training graphs, and the
        evaluation's graphed forward, where asked."""
        loop.mark_step = self.mark_step
        loop.grads_to_none = not self.graphs["hpu_graphs_for_training"]
        if self.graphs["hpu_graphs_for_inference"]:
            loop.eval_forward = EvalGraph(net, hpu_module()).during


def hpu_module() -> Any:
    return importlib.import_module("habana_frameworks.torch.hpu")


def gaudi_path(cfg: Mapping[str, Any] | None = None) -> GaudiPath:
    """Lazy mode, transformers adapted to Gaudi by optimum-habana, ``cfg``'s HPU-graph knobs;
    raises DeviceUnavailable when optimum-habana is missing or lazy mode is off."""
    if os.environ.get(LAZY_MODE, "1") != "1":
        raise DeviceUnavailable(f"intel_gaudi: {LAZY_MODE}={os.environ[LAZY_MODE]}: the Optimum "
                                f"Habana path runs in lazy mode: unset it or set {LAZY_MODE}=1")
    graphs = graph_knobs(cfg)
    optimum_habana = import_optimum_habana()
    modeling = importlib.import_module("optimum.habana.transformers.modeling_utils")
    modeling.adapt_transformers_to_gaudi()
    core = importlib.import_module("habana_frameworks.torch.core")
    facts = {"optimum_habana": getattr(optimum_habana, "__version__", "unknown"),
             "lazy_mode": True, "adapt_transformers_to_gaudi": True, **graphs,
             "trainer": "chipperf's loop (not GaudiTrainer): its timing, as on every vendor"}
    return GaudiPath(core.mark_step, facts, graphs)
