"""EXECUTOR = "slurm": the run's nodes come from a Slurm allocation.

``commands`` builds the sbatch/squeue/scontrol/scancel argument lists and reads their answers
(pure); ``allocation`` holds the job for the run and releases it on every way out; ``checks``
asks sinfo/scontrol, before anything is queued, whether the request can be met.
"""
