"""base spec interconnect-MPI_intraserver (see base/benchmarks/specs/__init__.py for its method)."""

from specs import main

if __name__ == "__main__":
    main("interconnect-MPI_intraserver")
