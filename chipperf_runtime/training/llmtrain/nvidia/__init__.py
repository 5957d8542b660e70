"""The LLM cases' NVIDIA-only implementations (Megatron-Core: megatron.py)."""
