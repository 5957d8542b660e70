# From FlagOpen/FlagPerf training/run_benchmarks/config/cluster_conf.py at commit 1b5a030398ab719e406f77877eb34c9599b17fd2 (comments dropped).
HOSTS = ["10.1.2.2", "10.1.2.3", "10.1.2.4"]
HOSTS_PORTS = ["2222"]
MASTER_PORT = "29501"
SSH_PORT = "22"
