# From FlagOpen/FlagPerf training/cambricon/llama3_70B_continuetrain-flagscale/config/config_MLUx4x8.py
# at commit 1b5a030398ab719e406f77877eb34c9599b17fd2 (its settings; its comments dropped).
scale_parent = "/share/project/data_dir"
scale_home = f"{scale_parent}/FlagScale/build/cambricon_MLU/FlagScale"
scale_conf_dir = f"{scale_home}/examples/llama/conf"
configyaml = f"{scale_conf_dir}/config.yaml"
cmds = {}
flagscale_ssh_port = 55623
FLOPS_DIR='../../../../'
import sys
sys.path.append(FLOPS_DIR)
from MLU_FP16_FLOPS import MLU_FP16_FLOPS
flops = float(MLU_FP16_FLOPS)
steps = 500
