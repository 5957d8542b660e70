"""operator benchmark scaled_dot_product_attention (its shapes: operation/benchmarks/operators/table.py)."""

from operators import main

if __name__ == "__main__":
    main("scaled_dot_product_attention")
