"""Shared code of chipperf's inference cases: config layering, engines, scenarios, accuracy.

A case entry (``<model>/<family>/run_inference.py``) describes its model and data as a
``common.case.Case`` and hands it to ``common.runner.main``. Imports only the standard
library, PyYAML, NumPy, Pillow, PyTorch (and ONNX Runtime / TensorRT inside their engines).
"""
