"""FlagPerf's vendor-config parameter names -> the chipperf case knob with the same meaning.

One table per case (``model:family``). Only names whose meaning is the same are listed: a
FlagPerf name whose value means something else here (FlagPerf's resnet50 ``lr`` is the
learning rate itself, chipperf's ``base_lr`` is scaled by ``global_batch_size /
lr_reference_batch``; ``train_batch_size`` is per device, ``global_batch_size`` is not;
``target_acc1`` is a percentage, ``target_accuracy`` a share) is not an alias: where the
value converts, ``flagperf_knobs.DERIVED`` computes the knob (per-device batch x world size);
FlagPerf's knobs for its own implementation are accepted with a note
(``flagperf_knobs.NO_EFFECT``); any other name is refused at plan time with the case's
allowed names.

Each alias maps to one knob (a list here is refused: one name cannot set two knobs).
"""

from __future__ import annotations

FLAGPERF_ALIASES: dict[str, dict[str, str]] = {
    # FlagPerf training/benchmarks/resnet50/pytorch/config/_base.py: max_epoch
    "resnet50:pytorch": {"max_epoch": "max_epochs"},
    "resnet50:tensorflow2": {"max_epoch": "max_epochs"},
    # FlagPerf training/benchmarks/llama2_7b/deepspeed/run_pretraining.py: seqlength is the
    # sequence length, batchsize the per-rank DataLoader batch (the micro batch)
    "llama2_7b:deepspeed": {"seqlength": "seq_len", "batchsize": "micro_batch_size"},
    # FlagPerf training/benchmarks/bert/*/config/_base.py: weight_decay_rate
    "bert:pytorch": {"weight_decay_rate": "weight_decay"},
    "bert:paddle": {"weight_decay_rate": "weight_decay"},
    # FlagPerf training/benchmarks/gpt2/pytorch/config/_base.py: lr (the peak Adam rate),
    # seq_length, clip_grad (the global-norm clip)
    "gpt2:pytorch": {"lr": "learning_rate", "seq_length": "seq_len",
                     "clip_grad": "grad_clip_norm"},
    # FlagPerf training/benchmarks/distilbert/pytorch/config/_base.py: lr (the AdamW rate)
    "distilbert:pytorch": {"lr": "learning_rate"},
    # FlagPerf training/benchmarks/t5_small/pytorch/config/_base.py: lr (the AdamW rate);
    # not target_rouge1 (a per-size dict here, and not vendor-settable)
    "t5_small:pytorch": {"lr": "learning_rate"},
    # FlagPerf training/benchmarks/{bert_hf,longformer}/pytorch/config/_base.py: lr (the AdamW
    # rate), bert_hf's seq_length
    "bert_hf:pytorch": {"lr": "learning_rate", "seq_length": "seq_len"},
    "longformer:pytorch": {"lr": "learning_rate"},
    # FlagPerf training/benchmarks/cpm/pytorch/config/_base.py: beta_1, beta_2, eps (Adam's),
    # seq_length, weight_decay_rate
    "cpm:pytorch": {"beta_1": "adam_beta1", "beta_2": "adam_beta2", "eps": "adam_eps",
                    "seq_length": "seq_len", "weight_decay_rate": "weight_decay"},
    # FlagPerf training/benchmarks/glm/pytorch/config/_base.py: lr (the peak Adam rate),
    # lr_decay_ratio (the rate's floor as a share of lr), lr_decay_iters (the steps the decay
    # runs over: chipperf's max_steps, where the decay ends), clip_grad (the global-norm clip)
    "glm:pytorch": {"lr": "learning_rate", "lr_decay_ratio": "min_lr_ratio",
                    "lr_decay_iters": "max_steps", "clip_grad": "grad_clip_norm"},
    # FlagPerf training/benchmarks/{retinanet,faster_rcnn}/pytorch/config/_base.py: target_mAP
    # (COCO box mAP as a share, as target_map), max_epoch
    "retinanet:pytorch": {"target_mAP": "target_map", "max_epoch": "max_epochs"},
    "faster_rcnn:pytorch": {"target_mAP": "target_map", "max_epoch": "max_epochs"},
    # FlagPerf training/benchmarks/mask_rcnn/pytorch/config/_base.py: target_map_bbox and
    # target_map_segm (COCO box and mask mAP as shares), max_epoch
    "mask_rcnn:pytorch": {"target_map_bbox": "target_map", "target_map_segm": "target_mask_map",
                          "max_epoch": "max_epochs"},
    # FlagPerf training/benchmarks/detr/pytorch/config/_base.py: target_mAP, epochs,
    # clip_max_norm (the global-norm clip)
    "detr:pytorch": {"target_mAP": "target_map", "epochs": "max_epochs",
                     "clip_max_norm": "clip_grad_norm"},
    # FlagPerf training/benchmarks/bigtransfer/pytorch/config/_base.py: target_mAP is its
    # top-1 accuracy target (a share: 0.83), target_accuracy here
    "bigtransfer:pytorch": {"target_mAP": "target_accuracy"},
    # FlagPerf training/benchmarks/wav2vec2/pytorch/config/_base.py and model_config.py: lr
    # (the peak Adam rate), max_update and warmup_updates (optimizer updates), clip_norm (the
    # global-norm clip); not eval_steps, which counts micro-batches there
    "wav2vec2:pytorch": {"lr": "learning_rate", "max_update": "max_steps",
                         "warmup_updates": "warmup_steps", "clip_norm": "grad_clip_norm"},
    # FlagPerf training/benchmarks/tacotron2/pytorch/config/_base.py: grad_clip_thresh (the
    # global-norm clip)
    "tacotron2:pytorch": {"grad_clip_thresh": "grad_clip_norm"},
    # FlagPerf training/benchmarks/dlrm/pytorch/config/_base.py: lr (the SGD rate), train_data
    # and eval_data (the splits' folder names)
    "dlrm:pytorch": {"lr": "learning_rate", "train_data": "train_split", "eval_data": "eval_split"},
    # FlagPerf training/benchmarks/transformer_xl/pytorch/config/_base.py: lr (the Adam rate),
    # max_step (the steps its cosine annealing runs over), warmup_step
    "transformer_xl:pytorch": {"lr": "learning_rate", "max_step": "max_steps",
                               "warmup_step": "warmup_steps"},
    # FlagPerf training/benchmarks/moflow/pytorch/config/_base.py: lr, beta1, beta2 (Adam's),
    # clip (the global-norm clip)
    "moflow:pytorch": {"lr": "learning_rate", "beta1": "adam_beta1", "beta2": "adam_beta2",
                       "clip": "grad_clip_norm"},
    # FlagPerf training/benchmarks/{vit,efficientnet}/pytorch/config/_base.py: epochs and
    # lr_warmup_epochs (torchvision's reference recipe), swin_transformer's train_epochs,
    # mobilenetv2's max_epoch: the epochs trained, and of linear warmup
    "vit:pytorch": {"epochs": "max_epochs", "lr_warmup_epochs": "warmup_epochs"},
    "efficientnet:pytorch": {"epochs": "max_epochs", "lr_warmup_epochs": "warmup_epochs"},
    "swin_transformer:pytorch": {"train_epochs": "max_epochs"},
    "mobilenetv2:pytorch": {"max_epoch": "max_epochs"},
    # FlagPerf training/nvidia/{llama3_8B,mixtral_8x7B}-megatron/config/config_*.py:
    # train_steps (300): the optimizer steps of its fixed-length run, whose throughput and MFU
    # it reports; here the timed steps of performance mode (chipperf.config.vendorconfig
    # then sets run_mode = "performance" when the config does not say)
    # and Megatron's parallel sizes (the same degrees; Megatron's expert-parallel groups are
    # data-parallel ranks too; its sequence_parallel switch has chipperf's name)
    "llama3_8B:pytorch": {"train_steps": "timed_steps",
                          "tensor_model_parallel_size": "tensor_parallel",
                          "pipeline_model_parallel_size": "pipeline_parallel",
                          "context_parallel_size": "context_parallel"},
    "mixtral_8x7B:pytorch": {"train_steps": "timed_steps",
                             "tensor_model_parallel_size": "tensor_parallel",
                             "expert_model_parallel_size": "expert_parallel",
                             "context_parallel_size": "context_parallel"},
}


# FlagPerf's case folder names that differ from chipperf's for the same case, per suite
# (found by diffing FlagOpen/FlagPerf@1b5a030's training/, inference/ and operation/
# benchmarks/ folders against chipperf's; docs/flagperf-names.md lists them with the rest).
# A case key may use either name; the plan, the case folder and the result use chipperf's.
FLAGPERF_CASE_NAMES: dict[str, dict[str, str]] = {
    # training/benchmarks/WaveGlow (and training/<vendor>/WaveGlow-pytorch): chipperf's waveglow
    "training": {"WaveGlow": "waveglow",
                 # training/benchmarks/aquila2_{7B,34B,70B}_container (FlagPerf's in-container
                 # launch of FlagScale): the model is the case; chipperf's IN_CONTAINER_LAUNCH
                 # is the launch (docs/flagperf-names.md)
                 "aquila2_7B_container": "aquila2_7b", "aquila2_34B_container": "aquila2_34B",
                 "aquila2_70B_container": "aquila2_70B"},
    # inference/benchmarks/bertLarge: BERT-large masked-LM inference, chipperf's bert_large
    "inference": {"bertLarge": "bert_large"},
    # operation/benchmarks/cross_entropy_loss: F.cross_entropy over (batch, classes) logits
    "operation": {"cross_entropy_loss": "cross_entropy"},
}


def chipperf_case_name(suite: str, name: str) -> str:
    """chipperf's name of a case FlagPerf names ``name`` in ``suite`` (``name`` itself when
    the two agree)."""
    return FLAGPERF_CASE_NAMES.get(suite, {}).get(name, name)
# FlagPerf's LLM cases on its own implementations (framework family -> the implementation),
# run here by chipperf's torch-native case of the same model (``chipperf.config.implementations``):
# FlagPerf's keys ``llama3_8B:megatron_core060``, ``mixtral_8x7B:flagscale_2409``,
# ``qwen1.5_MoE:megatron_pai``, ``aquila2_7b:flagscale`` ... (its test_conf.py at 1b5a030);
# ``llava1.5_7b:deepspeed-torch`` (a model chipperf has no deepspeed case of: a model that has
# one, llama2_7b, runs its own); ``aquila2_34B_container:in_container`` (FlagPerf's
# training/run_benchmarks/in_container/run.py: FlagScale started over ssh in each host's
# running vendor container).
FLAGPERF_IMPLEMENTATIONS: dict[str, str] = {"megatron": "Megatron-LM", "flagscale": "FlagScale",
                                            "deepspeed": "DeepSpeed",
                                            "in_container": "FlagScale in the hosts' running containers"}
# what differs from chipperf's torch-native case, per implementation (default: Megatron's)
IMPLEMENTATION_DIFFERENCES: dict[str, str] = {
    "deepspeed": "DeepSpeed's ZeRO sharding and fused optimizer vs chipperf's FSDP2",
    "in_container": ("FlagScale's Megatron-LM kernels and schedule vs chipperf's DTensor TP + "
                     "FSDP2; the case runs in the hosts' existing containers with "
                     "IN_CONTAINER_LAUNCH = True (FlagPerf's EXEC_IN_CONTAINER=True), else in "
                     "the vendor's pytorch image chipperf builds")}
TORCH_NATIVE = "pytorch"


def implementation_note(framework: str, family: str) -> str:
    """The warning a FlagPerf ``framework`` key of ``family`` (a FLAGPERF_IMPLEMENTATIONS key)
    carries when chipperf's torch-native case runs it, into run.json and SUBMIT_INFO."""
    name = FLAGPERF_IMPLEMENTATIONS[family]
    difference = IMPLEMENTATION_DIFFERENCES.get(
        family, f"{name}'s fused kernels and schedule vs chipperf's DTensor TP + FSDP2")
    return (f"FlagPerf's framework {framework!r} runs {name}; planned as chipperf's "
            f"torch-native {TORCH_NATIVE} case: {difference}; the figures are not comparable "
            f"with FlagPerf's {family} results")


# A FlagPerf name whose mapping implies a run mode: the knob it maps to -> (knob, value) set
# with it unless the config sets that knob itself.
IMPLIED: dict[str, tuple[str, str]] = {"timed_steps": ("run_mode", "performance")}
