"""LLaVA-1.5's size presets: 7B's, shared by the cases that build it (llava1.5_7b, which trains
it in FlagPerf's two stages, and llava1.5_7b_continuetrain, which continues from llava1.5_7b's
checkpoint: a checkpoint fits only the model it came from), and 13B's (llava1.5_13b). A
preset is ``LlavaSpec``'s: {"vision": CLIPVisionConfig values, "text": LlamaConfig values,
"image_token_id", "pad_token_id", "projector_hidden_act"}."""

from __future__ import annotations

from typing import Any

LLAVA_7B: dict[str, dict[str, Any]] = {
    # llava-hf/llava-1.5-7b-hf's config.json: openai/clip-vit-large-patch14-336's vision tower
    # (24 x 1024, 16 heads, MLP 4096, quick_gelu, 336 px in 14 px patches: 576 image tokens),
    # the projector 1024 -> 4096 -> 4096 (GELU), and lmsys/vicuna-7b-v1.5's Llama-2-7B decoder
    # with the vocabulary grown to 32064 (<image> is 32000, <pad> 32001): 7,063,427,072
    # parameters in all.
    "7b": {"vision": {"hidden_size": 1024, "intermediate_size": 4096, "num_hidden_layers": 24,
                      "num_attention_heads": 16, "image_size": 336, "patch_size": 14,
                      "projection_dim": 768, "hidden_act": "quick_gelu",
                      "layer_norm_eps": 1e-5},
           "text": {"vocab_size": 32064, "hidden_size": 4096, "intermediate_size": 11008,
                    "num_hidden_layers": 32, "num_attention_heads": 32,
                    "num_key_value_heads": 32, "max_position_embeddings": 4096,
                    "rope_theta": 10000.0, "rms_norm_eps": 1e-5, "tie_word_embeddings": False},
           "image_token_id": 32000, "pad_token_id": 32001, "projector_hidden_act": "gelu"},
    # CI: the same blocks at toy widths: a 2 x 64 vision tower on 28 px pictures (4 image
    # tokens), a 2 x 128 decoder on the 259 byte-level ids + <image> (259) + <pad> (260)
    "tiny": {"vision": {"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
                        "num_attention_heads": 4, "image_size": 28, "patch_size": 14,
                        "projection_dim": 64, "hidden_act": "quick_gelu",
                        "layer_norm_eps": 1e-5},
             "text": {"vocab_size": 261, "hidden_size": 128, "intermediate_size": 352,
                      "num_hidden_layers": 2, "num_attention_heads": 4,
                      "num_key_value_heads": 4, "max_position_embeddings": 1024,
                      "rope_theta": 10000.0, "rms_norm_eps": 1e-5,
                      "tie_word_embeddings": False},
             "image_token_id": 259, "pad_token_id": 260, "projector_hidden_act": "gelu"},
}

LLAVA_13B: dict[str, dict[str, Any]] = {
    # llava-hf/llava-1.5-13b-hf's config.json: llava-1.5-7b's vision tower and image tokens,
    # the projector 1024 -> 5120 -> 5120 (GELU) and lmsys/vicuna-13b-v1.5's Llama-2-13B decoder
    # (40 x 5120, 40 heads, MLP 13824) with the vocabulary grown to 32064
    "13b": {"vision": LLAVA_7B["7b"]["vision"],
            "text": {**LLAVA_7B["7b"]["text"], "hidden_size": 5120, "intermediate_size": 13824,
                     "num_hidden_layers": 40, "num_attention_heads": 40,
                     "num_key_value_heads": 40},
            "image_token_id": 32000, "pad_token_id": 32001, "projector_hidden_act": "gelu"},
    # CI: llava1.5_7b's tiny preset (the same blocks at toy widths)
    "tiny": LLAVA_7B["tiny"],
}
