"""chipperf: an open AI-hardware evaluation engine.

This package is uploaded into every case container, so importing it (and
``chipperf.perflog``, ``chipperf.monitors``, ``chipperf.vendors``) must need
nothing beyond the standard library.
"""

from chipperf import torchvision_hook

__version__ = "0.1.0"

torchvision_hook.install()  # so that transformers' own `import torchvision` works beside a CPU torch
