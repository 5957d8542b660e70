"""The run-mode knobs every training case shares (see driver/perfmode.py); a case's
``config/_base.py`` star-imports this file, its ``mutable_params.py`` adds
``run_mode_knobs`` from driver/runmode_mutable.py. Every public name is a parameter."""

run_mode = "convergence"      # or "performance": perf_warmup_steps, then timed_steps timed
perf_warmup_steps = 0         # performance mode: optimizer steps before the timed window
timed_steps = 0               # performance mode: optimizer steps in the timed window (> 0)
seed_per_round = False        # True: round N of a case trains with seed + N - 1 ($CHIPPERF_ROUND), so
                              # a case repeated N times runs N seeds (docs/results.md "Convergence
                              # over seeds")
