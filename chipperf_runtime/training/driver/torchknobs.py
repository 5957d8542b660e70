"""The PyTorch speed knobs the training loops share: ``torch.compile`` of a module (the
``compile`` / ``compile_mode`` / ``compile_backend`` parameters of driver/compile_base.py) and
fused optimizer kernels where the device has them. Each loop reports what it ran in
FINISHED's ``execution`` (``Driver.executed``).

    setting = compile_setting(cfg, device)     # ConfigError/CaseError before anything is built
    compile_module(net, setting)               # in place: names, DDP/FSDP wrapping unchanged
    driver.executed(compile=setting.describe())
    torch.optim.AdamW(..., fused=fused_optimizer(device) or None)
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from typing import Any, Callable

import torch
from torch import nn
from torch.utils._foreach_utils import _get_fused_kernels_supported_devices

from chipperf_runtime.device.torch import TorchDevice
from chipperf_runtime.training.driver.case import Driver
from chipperf_runtime.training.driver.config import Config
from chipperf_runtime.training.driver.errors import CaseError, ConfigError

INDUCTOR = "inductor"


@dataclass(frozen=True)
class CompileSetting:
    """What ``compile_module`` does: nothing (``enabled`` False), or torch.compile with this
    backend (and mode, for Inductor)."""

    enabled: bool
    mode: str = "default"
    backend: str = INDUCTOR

    def describe(self) -> str:
        """For FINISHED's ``execution``: "eager", or "torch.compile(<backend>, mode=<mode>)"."""
        if not self.enabled:
            return "eager"
        return f"torch.compile({self.backend}, mode={self.mode})" if self.backend == INDUCTOR \
            else f"torch.compile({self.backend})"


def compile_setting(cfg: Config, device: TorchDevice) -> CompileSetting:
    """The config's compile knobs, checked (a case without them runs eager). Inductor on the
    CPU builds C++ kernels: a missing compiler is a ``CaseError`` naming the fix."""
    if not cfg.get("compile", False):
        return CompileSetting(False)
    if device.is_xla:
        raise ConfigError("compile = True on an XLA device (torch_xla): XLA already compiles "
                          "each step whole from its traced graph: set compile = False")
    mode, backend = str(cfg.get("compile_mode", "default")), str(cfg.get("compile_backend", INDUCTOR))
    modes = compile_modes()
    if mode not in modes:
        raise ConfigError(f"compile_mode {mode!r} is unknown: use one of {', '.join(modes)}")
    if backend not in torch._dynamo.list_backends(exclude_tags=()):
        raise ConfigError(f"compile_backend {backend!r} is not a torch.compile backend here: use "
                          f"one of {', '.join(torch._dynamo.list_backends())}")
    if backend == INDUCTOR and not device.is_accelerator and cpp_compiler() is None:
        raise CaseError("compile = True with the inductor backend on cpu needs a C++ compiler "
                        "(Inductor builds C++ kernels): install g++ in the image, or set "
                        "compile = False")
    return CompileSetting(True, mode, backend)


def compile_modes() -> list[str]:
    """torch.compile's modes for Inductor, as this torch lists them."""
    import torch._inductor

    modes = list(torch._inductor.list_mode_options())
    return modes if "default" in modes else ["default", *modes]


def cpp_compiler() -> str | None:
    """The C++ compiler Inductor would use on the CPU, or None."""
    return shutil.which("g++") or shutil.which("c++")


def compile_module(module: nn.Module, setting: CompileSetting) -> None:
    """torch.compile ``module``'s forward in place (``nn.Module.compile``): its parameter
    names, state dict and wrappers stay as they are. Nothing when compiling is off."""
    if not setting.enabled:
        return
    options: dict[str, Any] = {"backend": setting.backend}
    if setting.backend == INDUCTOR:
        options["mode"] = setting.mode
    module.compile(**options)


def compile_function(fn: Callable[..., Any], setting: CompileSetting) -> Callable[..., Any]:
    """``fn`` under torch.compile as ``setting`` says (``fn`` itself when compiling is off)."""
    if not setting.enabled:
        return fn
    options: dict[str, Any] = {"backend": setting.backend}
    if setting.backend == INDUCTOR:
        options["mode"] = setting.mode
    return torch.compile(fn, **options)


def compile_for(driver: Driver, modules: list[nn.Module], device: TorchDevice) -> CompileSetting:
    """Compile each of ``modules`` as the driver's config asks and record it in FINISHED's
    ``execution`` (``compile``)."""
    setting = compile_setting(driver.config, device)
    for module in modules:
        compile_module(module, setting)
    driver.executed(compile=setting.describe())
    return setting


def fused_optimizer(device: TorchDevice) -> bool:
    """Whether the optimizer should use its fused kernels: on an accelerator whose kind
    torch's fused AdamW/SGD kernels support (torch names them; a registered plug-in too). The CPU
    keeps the for-each path its figures were measured with."""
    return device.is_accelerator and device.device.type in _get_fused_kernels_supported_devices()
