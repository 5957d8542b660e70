"""chipperf: an open AI-hardware evaluation engine.

This package is uploaded into every case container, so importing it (and
``chipperf.perflog``, ``chipperf.monitors``, ``chipperf.vendors``) must need
nothing beyond the standard library.
"""

__version__ = "0.1.0"
