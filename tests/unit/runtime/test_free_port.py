"""free_port (bot/runtime/server.py): a port below the kernel's ephemeral range, free to listen
on; bind(0)'s when that range cannot be read; never one another process was handed within
CLAIM_S (bot/runtime/port_claims.py)."""

from __future__ import annotations

import contextlib
import random
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.runtime.port_claims import CLAIM_S, read_claims
from bot.runtime.server import SPARE_PORTS, free_port, spare_ports


def test_a_free_port_is_below_the_ephemeral_range_and_can_be_listened_on(tmp_path: Path) -> None:
    low, high = spare_ports()
    for _ in range(20):
        port = free_port(tmp_path / "claims.json")
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


def test_a_port_handed_out_is_not_drawn_again_until_its_claim_runs_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    low, high = spare_ports()
    if not low < high:
        pytest.skip("no spare range below the ephemeral ports on this machine: bind(0)'s port is used")
    first, second = _bindable(low, high, 2)
    draws: Iterator[int] = iter([first, first, first, second, first])
    monkeypatch.setattr(random, "randrange", lambda *_: next(draws))
    claims = tmp_path / "claims.json"
    now = [1000.0]

    def clock() -> float:
        return now[0]

    assert free_port(claims, clock) == first
    # Another process (the claims are a file) draws the same port twice while it is claimed.
    assert free_port(claims, clock) == second
    assert set(read_claims(claims)) == {first, second}
    now[0] += CLAIM_S  # long after: the first claim has run out, the port is drawn again
    assert free_port(claims, clock) == first
    assert set(read_claims(claims)) == {first}


def _bindable(low: int, high: int, n: int) -> list[int]:
    """n ports of the spare range free to listen on now (a bench may hold some)."""
    found = []
    for port in range(low, high):
        with socket.socket() as s, contextlib.suppress(OSError):
            s.bind(("127.0.0.1", port))
            found.append(port)
        if len(found) == n:
            return found
    raise AssertionError(f"fewer than {n} free ports in {low}..{high}")


@pytest.mark.parametrize("text", ["not json", '{"20001": null}', "[1, 2]"])
def test_an_unreadable_claims_file_is_no_claims(tmp_path: Path, text: str) -> None:
    claims = tmp_path / "claims.json"
    claims.write_text(text)
    port = free_port(claims)
    assert set(read_claims(claims)) == {port}


def test_where_claims_cannot_be_kept_a_port_is_still_handed_out(tmp_path: Path) -> None:
    port = free_port(tmp_path / "missing" / "claims.json")  # no folder: no lock file can be made
    with socket.socket() as s:
        s.bind(("127.0.0.1", port))
