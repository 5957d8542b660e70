"""The PyTorch case whose model returns its own training loss (tacotron2, waveglow, dlrm,
moflow): a case hands ``case.main`` a ``LossCase`` (presets, model builder, data, evaluation,
FLOPs); DDP, AdamW with warmup and decay, the loop (``textlm.loop``), FLOPs and FINISHED are
the same for every such case. See README.md."""
