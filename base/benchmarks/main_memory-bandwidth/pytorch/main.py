"""base spec main_memory-bandwidth (see base/benchmarks/specs/__init__.py for its method)."""

from specs import main

if __name__ == "__main__":
    main("main_memory-bandwidth")
