# From FlagOpen/FlagPerf@1b5a0303 training/iluvatar/bert-pytorch/config/config_BI-V100x2x8.py (values as FlagPerf sets them). The modules it star-imports are written out in its place.
# ruff: noqa
# FlagPerf's values from the modules it star-imports (their comments and code are not carried)
cuda_graph_mode: str = "segmented"
max_iterations_per_graph: int = 4
allreduce_post_accumulation: bool = False
allreduce_post_accumulation_fp16: bool = False
unpad: bool = False
unpad_fmha: bool = False
pad: bool = False
disable_fuse_scale: bool = False
disable_fuse_qkv: bool = False
disable_apex_softmax: bool = False
enable_stream: bool = False
fused_mha: bool = False
use_cuda_graph: bool = False
ddp_type: str = "apex"
bypass_amp: bool = False
distributed_lamb: bool = False
dwu_group_size: int = 0
dwu_num_blocks: int = 4
dwu_num_chunks: int = 1
dwu_num_rs_pg: int = 2
dwu_num_ar_pg: int = 4
dwu_num_ag_pg: int = 2
dwu_overlap_reductions: bool = False
dwu_e5m2_allgather: bool = False
opt_level: str = "O2"
# not carried (Python syntax error: '(' was never closed: fix the syntax): grad_scaler = GradScaler(init_scale=float(os.getenv("INIT_LOSS_SCALE", 2**20)),
fp16 = True
ddp_type = "apex"
dist_backend = "nccl"
train_batch_size = 20
fused_gelu_bias = True
fused_mha = True
unpad = True
unpad_fmha = False
dense_seq_output = True
exchange_padding = True
dwu_num_rs_pg = 1
dwu_num_ar_pg = 1
dwu_num_blocks = 1


gradient_accumulation_steps = 4
start_warmup_step = 0
warmup_proportion = 0
warmup_steps = 0

distributed_lamb = False
learning_rate = 0.00035
weight_decay_rate = 0.01
opt_lamb_beta_1 = 0.9
opt_lamb_beta_2 = 0.999

eval_batch_size = train_batch_size
max_samples_termination = 4500000
cache_eval_data = True
max_steps = 20000

seed = 9031
