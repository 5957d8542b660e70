"""operator benchmark scaled_dot_product_attention (see operation/benchmarks/operators/table.py for its shapes)."""

from operators import main

if __name__ == "__main__":
    main("scaled_dot_product_attention")
