"""Shared code of the PyTorch language-model cases built on transformers (bert, gpt2,
distilbert, t5_small): the model presets, the task (masked, causal or span-corruption LM,
summarisation), the loop and the case's main. A case folder holds only its presets and
configs. See README.md."""
