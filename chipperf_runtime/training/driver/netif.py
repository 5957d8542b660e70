"""Which network interface reaches the master (stdlib only, Linux).

Gloo binds to the address the hostname resolves to; on hosts (or network namespaces)
where that is a loopback or foreign address, multi-node runs hang. ``interface_towards``
finds the interface the kernel routes MASTER_ADDR through, so a case can set
``GLOO_SOCKET_IFNAME`` (or a framework's equivalent) when the user has not.
"""

from __future__ import annotations

import fcntl
import socket
import struct

SIOCGIFADDR = 0x8915


def local_address_towards(addr: str, port: int = 9) -> str | None:
    """This host's source address for packets to ``addr`` (no packet is sent)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect((addr, port))
            return s.getsockname()[0]
    except OSError:
        return None


def interface_address(name: str) -> str | None:
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            packed = fcntl.ioctl(s.fileno(), SIOCGIFADDR, struct.pack("256s", name[:15].encode()))
            return socket.inet_ntoa(packed[20:24])
    except OSError:
        return None


def interface_towards(addr: str) -> str | None:
    """Name of the interface holding the source address for ``addr``; None if unknown."""
    local = local_address_towards(addr)
    if local is None:
        return None
    for _, name in socket.if_nameindex():
        if interface_address(name) == local:
            return name
    return None
