"""The results store: many result directories in one database (docs/results-store.md).

Engine side only: it reads result directories through chipperf.results.read and never runs a
case. ``db`` opens and migrates the database, ``ingest`` puts runs in, ``history`` finds
regressions over time, ``leaderboard`` renders the chips side by side, ``serve`` shows that page
read-only over HTTP, ``entry`` holds what the CLI calls.
"""
