"""base spec interconnect-P2P_intraserver (see base/benchmarks/specs/__init__.py for its method)."""

from specs import main

if __name__ == "__main__":
    main("interconnect-P2P_intraserver")
