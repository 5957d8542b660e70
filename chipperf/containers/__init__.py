"""Images (build, cache by input hash, ship) and containers (start, wait, stop) via the docker SDK."""
