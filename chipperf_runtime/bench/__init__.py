"""Case-side library of the base/ and operation/ suites (shipped into every container); their
timed loops and percentiles are every suite's, in ``chipperf_runtime.timing``.

    peaks.py    the chip's spec-sheet peaks (chipperf_runtime.vendors ChipSpec) for a dtype or memory
    case.py     one benchmark process: contract arguments, vendor settings, PerfLog lifecycle,
                FINISHED, and the exits for a bad input (2) and an unsupported measurement (3)

Nothing here imports a framework at module level; the torch parts live in the suites'
shared folders (chipperf_runtime/base, chipperf_runtime/operation).
"""
