"""FlagPerf's PaddlePaddle LLM cases (llama1_7B, llama1_13B, gpt3_6.7B, gpt3_13B): the model
shapes and their counts (``arch``), FlagPerf's PaddleNLP data layout (``data``), the parallel
layout (``layout``), and the Paddle side (``model``, ``parallel``, ``train``: these import
paddle). See README.md."""
