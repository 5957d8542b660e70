"""The commands beyond a run whose work is more than a call into one package: `chipperf cases`,
`chipperf selftest` and the plan's printed form. The CLI parses and dispatches; these do."""
