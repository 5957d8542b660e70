"""base spec computation-BF16 (see base/benchmarks/specs/__init__.py for its method)."""

from specs import main

if __name__ == "__main__":
    main("computation-BF16")
