# waveglow / PyTorch on NVIDIA GPUs: what every topology shares. WaveGlow (model_size "full",
# WN of 256 channels) on LJSpeech 1.1's wavs with DLE's audio filelists, 8,000-sample
# segments, bf16 autocast; the recipe is config/_base.py's. DLE trains 10 segments per GPU
# with AMP: the per-topology files set the global batch (10 x GPUs). Not run by chipperf's CI.
num_workers = 4
log_every_steps = 50
dtype = "bf16"
