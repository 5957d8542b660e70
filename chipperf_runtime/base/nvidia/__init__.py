"""base/ methods that only NVIDIA GPUs have (cuBLASLt called directly)."""
