"""FlagPerf vendor-config parameters that are not a plain rename (``flagperf_aliases``).

Two tables, each read by ``chipperf.config.vendorconfig`` at plan time; docs/flagperf-names.md
lists both:

- ``DERIVED``: a case knob computed from FlagPerf names of the same meaning in another unit.
  FlagPerf's ``train_batch_size`` is per device and its ``gradient_accumulation_steps`` a
  multiplier; chipperf's ``global_batch_size`` is the samples of one optimizer step, so it is
  their product with the world size. FlagPerf's ``lr`` is the rate itself; chipperf's ``base_lr``
  is scaled by ``global_batch_size / lr_reference_batch``, so both are set (the rate at this
  run's batch). The plan's note gives the arithmetic.
- ``NO_EFFECT``: FlagPerf names for its own implementation (kernels, wrappers, CUDA graphs,
  loss scalers, its peak FLOPS) or its own recipe that chipperf's case does not have. A config
  that sets one is accepted; the plan prints "no effect in chipperf: <why>" and the run records
  it (run.json's case notes, and the case's SUBMIT_INFO ``flagperf_no_effect``).

A name in neither table, nor an alias, nor the case's own knob, is refused as before.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping

Values = Mapping[str, Any]   # FlagPerf's values as the file sets them


@dataclass(frozen=True)
class Derivation:
    knob: str                        # the case knob it sets
    uses: tuple[str, ...]            # FlagPerf names it reads; it applies when uses[0] is set
    says: str                        # the arithmetic, for the note
    rule: Callable[[Values, Values, int], Any]   # (FlagPerf values, resolved knobs, world size)
    bound: bool = False     # a limit: with the knob set too, the smaller stands (FlagPerf stops
                            # at whichever limit comes first)


def _global_batch(flagperf: Values, _: Values, world: int) -> Any:
    return flagperf["train_batch_size"] * flagperf.get("gradient_accumulation_steps", 1) * world


GLOBAL_BATCH = Derivation(
    "global_batch_size", ("train_batch_size", "gradient_accumulation_steps"),
    "train_batch_size (per device) x gradient_accumulation_steps x nnodes x nproc (chipperf "
    "does not accumulate gradients: each rank takes global_batch_size / world at once)",
    _global_batch)
GLOBAL_EVAL_BATCH = Derivation(
    "global_eval_batch_size", ("eval_batch_size",), "eval_batch_size (per device) x nnodes x nproc",
    lambda flagperf, _, world: flagperf["eval_batch_size"] * world)
MAX_STEPS = Derivation(
    "max_steps", ("max_samples_termination",),
    "max_samples_termination / global_batch_size, rounded up",
    lambda flagperf, knobs, _: math.ceil(flagperf["max_samples_termination"]
                                         / knobs["global_batch_size"]), bound=True)
# FlagPerf's lr is the rate at its own batch: chipperf's scaled rate equals it at this batch
BASE_LR = Derivation("base_lr", ("lr",),
                     "lr (the rate itself, with lr_reference_batch set to global_batch_size)",
                     lambda flagperf, _, __: flagperf["lr"])
LR_REFERENCE = Derivation("lr_reference_batch", ("lr",),
                          "lr: global_batch_size, so that base_lr is used unscaled, as FlagPerf uses lr",
                          lambda _, knobs, __: knobs["global_batch_size"])


# fairseq's lr is a list (one rate per update_freq stage); FlagPerf's transformer sets one
FAIRSEQ_LR = Derivation("learning_rate", ("lr",), "lr: fairseq's list of rates, its first (the peak)",
                        lambda flagperf, _, __: (flagperf["lr"][0] if isinstance(flagperf["lr"], list)
                                                 else flagperf["lr"]))

# Megatron's warmup (cpm, glm): a share of the decay's steps, chipperf's max_steps
WARMUP_SHARE = Derivation(
    "warmup_steps", ("warmup",), "warmup (a share of max_steps) x max_steps, rounded up",
    lambda flagperf, knobs, _: math.ceil(flagperf["warmup"] * knobs["max_steps"]))
EVAL_INTERVAL = Derivation(
    "eval_every_steps", ("eval_interval_samples",),
    "eval_interval_samples / global_batch_size, rounded up",
    lambda flagperf, knobs, _: math.ceil(flagperf["eval_interval_samples"] / knobs["global_batch_size"]))


# FlagPerf's llava1.5_7b and llava1.5_13b run their pretrain then their finetune stage, each
# with its own batch; chipperf's cases run both too (stage "both": the case's knobs are
# finetune's, its pretrain_recipe pretrain's) or the one its stage knob names
_LLAVA_BATCH = ("finetune_per_device_train_batch_size", "pretrain_per_device_train_batch_size")


def _llava_stage(knobs: Values) -> str:
    """The stage the case's own batch knobs are for (stage "both": finetune's)."""
    return "finetune" if knobs["stage"] == "both" else str(knobs["stage"])


def _llava_batch(flagperf: Values, stage: str, world: int) -> Any:
    return flagperf[f"{stage}_per_device_train_batch_size"] \
        * flagperf.get(f"{stage}_gradient_accumulation_steps", 1) * world


LLAVA_GLOBAL_BATCH = Derivation(
    "global_batch_size", (*_LLAVA_BATCH, "finetune_gradient_accumulation_steps",
                          "pretrain_gradient_accumulation_steps"),
    "<stage>_per_device_train_batch_size x <stage>_gradient_accumulation_steps x nnodes x "
    "nproc, for the stage the case's stage knob names (finetune's with stage 'both')",
    lambda flagperf, knobs, world: _llava_batch(flagperf, _llava_stage(knobs), world))
LLAVA_MICRO_BATCH = Derivation(
    "micro_batch_size", _LLAVA_BATCH,
    "<stage>_per_device_train_batch_size (each rank's forward; the accumulation makes the rest)",
    lambda flagperf, knobs, _: flagperf[f"{_llava_stage(knobs)}_per_device_train_batch_size"])
LLAVA_PRETRAIN_BATCH = Derivation(
    "pretrain_recipe", ("pretrain_per_device_train_batch_size",
                        "pretrain_gradient_accumulation_steps"),
    "the pretrain stage's global_batch_size (pretrain_per_device_train_batch_size x "
    "pretrain_gradient_accumulation_steps x nnodes x nproc) and micro_batch_size "
    "(pretrain_per_device_train_batch_size), in the case's pretrain_recipe (stage 'both')",
    lambda flagperf, knobs, world: {
        **knobs["pretrain_recipe"], "global_batch_size": _llava_batch(flagperf, "pretrain", world),
        "micro_batch_size": flagperf["pretrain_per_device_train_batch_size"]})


def _dtype(name: str) -> Derivation:
    return Derivation("dtype", (name,), f"{name}: True -> 'fp16' (autocast), False -> 'fp32'",
                      lambda flagperf, _, __: "fp16" if flagperf[name] else "fp32")


_IMAGES = (GLOBAL_BATCH, BASE_LR, LR_REFERENCE)
_TEXT = (GLOBAL_BATCH,)
DERIVED: dict[str, tuple[Derivation, ...]] = {
    "resnet50:pytorch": (*_IMAGES, MAX_STEPS, _dtype("amp"), _dtype("fp16")),
    "vit:pytorch": (*_IMAGES, _dtype("amp")),
    "efficientnet:pytorch": _IMAGES,
    "mobilenetv2:pytorch": (*_IMAGES, _dtype("fp16")),
    "swin_transformer:pytorch": (GLOBAL_BATCH, _dtype("amp_enable")),
    "retinanet:pytorch": (*_IMAGES, GLOBAL_EVAL_BATCH),
    "faster_rcnn:pytorch": (*_IMAGES, GLOBAL_EVAL_BATCH),
    "mask_rcnn:pytorch": (*_IMAGES, GLOBAL_EVAL_BATCH),
    "detr:pytorch": (*_IMAGES, GLOBAL_EVAL_BATCH),
    "bigtransfer:pytorch": _IMAGES,
    "bert:pytorch": (GLOBAL_BATCH, MAX_STEPS),
    "bert:paddle": (GLOBAL_BATCH, MAX_STEPS),
    "distilbert:pytorch": _TEXT,
    "gpt2:pytorch": _TEXT,
    "t5_small:pytorch": _TEXT,
    "tacotron2:pytorch": (GLOBAL_BATCH, MAX_STEPS),
    "moflow:pytorch": _TEXT,
    "bert_hf:pytorch": _TEXT,
    "longformer:pytorch": _TEXT,
    "cpm:pytorch": (GLOBAL_BATCH, MAX_STEPS, WARMUP_SHARE, EVAL_INTERVAL),
    "glm:pytorch": (GLOBAL_BATCH, MAX_STEPS, WARMUP_SHARE, EVAL_INTERVAL),
    "transformer:pytorch": (FAIRSEQ_LR,),
    "llava1.5_7b:pytorch": (LLAVA_GLOBAL_BATCH, LLAVA_MICRO_BATCH, LLAVA_PRETRAIN_BATCH),
    "llava1.5_13b:pytorch": (LLAVA_GLOBAL_BATCH, LLAVA_MICRO_BATCH, LLAVA_PRETRAIN_BATCH),
}

# ---------------------------------------------------------------- no effect, with why

_OWN_RECIPE = ("part of FlagPerf's training recipe for this model; chipperf's case trains with "
               "its own fixed recipe (its config/_base.py), so every chip runs the same one")
_APEX_BERT = ("an apex/NVIDIA kernel or optimizer switch of FlagPerf's nvidia bert code; "
              "chipperf's bert uses the framework's own layers and AdamW")
_CUDA_GRAPH = "CUDA-graph capture in FlagPerf's bert code; chipperf's case runs eagerly"
_PADDING = ("FlagPerf bert's unpadding kernels; chipperf's bert computes the same loss on "
            "padded batches")
_LAMB = ("FlagPerf bert's LAMB optimizer and its schedule; chipperf's bert trains with AdamW "
         "and warmup_steps")
_TF_GARDEN = ("FlagPerf's TensorFlow Model Garden experiment setting; chipperf's tensorflow2 "
              "case takes the flat knobs of its config/mutable_params.py")
_FAIRSEQ = ("fairseq's token-budget batching in FlagPerf's wav2vec2; chipperf's wav2vec2 "
            "batches by global_batch_size")
_PRECISION = ("FlagPerf's mixed-precision switch; this chipperf case's dtype knob chooses "
              "the precision (the text cases: 'fp32', 'bf16' or 'fp16' with a loss scaler): "
              "set dtype")

NO_EFFECT: dict[str, str] = {
    "vendor": "FlagPerf's vendor tag; chipperf takes the vendor from VENDOR in the test config",
    "dist_backend": ("chipperf's device layer picks the vendor's collective backend "
                     "(chipperf_runtime/device)"),
    "ddp_type": ("FlagPerf's choice of data-parallel wrapper (apex or native); chipperf's case "
                 "has one data-parallel implementation"),
    "local_rank": "set by the launcher for each process, not by a config",
    "theoryflops": ("FlagPerf's peak FLOPS for its MFU; chipperf divides by the chip's spec-sheet "
                    "peak (chipperf_runtime/vendors)"),
    "flashattn": ("FlagPerf llama2's flash-attention switch; chipperf's case calls the "
                  "framework's scaled_dot_product_attention, which picks its kernel itself"),
    "datafilename": ("FlagPerf llama2's dataset file; chipperf's case reads the dataset in the "
                     "case key's data dir (its README.md says which files)"),
    "grad_scaler": ("FlagPerf's AMP loss-scaler object (GradScaler()); chipperf's case scales the "
                    "loss itself where its dtype needs it"),
    "cache_eval_data": "FlagPerf bert's evaluation-data cache; it changes no figure",
    "eval_batch_size": ("the evaluation batch does not change the trained model or the timed "
                        "training steps; chipperf's case evaluates with its own batch"),
    "gradient_accumulation_steps": ("folded into global_batch_size only with train_batch_size "
                                    "(chipperf does not accumulate gradients)"),
    "dataloader_num_workers": ("FlagPerf's loader workers; chipperf's text cases read "
                               "tokenised data in the training process"),
    "log_freq": "FlagPerf's log interval; it changes no figure (chipperf's is log_every_steps)",
    "cfg": "FlagPerf swin's YAML model file; chipperf's swin is chosen by model_size",
    "training_event": ("FlagPerf's training-event adapter object (its fp16/apex hooks); "
                       "chipperf's case has no such hook"),
    "target_mlm_accuracy": ("chipperf's case fixes what 'converged' means for each model size "
                            "(its config/mutable_params.py)"),
    **dict.fromkeys(("cuda_graph_mode", "use_cuda_graph", "max_iterations_per_graph"), _CUDA_GRAPH),
    **dict.fromkeys(("unpad", "unpad_fmha", "pad", "exchange_padding", "dense_seq_output"),
                    _PADDING),
    **dict.fromkeys(("fused_mha", "fused_gelu_bias", "disable_fuse_scale", "disable_fuse_qkv",
                     "disable_apex_softmax", "enable_stream", "bypass_amp", "opt_level",
                     "allreduce_post_accumulation", "allreduce_post_accumulation_fp16",
                     "distributed_lamb", "dwu_group_size", "dwu_num_blocks", "dwu_num_chunks",
                     "dwu_num_rs_pg", "dwu_num_ar_pg", "dwu_num_ag_pg", "dwu_overlap_reductions",
                     "dwu_e5m2_allgather"), _APEX_BERT),
    **dict.fromkeys(("start_warmup_step", "warmup_proportion", "opt_lamb_beta_1",
                     "opt_lamb_beta_2"), _LAMB),
    **dict.fromkeys(("lr_scheduler", "lr_warmup_method", "lr_warmup_decay", "auto_augment",
                     "random_erase", "mixup_alpha", "cutmix_alpha", "norm_weight_decay",
                     "ra_sampler", "ra_reps", "opt", "train_crop_size", "val_crop_size",
                     "val_resize_size", "TRAIN_SIZE", "EVAL_SIZE", "warmup", "lr_decay_ratio",
                     "lr_decay_iters", "optimizer"), _OWN_RECIPE),
    **dict.fromkeys(("do_train", "model_dir", "model_ckpt_dir", "mode", "runtime", "train_dataset",
                     "validation_dataset", "model", "train", "evaluation"), _TF_GARDEN),
    **dict.fromkeys(("num_concat_batches", "update_freq", "max_sample_size", "min_sample_size",
                     "max_tokens", "eval_steps"), _FAIRSEQ),
    **dict.fromkeys(("fp16", "amp", "amp_enable"), _PRECISION),
}

# A case whose reason differs from the table above.
CASE_NO_EFFECT: dict[str, dict[str, str]] = {
    "llama2_7b:deepspeed": {
        "epochs": ("FlagPerf llama2's passes over its data file; chipperf's case runs max_steps "
                   "(or timed_steps in performance mode)")},
    "resnet50:pytorch": {
        "learning_rate": ("not a parameter of FlagPerf's resnet50 either (its rate is lr, "
                          "training/benchmarks/resnet50/pytorch/config/_base.py)")},
    "transformer:pytorch": {
        "max_epoch": ("FlagPerf transformer's passes over WMT14; chipperf's case stops at the "
                      "BLEU target or max_steps")},
    "resnet50:tensorflow2": {
        "target_accuracy": ("chipperf's case fixes what 'converged' means for each model size "
                            "(its config/mutable_params.py)")},
    "glm:pytorch": {
        "target_accuracy": ("chipperf's case fixes what 'converged' means for each model size "
                            "(its config/mutable_params.py)")},
    "llava1.5_7b:pytorch": {
        "output_dir_finetune": ("FlagPerf llava's checkpoint folder; chipperf's case saves no "
                                "checkpoint unless save_checkpoint names one (the pretrained "
                                "projector reaches finetune in memory)"),
        "mmmu_data_path": ("FlagPerf llava's MMMU evaluation after its finetune; chipperf's "
                           "llava scores the eval loss of held-out conversations")},
    "cpm:pytorch": {
        "target_embedding_average": ("FlagPerf cpm's embedding-average target; chipperf's cpm "
                                     "converges on next-token accuracy (an untrained model "
                                     "scores 0.94 embedding average: its README)")},
}
CASE_NO_EFFECT["llava1.5_13b:pytorch"] = CASE_NO_EFFECT["llava1.5_7b:pytorch"]  # the same recipe

# FlagPerf's PaddleNLP Trainer arguments in its four Paddle LLM configs that chipperf's paddlellm
# case does not read (the ones it reads are its own knobs: chipperf_runtime/training/paddlellm)
_FUSED_KERNEL = ("a fused PaddleNLP GPU kernel; chipperf's Paddle LLM case computes the same "
                 "layer with Paddle's ordinary operators (matmul, softmax)")
_PADDLE_LLM: dict[str, str] = {
    "model_name_or_path": ("PaddleNLP's pretrained-model name; chipperf's case builds its "
                           "folder's model (model_size) from scratch, as FlagPerf's "
                           "continue_training = 0 does"),
    "tokenizer_name_or_path": "the data is read already tokenised (<prefix>_ids.npy)",
    "continue_training": ("FlagPerf's configs set 0 (train from scratch); chipperf's case "
                          "always trains from scratch"),
    "save_steps": "PaddleNLP's checkpoint interval; chipperf's case writes no checkpoint",
    "target_loss": ("never compared in FlagPerf's run_pretraining.py; chipperf's case fixes "
                    "target_eval_loss per model size"),
    "target_ppl": ("never compared in FlagPerf's run_pretraining.py (its check is commented "
                   "out); chipperf's case fixes target_eval_loss per model size"),
    "logging_steps": "PaddleNLP's log interval; it changes no figure (chipperf's is log_every_steps)",
    "per_device_eval_batch_size": ("chipperf's case evaluates eval_samples windows in micro-"
                                   "batches of per_device_train_batch_size"),
    "virtual_pp_degree": ("PaddleNLP's interleaved stages; chipperf's pipeline holds one stage "
                          "per rank (FlagPerf's configs set 1)"),
    "use_flash_attention": _FUSED_KERNEL,
    "fuse_attention_qkv": _FUSED_KERNEL,
    "use_fused_rms_norm": _FUSED_KERNEL,
    "fp16_opt_level": ("chipperf's case runs fp16 as AMP O1 (fp32 weights, float16 compute, a "
                       "static loss scale of scale_loss), not O2's float16 weights with fp32 "
                       "master copies: its memory figures are not O2's"),
    "recompute_granularity": "chipperf's recompute is per decoder layer (PaddleNLP's 'full')",
}
CASE_NO_EFFECT.update({f"{model}:paddle": _PADDLE_LLM
                       for model in ("llama1_7B", "llama1_13B", "gpt3_6.7B", "gpt3_13B")})


def no_effect(case: str, name: str) -> str | None:
    """Why FlagPerf's ``name`` has no effect on chipperf's ``case``; None: it is not such a name."""
    return CASE_NO_EFFECT.get(case, {}).get(name) or NO_EFFECT.get(name)


def derivations(case: str, flagperf: Values) -> tuple[Derivation, ...]:
    """The case's derivations whose first FlagPerf name the config sets."""
    return tuple(d for d in DERIVED.get(case, ()) if d.uses[0] in flagperf)
