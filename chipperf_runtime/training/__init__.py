"""The training suite's shared case code: the driver and each model family's helpers."""
