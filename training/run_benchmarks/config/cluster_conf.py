'''Cluster config: which hosts run the benchmark (FlagPerf form, read as data).'''
# Hosts to run on. The first is the master (node rank 0); node rank = position in this list.
# 127.0.0.1 runs locally without SSH.
HOSTS = ["127.0.0.1"]

# SSH port of every host, and the user/key chipperf logs in with (default: you, your keys).
SSH_PORT = "22"
# SSH_USER = "root"
# SSH_KEY = "~/.ssh/id_ed25519"

# Host keys are checked against this file; add hosts with `ssh-keyscan -p PORT HOST >> FILE`.
KNOWN_HOSTS = "~/.ssh/known_hosts"
# HOST_KEY_POLICY = "accept-any"   # explicit opt-out of host key verification

# Port the distributed rendezvous listens on, on the master.
MASTER_PORT = "29501"

# Per-run work dirs on every host go under here (removed after the run).
WORK_ROOT = "/tmp/chipperf"
