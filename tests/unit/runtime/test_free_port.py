"""free_port (bot/runtime/server.py): a port below the kernel's ephemeral range, free to listen
on; bind(0)'s when that range cannot be read."""

from __future__ import annotations

import socket
from pathlib import Path

from bot.runtime.server import SPARE_PORTS, free_port, spare_ports


def test_a_free_port_is_below_the_ephemeral_range_and_can_be_listened_on() -> None:
    low, high = spare_ports()
    for _ in range(20):
        port = free_port()
        if low < high:
            assert low <= port < high  # no outgoing connection is handed it meanwhile
        with socket.socket() as s:
            s.bind(("127.0.0.1", port))
            s.listen()


def test_the_spare_ports_end_where_the_ephemeral_range_starts(tmp_path: Path) -> None:
    ranges = tmp_path / "ip_local_port_range"
    ranges.write_text("32768\t60999\n")
    assert spare_ports(ranges) == (SPARE_PORTS[0], 32768)
    ranges.write_text("25000 60999\n")
    assert spare_ports(ranges) == (SPARE_PORTS[0], 25000)
    ranges.write_text("1024 65535\n")  # nothing left below it: bind(0)'s port
    low, high = spare_ports(ranges)
    assert not low < high
    assert spare_ports(tmp_path / "missing") == (0, 0)
