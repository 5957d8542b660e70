# tacotron2 / PyTorch on NVIDIA GPUs: what every topology shares. Tacotron 2 (model_size
# "full") on LJSpeech 1.1's mels with DLE's filelists, bf16 autocast; the recipe is
# config/_base.py's. FlagPerf's train_batch_size is per GPU (128): the per-topology files set
# the global batch (128 x GPUs) and FlagPerf's learning rate. Not run by chipperf's CI.
num_workers = 4
log_every_steps = 50
dtype = "bf16"
