"""operator benchmark cross_entropy (see operation/benchmarks/operators/table.py for its shapes)."""

from operators import main

if __name__ == "__main__":
    main("cross_entropy")
