"""NVIDIA-only engines and execution providers: TensorRT, ONNX Runtime's CUDA and TensorRT EPs.

The one place in the inference engines (with the device layer, ``chipperf_runtime.device``) that names
CUDA; tests/unit/test_device_names.py holds every other engine file to that.
"""
