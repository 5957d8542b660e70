"""base spec interconnect-h2d (see chipperf_runtime/base/__init__.py for its method)."""

from chipperf_runtime.base import main

if __name__ == "__main__":
    main("interconnect-h2d")
