"""operator benchmark scaled_dot_product_attention (its shapes: chipperf_runtime/operation/table.py)."""

from chipperf_runtime.operation import main

if __name__ == "__main__":
    main("scaled_dot_product_attention")
