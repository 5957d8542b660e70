"""textlm: what the text (language-model) training cases share, framework-free.

Part of the case runtime, uploaded with every case, so case code imports it by package name:
``from chipperf_runtime.training.textlm.mlm import open_dataset``. Standard library,
numpy and ``driver`` only; the torch/paddle models and steps stay in each case. The modules
and which case uses which: README.md beside this file.

Nothing is imported at package import: ``import chipperf_runtime.training.textlm.bert`` loads
no numpy (bert/paddle reads its config before it sets OMP_NUM_THREADS and imports numpy and paddle).
"""
