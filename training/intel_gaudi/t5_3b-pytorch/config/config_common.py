# t5_3b / PyTorch on Intel Gaudi: what every topology shares. T5-3B (model_size "3b")
# fine-tuned from the data folder's t5-3b weights on CNN/DailyMail (sources of 1024 tokens,
# summaries of 128), fp32 with gradient checkpointing as the seed ran it (config/_base.py's
# recipe). On intel_gaudi the case runs chipperf's loop in Optimum Habana's lazy mode, HPU graphs
# by the knobs hpu_graphs_for_training / hpu_graphs_for_inference (GaudiTrainer's defaults, off),
# in the optimum_habana image: see ../README.md. Not run by chipperf (no Gaudi here).
