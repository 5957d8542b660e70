"""The run's own life: the controller (preflight -> images -> rounds -> collect -> teardown ->
report), one round on its nodes, the run's record, the checks before a run dir exists, rounds
judged late, what earlier runs left, and the leases that keep two runs off the same hosts."""
