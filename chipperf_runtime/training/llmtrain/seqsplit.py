"""The rules of splitting a sequence (standard library only: the engine checks them at plan
time from a vendor config, the case again at its start): context parallelism cuts each
sequence into ``2 x context_parallel`` equal chunks (two per rank, llmtrain/context.py), and
Megatron's sequence parallelism splits each rank's part over the tensor-parallel group
(llmtrain/sequence.py), so it needs one."""

from __future__ import annotations


def sequence_split_problems(seq_len: int, context_parallel: int, tensor_parallel: int,
                            sequence_parallel: bool) -> list[str]:
    """Every reason these degrees cannot split a ``seq_len`` sequence."""
    cp, tp, problems = context_parallel, tensor_parallel, []
    if cp > 1 and seq_len % (2 * cp):
        problems.append(f"context_parallel {cp} needs seq_len divisible by 2 x {cp} = {2 * cp} "
                        f"(each rank holds two of {2 * cp} equal chunks, llmtrain/context.py): "
                        f"seq_len {seq_len} is not; choose a multiple of {2 * cp}")
    if sequence_parallel and tp == 1:
        problems.append("sequence_parallel = True needs tensor_parallel > 1 (Megatron's sequence "
                        "parallelism splits the norms' tokens over the tensor-parallel group): "
                        "set tensor_parallel, or sequence_parallel = False")
    elif sequence_parallel and cp >= 1 and (seq_len // cp) % tp:
        problems.append(f"sequence_parallel: tensor_parallel {tp} must divide the "
                        f"{seq_len // cp} tokens of a sequence each rank holds (seq_len "
                        f"{seq_len} / context_parallel {cp}): choose a seq_len that "
                        f"{cp * tp} divides")
    return problems
