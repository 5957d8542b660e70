"""The compile knobs every PyTorch training loop that can compile its model shares
(imagecls, hftext, llmtrain: see driver/torchknobs.py); a case's ``config/_base.py``
star-imports this file, its ``mutable_params.py`` adds ``compile_knobs`` from
driver/compile_mutable.py. Every public name is a parameter."""

compile = False               # torch.compile the model (imagecls, hftext: the whole network;
                              # llmtrain: each decoder layer); off by default (cpu CI configs)
compile_mode = "default"      # torch.compile mode (Inductor only): "default", "reduce-overhead",
                              # "max-autotune", ... (torch._inductor.list_mode_options())
compile_backend = "inductor"  # torch.compile backend ("aot_eager": no code generation, a check)
