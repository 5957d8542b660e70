"""base spec main_memory-bandwidth (see chipperf_runtime/base/__init__.py for its method)."""

from chipperf_runtime.base import main

if __name__ == "__main__":
    main("main_memory-bandwidth")
