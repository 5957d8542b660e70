# From FlagOpen/FlagPerf training/nvidia/resnet50-tensorflow2/config/config_A100x1x8.py at commit 1b5a030398ab719e406f77877eb34c9599b17fd2
# (the settings up to train_dataset; later ones have the same forms).
do_train = True
model_dir = 'result'
mode = 'train_and_eval'
target_accuracy: float = 0.76
runtime = dict(distribution_strategy='mirrored',
               run_eagerly=None,
               tpu=None,
               batchnorm_spatial_persistent=True)
train_dataset = dict(name='imagenet2012',
                     data_dir='/raid/dataset/ImageNet2012/tf_records',
                     image_size=224,
                     batch_size=128,
                     dtype='float16')
local_rank: int = -1
