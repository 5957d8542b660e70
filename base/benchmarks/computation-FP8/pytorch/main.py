"""base spec computation-FP8 (see chipperf_runtime/base/__init__.py for its method)."""

from chipperf_runtime.base import main

if __name__ == "__main__":
    main("computation-FP8")
