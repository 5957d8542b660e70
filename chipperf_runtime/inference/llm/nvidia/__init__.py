"""LLM engines that run on NVIDIA GPUs only (vLLM)."""
