"""TensorFlow side of the device layer: the physical device a worker uses, or an error.

    device = open_tf_device(local_rank)      # before any op runs: pins one device per worker
    with tf.device(device.name): ...

TensorFlow lists CUDA GPUs as ``GPU``; vendors' PluggableDevice builds register their own
type (``NPU``, ``XPU``, ``MUSA`` ...). TPUs appear once the TPU system is initialised through
a ``TPUClusterResolver`` (kept on the device: ``TPUStrategy`` needs it).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Optional

import tensorflow as tf

from chipperf_runtime.device import DeviceError, DeviceRequest

__all__ = ["DeviceError", "TfDevice", "open_tf_device"]


@dataclass(frozen=True)
class TfDevice:
    request: DeviceRequest
    kind: str            # "CPU", "GPU", "TPU", ...
    tpu_resolver: Any = None   # the TPUClusterResolver of an initialised TPU system (TPU only)

    @property
    def name(self) -> str:
        """The logical device this worker uses ("/GPU:0": visible devices are narrowed to one)."""
        return f"/{self.kind}:0"

    @property
    def is_accelerator(self) -> bool:
        return self.kind != "CPU"

    def synchronize(self) -> None:
        if self.is_accelerator:
            tf.test.experimental.sync_devices()

    def max_memory_allocated(self) -> Optional[int]:
        """Peak bytes on this worker's device; None on cpu (TensorFlow does not track it)."""
        if not self.is_accelerator:
            return None
        return int(tf.config.experimental.get_memory_info(f"{self.kind}:0")["peak"])

    def describe(self) -> dict[str, str]:
        return {"vendor": self.request.vendor, "device": self.name,
                "tensorflow_version": tf.__version__}


def open_tf_device(local_rank: int = 0, environ: Mapping[str, str] | None = None) -> TfDevice:
    """Make only this rank's device visible and return it; ``DeviceError`` when it is unseen."""
    request = DeviceRequest.from_env(os.environ if environ is None else environ)
    kind = request.kind.tf_type
    if kind is None:
        raise request.missing("TensorFlow has no build for this device kind")
    if kind == "CPU":
        tf.config.set_visible_devices([], "GPU")
        return TfDevice(request, "CPU")
    if kind == "TPU":
        return _open_tpu(request)
    devices = tf.config.list_physical_devices(kind)
    if local_rank >= len(devices):
        raise request.missing(f"TensorFlow {tf.__version__} lists {len(devices)} {kind} device(s) "
                              f"and local rank {local_rank} needs index {local_rank}")
    tf.config.set_visible_devices(devices[local_rank], kind)
    return TfDevice(request, kind)


def _open_tpu(request: DeviceRequest) -> TfDevice:
    """Initialise the host's TPU system (every chip of the host: one process drives them all)."""
    try:
        resolver = tf.distribute.cluster_resolver.TPUClusterResolver(tpu="local")
        tf.config.experimental_connect_to_cluster(resolver)
        tf.tpu.experimental.initialize_tpu_system(resolver)
    except (ValueError, RuntimeError, tf.errors.OpError) as e:
        raise request.missing(f"TensorFlow {tf.__version__} cannot initialise a TPU system here "
                              f"({type(e).__name__}: {e or 'no detail'}): this build has no TPU "
                              "support (tensorflow-tpu) or no TPU is attached") from e
    if not tf.config.list_logical_devices("TPU"):
        raise request.missing(f"TensorFlow {tf.__version__} lists no TPU device after "
                              "initialising the TPU system")
    return TfDevice(request, "TPU", resolver)
