# wav2vec2 / PyTorch on NVIDIA GPUs: what every topology shares. wav2vec 2.0 BASE
# (model_size "base") pretrained on LibriSpeech 960 h (FlagPerf's train-full-960.tsv),
# evaluated on all of dev-other, 10 s crops, bf16 autocast; the recipe is config/_base.py's.
# The per-topology files (1x1, 1x8, 2x8) set the global batch (32 crops = 320 s of audio
# per GPU). Not run by chipperf's CI (no GPU there).
num_workers = 6
log_every_steps = 50
