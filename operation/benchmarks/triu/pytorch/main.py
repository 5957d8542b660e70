"""operator benchmark triu (see chipperf_runtime/operation/table.py for its shapes)."""

from chipperf_runtime.operation import main

if __name__ == "__main__":
    main("triu")
