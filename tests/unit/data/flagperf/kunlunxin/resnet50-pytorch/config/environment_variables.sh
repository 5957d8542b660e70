# From FlagOpen/FlagPerf training/kunlunxin/resnet50-pytorch/config/environment_variables.sh at commit 66eb17e4f4f1282c03f2f2ec17f61dba41cb3cee (its licence header left out).
export BKCL_PCIE_RING=1
export BKCL_TIMEOUT=1800
export XMLIR_D_XPU_L3_SIZE=66060288
export XDNN_CONV_GEMM_DTYPE=int16
