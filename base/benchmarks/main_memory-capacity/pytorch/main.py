"""base spec main_memory-capacity (see base/benchmarks/specs/__init__.py for its method)."""

from specs import main

if __name__ == "__main__":
    main("main_memory-capacity")
