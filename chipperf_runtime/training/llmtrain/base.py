"""The parameters every llmtrain case shares with the same value (llama3_8B, mixtral_8x7B,
aquila2_7b, qwen1.5_MoE, chatglm3_6b, baichuan2_13b, llama2_7b_finetune, and llama2_70B and
llama3_70B through base70b.py): AdamW's schedule, evaluation and logging, numerics and host.

A case's ``config/_base.py`` first sets its own knobs, in the order every llmtrain config
lists them: ``model_size`` (a key of its run_pretraining.PRESETS; "tiny" is the CI size),
``seq_len``, ``activation_checkpointing``, its parallel layout (``tensor_parallel``, ...),
``reshard_after_forward``, ``target_eval_loss``, ``eval_samples``, ``global_batch_size``,
``micro_batch_size`` and ``learning_rate``. Then it star-imports this file, and after the
import sets whatever of it differs for the case. (The import comes after the case's own
knobs so that the resolved config, SUBMIT_INFO's too, keeps that order.)

``target_eval_loss``: the mean next-token cross entropy (nats/token) on the eval split, per
model size. Not vendor-settable: a vendor picks the size, the case fixes what "converged"
means for it. The full sizes' targets are settings for tokenised web text, not measured by
chipperf; the tiny sizes' are measured on the case's prepare_data.py corpus (the case README).

The parallel layout: world = pipeline_parallel x data parallel x tensor_parallel. The
tensor-parallel ranks of a group are consecutive and sit inside one node (tensor_parallel
divides the processes per node); FSDP2 shards parameters, gradients and AdamW states over the
data-parallel ranks. Pipeline stages (the cases with ``pipeline_parallel``) hold equal
contiguous slices of the decoder layers (pipeline_parallel x stages per rank divides
num_hidden_layers); a step's micro-batches (global_batch_size / data parallel /
micro_batch_size) go through the schedule together.

Every public name is a parameter (see docs/adding-a-case.md).
"""

# ---- optimisation (continued): AdamW (no decay on 1-D weights: RMSNorm, biases), linear
# warmup then cosine decay to learning_rate * min_lr_ratio at max_steps
min_lr_ratio = 0.1
weight_decay = 0.1
adam_beta1 = 0.9
adam_beta2 = 0.95
adam_eps = 1e-8
warmup_steps = 2000
max_steps = 500000            # the schedule's length; training stops here if not converged
grad_clip_norm = 1.0          # 0: no clipping

# ---- evaluation and logging
eval_every_steps = 500
log_every_steps = 10          # STEP_END every N optimizer steps

# ---- numerics and host
dtype = "bf16"                # "bf16" (mixed precision, fp32 master weights: FSDP2's policy, or
                              # autocast in one process) or "fp32"
seed = 1234
cpu_threads = None            # torch threads per rank on CPU (None: OMP_NUM_THREADS, else
                              # the usable cores shared among the node's ranks)
