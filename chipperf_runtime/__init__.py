"""chipperf's case runtime: the one library that case, benchmark and operator code of every
suite imports inside a container, shipped there beside the case code and nothing else.

``device`` (which accelerator, backend, memory), ``perflog`` (the PerfLog writer and its pure
parser), ``timing`` (the clock, timed loops, percentiles: every suite's), ``bench`` (the
base/operation case harness), ``monitors`` and
``vendors`` (the sidecar and each vendor's sampler, spec sheet and device options),
``launch`` (the rank launchers' helpers), ``models`` and ``wordpiece`` (workload code shared by
cases), and one subpackage per suite: ``training`` (the driver and the model families'
shared code), ``inference``, ``base``, ``operation``.

The rule: nothing here imports ``chipperf`` (the host engine); tests/unit/test_layering.py
checks it over the whole tree. Importing this package (and ``perflog``, ``monitors``,
``vendors``) needs nothing beyond the standard library.
"""
