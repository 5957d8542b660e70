"""Getting an ONNX file for the ONNX-based engines: the user's ``onnx_file``, or an export."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Sequence

import torch
from torch import nn

from chipperf_runtime.inference.engines.base import DTYPES, EngineOptions, cast_inputs, model_copy
from chipperf_runtime.inference.errors import CaseError, EngineBuildError

OUTPUT_NAME = "output"


def onnx_file(model: nn.Module, example_inputs: Sequence[torch.Tensor], options: EngineOptions,
              precision: str) -> Path:
    """The given ``onnx_file`` (which must exist), else ``model`` exported in ``precision``."""
    if options.onnx_file:
        path = Path(options.onnx_file)
        if not path.is_file():
            raise CaseError(f"onnx_file {path} does not exist: give the path of an existing "
                            "ONNX file, or set onnx_file: null to export the model")
        return path
    return export(model, example_inputs, options, precision)


def export(model: nn.Module, example_inputs: Sequence[torch.Tensor], options: EngineOptions,
           precision: str) -> Path:
    """``torch.onnx.export`` (TorchScript exporter) with a dynamic batch axis."""
    dtype = DTYPES[precision]
    module = model_copy(model, options.device, dtype)
    inputs = cast_inputs([t.to(options.device.device) for t in example_inputs], dtype)
    path = Path(options.work_dir) / f"model_{precision}.onnx"
    path.parent.mkdir(parents=True, exist_ok=True)
    names = list(options.input_names)
    try:
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(module, tuple(inputs), str(path), dynamo=False,
                              input_names=names, output_names=[OUTPUT_NAME],
                              dynamic_axes={n: {0: "batch"} for n in [*names, OUTPUT_NAME]},
                              opset_version=options.onnx_opset)
    except Exception as exc:  # noqa: BLE001 - any exporter failure is a build failure
        raise EngineBuildError(f"torch.onnx.export (opset {options.onnx_opset}) failed: {exc}: "
                               "try another onnx_opset, give a pre-exported onnx_file, or use "
                               "engine eager") from exc
    return path
