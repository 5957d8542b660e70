"""Optimum Habana's HPU-graph knobs of the transformers text cases (hftext.case), read only on
an Intel Gaudi (device ``hpu``: hftext.optimum_habana); a case's ``config/_base.py``
star-imports this file, its ``mutable_params.py`` adds ``hpu_graph_knobs`` from
hpugraphs_mutable.py. The defaults are GaudiTrainer's (optimum-habana 1.15.0's
GaudiTrainingArguments: both off). Every public name is a parameter."""

hpu_graphs_for_training = False   # GaudiTrainer's use_hpu_graphs_for_training: the model's
                                  # forward and backward captured as HPU graphs
                                  # (habana_frameworks.torch.hpu.ModuleCacher) and replayed
hpu_graphs_for_inference = False  # GaudiTrainer's use_hpu_graphs_for_inference: the evaluation
                                  # forward (and generation) in an HPU graph (wrap_in_hpu_graph)
