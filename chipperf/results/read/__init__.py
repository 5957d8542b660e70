"""Reading result directories: chipperf's and FlagPerf's formats, monitor samples, collect, check."""
