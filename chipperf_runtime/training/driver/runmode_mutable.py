"""The run-mode knobs (driver/runmode_base.py) a vendor config may set; a case's
``config/mutable_params.py`` star-imports this file and adds ``run_mode_knobs``."""

run_mode_knobs = ["run_mode", "perf_warmup_steps", "timed_steps", "seed_per_round"]
