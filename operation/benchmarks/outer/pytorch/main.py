"""operator benchmark outer (see operation/benchmarks/operators/table.py for its shapes)."""

from operators import main

if __name__ == "__main__":
    main("outer")
