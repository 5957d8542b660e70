"""chipperf: an open AI-hardware evaluation engine (the host engine: config, plan, hosts,
containers, results, cli). It runs on the master host and is never shipped into a container;
what runs there is ``chipperf_runtime``, which never imports this package."""

__version__ = "0.1.0"
