"""Models that a training and an inference case share, and what builds them.

Shipped into every container with the rest of ``chipperf`` (STYLE.md 17), so training and
inference cases share one definition. The rule (issue 13): a case takes its model from the
field's own library (torchvision, transformers, diffusers ...) built from a config; a model
is written out here only when no such library can be imported in the case images. This
package is pure; each model module imports its framework.

    from chipperf_runtime.models.resnet import flops_per_sample, resnet50   # torchvision's ResNet-50
    from chipperf_runtime.models.tvision import import_torchvision          # torchvision beside a CPU torch
    from chipperf_runtime.models.mt_transformer import TransformerMT        # fairseq's pre-LN WMT
                                    # Transformer from nn.Transformer (no library has the t2t variant)
"""
