# From FlagOpen/FlagPerf@1b5a0303 training/kunlunxin/llama3_70B_continuetrain-flagscale/config/config_R300px4x8.py (values as FlagPerf sets them).
# ruff: noqa
# scale_parent must under FlagPerf/ or data_dir/, otherwise you cannot mount it into baremetal, therefore cannot use shared storage
# not carried (no such parameter in chipperf's case): scale_parent = "/share/project/PUBLIC/data/FlagScale/build/kunlunxin_R300p/"
# not carried (no such parameter in chipperf's case): scale_home = f"{scale_parent}/FlagScale"

# this cmd should install scale at <scale_home>. <scale_home> is set by flagperf.training.benchmarks.llava1.5_7b.flagscale.run_pretraining.py
#scale_download_cmd = f"cd {scale_parent}; git clone https://github.com/FlagOpen/FlagScale.git; cd FlagScale; git checkout 085811f"
# not carried (no such parameter in chipperf's case): scale_download_cmd = f"cd {scale_parent}; "

# NV need nothing because all requirements have been established in base docker image. vendor can do anything related here
# not carried (no such parameter in chipperf's case): scale_install_cmd = ""

# not carried (no such parameter in chipperf's case): scale_conf_dir = f"{scale_home}/examples/llama/conf"
# not carried (no such parameter in chipperf's case): configyaml = f"{scale_conf_dir}/config.yaml"
# not carried (no such parameter in chipperf's case): trainyaml = f"{scale_conf_dir}/train/train_llama3_70b_finetune.yaml"
# not carried (no such parameter in chipperf's case): dataset = f"/share/project/PUBLIC/data/llama3-70b/llama3_dataset"
# not carried (no such parameter in chipperf's case): tokenizer = f"/share/project/PUBLIC/data/llama3-70b/llama3_tokenizer"
# not carried (no such parameter in chipperf's case): ckpt = f"/share/project/PUBLIC/data/llama3-70b/llama3_ckpt"


# not carried (no such parameter in chipperf's case): cmds = {"before_start": "source ~/.bashrc;"}


# flagscale's requirements
# not carried (no such parameter in chipperf's case): flagscale_chip_type = "R300p"
# not carried (no such parameter in chipperf's case): flagscale_ssh_port = 3702
# not carried (no such parameter in chipperf's case): flops = -1

# for llava's algorithm
# not carried (no such parameter in chipperf's case): steps = 500
