"""The HPU-graph knobs (hpugraphs_base.py) a vendor config may set."""

hpu_graph_knobs = ["hpu_graphs_for_training", "hpu_graphs_for_inference"]
